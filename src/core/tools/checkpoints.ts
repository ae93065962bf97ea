import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic';
import type { FileChangeRecord } from '../wire/records';

/** Content-addressed file images of a session: blobs/<aa>/<sha256>. */
export class BlobStore {
  constructor(readonly dir: string) {}

  /** Stores bytes (once) and returns their hash. */
  put(data: Buffer): string {
    const hash = createHash('sha256').update(data).digest('hex');
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

  pathOf(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`not a blob hash: ${hash}`);
    return path.join(this.dir, hash.slice(0, 2), hash);
  }
}

/** Appends file_change records to the session's log. */
export type FileChangeSink = (record: Omit<FileChangeRecord, 'v' | 'ts'>) => Promise<void>;

/**
 * Records file changes made by tools: the image of a file before its first write in a turn is
 * stored before that write happens, and every write appends a `file_change` with that before-image
 * and the image after it. A rewind restores the before-image of the first change it drops.
 */
export class Checkpoints {
  private turn = 0;
  private readonly before = new Map<string, string | null>();

  constructor(private readonly blobs: BlobStore, private readonly sink: FileChangeSink) {}

  /** Starts a new turn: before-images are taken again on each file's first write. */
  beginTurn(turn: number): void {
    this.turn = turn;
    this.before.clear();
  }

  /** Call before writing `file`: keeps its current image (null when absent) once per turn. */
  captureBefore(file: string): void {
    if (this.before.has(file)) return;
    this.before.set(file, fs.existsSync(file) ? this.blobs.put(fs.readFileSync(file)) : null);
  }

  /** Call after writing `file`: appends the file_change record. */
  async recordAfter(file: string, displayPath: string, toolCallId: string): Promise<void> {
    const after = fs.existsSync(file) ? this.blobs.put(fs.readFileSync(file)) : null;
    await this.sink({ t: 'file_change', turn: this.turn, toolCallId, path: displayPath, before: this.before.get(file) ?? null, after });
  }
}
