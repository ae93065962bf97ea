import { MARK, matchesOf, type Cut } from './redaction';

// Images are not sent: their bytes could show anything on the screen they were taken from, and
// the blobs they name stay on this machine.

/** An image content part of a message: base64 `data` (the kernel's form) or the session's `blob` (the log's). */
export function isImagePart(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const part = value as { type?: unknown; data?: unknown; blob?: unknown };
  return part.type === 'image' && (typeof part.data === 'string' || typeof part.blob === 'string');
}

/** What stands in a message for an image part: a text part, so a reader still reads a valid message. */
export const IMAGE_STAND_IN = { type: 'text', text: MARK.image } as const;

/** An image as a data URL in a text (`data:image/png;base64,...`). */
const DATA_URL = /data:image\/[\w.+-]+;base64,[A-Za-z0-9+/]*={0,2}/g;

/** The data URLs of images in `text`, each to be replaced by `[image not shared]`. */
export function imageCuts(text: string): Cut[] {
  if (!text.includes('data:image/')) return [];
  return matchesOf(DATA_URL, text).map((m) => ({ start: m.index, end: m.index + m[0].length, by: MARK.image, kind: 'image', sample: 'data…' }));
}
