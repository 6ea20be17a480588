// Real PNG files made here, for the fake chatgpt.com and the suite: an attachment's
// gradient (attachment-scenarios.mjs) and an answer's "generated" picture (artifacts.mjs).
// No image library: the PNG chunks are written by hand (signature, IHDR, IDAT, IEND, each
// with its CRC-32), the pixels deflated by node:zlib.

import zlib from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A PNG of `width`×`height` RGB pixels, `pixel(x, y)` → `[r, g, b]` (0–255 each);
 * `level`: the deflate level of its image data (0: stored, as large as the pixels).
 */
export function pngOf(width, height, pixel, level = 6) {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x += 1) raw.set(pixel(x, y), row + 1 + x * 3);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw, { level })), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * A colour gradient of `width`×`height`, its image data stored uncompressed so the file is
 * as large as the pixels: 1280×1366 is ≈ 5.2 MB.
 */
export function gradientPng(width = 1280, height = 1366) {
  return pngOf(width, height, (x, y) => [(x * 255) / width, (y * 255) / height, ((x + y) * 7) & 0xff], 0);
}

/**
 * The fake's "generated" picture: a sky graded by height, a sun whose place and colour
 * follow `seed` (so each image of an answer differs), and a dark hill along the bottom.
 */
export function generatedPng(width, height, seed = 0) {
  const sunX = width * (0.25 + ((seed * 37) % 50) / 100);
  const sunY = height * 0.4;
  const r = Math.min(width, height) * 0.15;
  const hue = (seed * 71) % 120;
  return pngOf(width, height, (x, y) => {
    const hill = height * 0.78 + Math.sin((x / width) * Math.PI * 2 + seed) * height * 0.06;
    if (y > hill) return [30, 60 + ((x + y) % 9), 40];
    if ((x - sunX) ** 2 + (y - sunY) ** 2 < r * r) return [255, 200 + (hue % 55), 60];
    const t = y / height;
    return [Math.round(40 + 200 * t), Math.round(80 + hue * t), Math.round(200 - 120 * t)];
  });
}

/**
 * `png` grown to exactly `size` bytes by a private ancillary chunk (`spAd`, which readers
 * skip) before its end: still a valid PNG. `size` must leave room for the chunk (12 bytes).
 */
export function paddedPng(png, size) {
  const room = size - png.length - 12;
  if (room < 0) throw new Error(`a PNG of ${png.length} bytes cannot be padded to ${size}`);
  const end = png.length - 12; // IEND: length, type, CRC with no data
  return Buffer.concat([png.subarray(0, end), chunk('spAd', Buffer.alloc(room)), png.subarray(end)]);
}
