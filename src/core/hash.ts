import { createHash } from 'node:crypto';

/**
 * The sha256 of bytes, or of text as UTF-8, in 64 lower-case hex digits: what names a blob,
 * tells whether a file still has an image a log recorded, and derives ids and workspace keys.
 */
export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}
