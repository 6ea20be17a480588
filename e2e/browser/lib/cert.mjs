// A self-signed certificate for chatgpt.com, the fake's blob store host and claude.ai, made at test time with openssl (nothing is
// downloaded or committed). Chromium is started with --ignore-certificate-errors.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Writes key.pem and cert.pem into `dir` (unless both exist) and returns their contents. */
export function selfSignedCert(dir) {
  const keyPath = path.join(dir, 'key.pem');
  const certPath = path.join(dir, 'cert.pem');
  if (!fs.existsSync(keyPath) || !fs.existsSync(certPath)) {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=chatgpt.com',
       '-addext', 'subjectAltName=DNS:chatgpt.com,DNS:files.blob.fake-chatgpt.test,DNS:claude.ai', '-keyout', keyPath, '-out', certPath],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  }
  return { key: fs.readFileSync(keyPath), cert: fs.readFileSync(certPath) };
}
