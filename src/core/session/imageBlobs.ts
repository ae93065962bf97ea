import type { ImageContent, Message } from '@mariozechner/pi-ai';
import type { BlobStore } from '../format/blobStore';

/** An image block as the log keeps it: its type and the blob holding its bytes, no data. */
interface StoredImage {
  readonly type: 'image';
  readonly mimeType: string;
  readonly blob: string;
}

type Block = { type: string } & Record<string, unknown>;

function mapBlocks(message: Message, change: (block: Block) => Block): Message {
  if (typeof message.content === 'string') return message;
  let changed = false;
  const content = (message.content as unknown as Block[]).map((b) => {
    const next = change(b);
    if (next !== b) changed = true;
    return next;
  });
  return changed ? ({ ...message, content } as unknown as Message) : message;
}

/** The message as the log keeps it: each image's bytes stored once in the blobs (by hash) and named there. */
export function withImageBlobs(message: Message, blobs: BlobStore): Message {
  return mapBlocks(message, (b) => {
    if (b.type !== 'image' || typeof b.data !== 'string') return b;
    const blob = blobs.put(Buffer.from(b.data, 'base64'));
    const stored: StoredImage = { type: 'image', mimeType: String(b.mimeType), blob };
    return stored as unknown as Block;
  });
}

/** What the model is told in place of an image whose blob is gone (a damaged folder). */
export const MISSING_IMAGE = '[An image the user attached here is missing from the session\u2019s files.]';

/** The message as the kernel needs it: each image named by its blob gets its data back. */
export function withImageData(message: Message, blobs: BlobStore): Message {
  return mapBlocks(message, (b) => {
    if (b.type !== 'image' || typeof b.blob !== 'string' || typeof b.data === 'string') return b;
    try {
      const image: ImageContent = { type: 'image', mimeType: String(b.mimeType), data: blobs.get(b.blob).toString('base64') };
      return image as unknown as Block;
    } catch {
      return { type: 'text', text: MISSING_IMAGE };
    }
  });
}
