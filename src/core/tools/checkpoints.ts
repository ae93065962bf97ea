import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic';
import type { FileChangeRecord } from '../wire/records';
import { walkFiles } from './walk';

/** What a snapshot of the workspace keeps per file before a command runs. */
interface SnapshotEntry {
  readonly size: number;
  readonly mtimeMs: number;
  readonly hash: string;
}

/** Limits of the snapshot taken around shell commands. */
export const SNAPSHOT_LIMITS = { files: 5_000, fileBytes: 1024 * 1024 };

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

  /**
   * Before a shell command: keeps the image of every workspace file (respecting .gitignore, at
   * most 5,000 files of up to 1 MiB) so that files the command changes or deletes can be restored.
   * Blobs are content-addressed, so unchanged files cost a read and a hash, not space.
   */
  snapshot(root: string): Map<string, SnapshotEntry> {
    const entries = new Map<string, SnapshotEntry>();
    for (const rel of walkFiles(root, root)) {
      if (entries.size >= SNAPSHOT_LIMITS.files) break;
      const full = path.join(root, rel);
      let stat: fs.Stats;
      try {
        stat = fs.statSync(full);
      } catch {
        continue;
      }
      if (stat.size > SNAPSHOT_LIMITS.fileBytes) continue;
      entries.set(rel, { size: stat.size, mtimeMs: stat.mtimeMs, hash: this.blobs.put(fs.readFileSync(full)) });
    }
    return entries;
  }

  /** After a shell command: a file_change for each snapshotted file it modified or deleted, and each file it created. */
  async recordCommand(root: string, before: Map<string, SnapshotEntry>, toolCallId: string, display: (full: string) => string): Promise<number> {
    let changes = 0;
    const seen = new Set<string>();
    for (const rel of walkFiles(root, root)) {
      seen.add(rel);
      const full = path.join(root, rel);
      const old = before.get(rel);
      let stat: fs.Stats;
      try {
        stat = fs.statSync(full);
      } catch {
        continue;
      }
      if (old && old.size === stat.size && old.mtimeMs === stat.mtimeMs) continue;
      if (!old && (before.size >= SNAPSHOT_LIMITS.files || stat.size > SNAPSHOT_LIMITS.fileBytes)) continue;
      if (old) this.before.set(full, this.before.has(full) ? this.before.get(full)! : old.hash);
      else if (!this.before.has(full)) this.before.set(full, null);
      await this.recordAfter(full, display(full), toolCallId);
      changes++;
    }
    for (const [rel, old] of before) {
      if (seen.has(rel)) continue;
      const full = path.join(root, rel);
      if (!this.before.has(full)) this.before.set(full, old.hash);
      await this.recordAfter(full, display(full), toolCallId);
      changes++;
    }
    return changes;
  }

  /** Call after writing `file`: appends the file_change record. */
  async recordAfter(file: string, displayPath: string, toolCallId: string): Promise<void> {
    const after = fs.existsSync(file) ? this.blobs.put(fs.readFileSync(file)) : null;
    await this.sink({ t: 'file_change', turn: this.turn, toolCallId, path: displayPath, before: this.before.get(file) ?? null, after });
  }
}
