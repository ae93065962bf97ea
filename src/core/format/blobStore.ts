import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic';
import { sha256Hex } from '../hash';

/** What a rewind, an undo or a diff says of a file whose image `braid gc` removed (docs/reference.md, Operations). */
export const CHECKPOINT_REMOVED = 'checkpoint removed';

/** What a rewind or an undo says of a file it leaves as it is because its checkpoint was removed. */
export const checkpointRemovedNote = (file: string) => `${file}: ${CHECKPOINT_REMOVED} (braid gc removed the copy Braid kept of it), so it is left as it is`;

/**
 * Blob files this process wrote provisionally (the images a shell command's snapshot keeps) and
 * nothing has claimed since, by path: shared by every BlobStore of the process, so that a blob
 * any other put stored as well (an edit's before-image, a prompt's image) is never dropped.
 */
const provisional = new Set<string>();

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
    provisional.delete(file);
    this.write(file, data);
    return hash;
  }

  /**
   * Stores bytes that may turn out not to be needed (a snapshot's images of files a command may
   * leave as they are): a blob this put created stays provisional until a `put` of the same bytes
   * claims it, and `dropProvisional` removes it otherwise. A blob already there is left as it is.
   */
  putProvisional(data: Buffer): string {
    const hash = sha256Hex(data);
    const file = this.pathOf(hash);
    if (this.write(file, data)) provisional.add(file);
    return hash;
  }

  /**
   * Settles provisional blobs: those `kept` says a record names stay for good; the others still
   * provisional (no other put stored them meanwhile) are removed.
   */
  settleProvisional(hashes: Iterable<string>, kept: (hash: string) => boolean): void {
    for (const hash of hashes) {
      const file = this.pathOf(hash);
      if (!provisional.delete(file) || kept(hash)) continue;
      fs.rmSync(file, { force: true });
      try {
        fs.rmdirSync(path.dirname(file));
      } catch {
        // other blobs share the folder
      }
    }
  }

  /** Writes a blob file unless it is there; true when this call created it. */
  private write(file: string, data: Buffer): boolean {
    if (fs.existsSync(file)) return false;
    const owner = path.dirname(this.dir);
    if (!fs.existsSync(owner)) throw new BlobFolderGoneError(owner);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, data);
    return true;
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
