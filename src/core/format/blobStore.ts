import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic';
import { sha256Hex } from '../hash';

/** What a rewind, an undo or a diff says of a file whose image `braid gc` removed (docs/reference.md, Operations). */
export const CHECKPOINT_REMOVED = 'checkpoint removed';

/** What a rewind or an undo says of a file it leaves as it is because its checkpoint was removed. */
export const checkpointRemovedNote = (file: string) => `${file}: ${CHECKPOINT_REMOVED} (braid gc removed the copy Braid kept of it), so it is left as it is`;

/** Content-addressed file images of a session: blobs/<aa>/<sha256>. */
export class BlobStore {
  constructor(readonly dir: string) {}

  /**
   * Stores bytes (once) and returns their hash. The folder that holds `blobs/` (the session's) must
   * be there: a session folder removed meanwhile is never brought back half-empty by a blob.
   */
  put(data: Buffer): string {
    const hash = sha256Hex(data);
    const file = this.pathOf(hash);
    if (!fs.existsSync(file)) {
      const owner = path.dirname(this.dir);
      if (!fs.existsSync(owner)) throw new BlobFolderGoneError(owner);
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

/** The folder a blob was to be stored in is gone (the session was removed while open). */
export class BlobFolderGoneError extends Error {
  override readonly name = 'BlobFolderGoneError';
  constructor(readonly folder: string) {
    super(`the session folder ${folder} is gone, so nothing more can be stored in it`);
  }
}
