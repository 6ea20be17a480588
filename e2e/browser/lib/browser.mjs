// Debian's Chromium, headless, with the unpacked extension, chatgpt.com (and its blob store's
// host, for uploads) and claude.ai mapped to their local fakes and treated as public sites
// (PLATFORM-NOTES.md, "Chromium with the extension").

import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where Debian puts the real binary (the /usr/bin wrapper adds an empty --load-extension=). */
export const CHROMIUM = process.env.SENDLEDGER_CHROMIUM || '/usr/lib/chromium/chromium';

/**
 * Launches a persistent context with a fresh user-data dir.
 * `extension`: path of the unpacked extension, or null for none; `blob`: `{host, port}` of the
 * fake's blob store (a second origin), or none; `claudePort`: the claude.ai fake's port, or none.
 * Returns `{context, userDataDir, close()}`.
 */
export async function launch({ fakePort, extension, blob, claudePort }) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sendledger-chromium-'));
  const args = [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--host-resolver-rules=MAP chatgpt.com 127.0.0.1:${fakePort}${blob ? `, MAP ${blob.host} 127.0.0.1:${blob.port}` : ''}${claudePort ? `, MAP claude.ai 127.0.0.1:${claudePort}` : ''}`,
    '--ignore-certificate-errors',
    `--ip-address-space-overrides=127.0.0.1:${fakePort}=public${blob ? `,127.0.0.1:${blob.port}=public` : ''}${claudePort ? `,127.0.0.1:${claudePort}=public` : ''}`,
  ];
  if (extension) args.push(`--disable-extensions-except=${extension}`, `--load-extension=${extension}`);
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args,
    ignoreDefaultArgs: ['--disable-extensions', '--enable-automation'],
    viewport: { width: 1100, height: 760 },
  });
  return {
    context,
    userDataDir,
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
