import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic';
import { sha256Hex } from '../hash';

/** What a rewind, an undo or a diff says of a file whose image `braid gc` removed (docs/reference.md, Operations). */
export const CHECKPOINT_REMOVED = 'checkpoint removed';

/** Content-addressed file images of a session: blobs/<aa>/<sha256>. */
export class BlobStore {
  constructor(readonly dir: string) {}

  /** Stores bytes (once) and returns their hash. */
  put(data: Buffer): string {
    const hash = sha256Hex(data);
    const file = this.pathOf(hash);
    if (!fs.existsSync(file)) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      writeFileAtomic(file, data);
    }
    return hash;
  }

  get(hash: string): Buffer {
    return fs.readFileSync(this.pathOf(hash));
  }

  /** The bytes of a blob, or undefined when its file is gone (`braid gc` removed it: a checkpoint removed). */
  find(hash: string): Buffer | undefined {
    try {
      return fs.readFileSync(this.pathOf(hash));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  pathOf(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`not a blob hash: ${hash}`);
    return path.join(this.dir, hash.slice(0, 2), hash);
  }
}
