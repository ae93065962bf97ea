import fs from 'node:fs';
import path from 'node:path';
import type { BlobStore } from '../format/blobStore';
import type { FileChangeRecord } from '../wire/records';
import { readWhole } from './confinedFile';
import { runToolJob } from './worker/runJob';
import { WorkspaceFs, type WorkspacePlace } from './workspaceFs';

/** What a snapshot of the workspace keeps per file before a command runs. */
interface SnapshotEntry {
  readonly size: number;
  readonly mtimeMs: number;
  readonly hash: string;
}

/** The files of a workspace folder before a command, and whether the listing was complete. */
export interface Snapshot {
  readonly root: string;
  readonly entries: Map<string, SnapshotEntry>;
  /** The listing hit its deadline: files it did not reach are not tracked. */
  readonly partial: boolean;
}

/** Limits of the snapshot taken around shell commands. */
export const SNAPSHOT_LIMITS = { files: 5_000, fileBytes: 1024 * 1024, listingMs: 10_000 };

/** Appends file_change records to the session's log. */
export type FileChangeSink = (record: Omit<FileChangeRecord, 'v' | 'ts'>) => Promise<void>;

/**
 * Records file changes made by tools: the image of a file before its first write in a turn is
 * stored before that write happens, and every write appends a `file_change` with that before-image,
 * the image after it, the workspace folder it happened in and the folders it had to create. A
 * rewind restores the before-image of the first change it drops, in that folder.
 */
export class Checkpoints {
  private turn = 0;
  private readonly before = new Map<string, string | null>();

  constructor(
    private readonly blobs: BlobStore,
    private readonly sink: FileChangeSink,
  ) {}

  /** Starts a new turn: before-images are taken again on each file's first write. */
  beginTurn(turn: number): void {
    this.turn = turn;
    this.before.clear();
  }

  /** Call before writing `file`, with its current image (null when absent): kept once per turn. */
  captureBefore(file: string, image: Buffer | null): void {
    if (this.before.has(file)) return;
    this.before.set(file, image ? this.blobs.put(image) : null);
  }

  /** Call after a tool wrote `after` to `file`: appends the file_change record. */
  async recordWrite(file: string, place: WorkspacePlace, toolCallId: string, after: Buffer | null, createdDirs: readonly string[] = []): Promise<void> {
    const dirs = createdDirs.map((d) => path.relative(place.root, d).split(path.sep).join('/'));
    await this.sink({
      t: 'file_change',
      turn: this.turn,
      toolCallId,
      path: place.relative,
      root: place.root,
      before: this.before.get(file) ?? null,
      after: after ? this.blobs.put(after) : null,
      ...(dirs.length ? { createdDirs: dirs } : {}),
    });
  }

  /**
   * Before a shell command: keeps the image of every file of the workspace folder `root`
   * (respecting .gitignore, at most 5,000 files of up to 1 MiB) so that files the command changes
   * or deletes can be restored. The images are provisional: `recordCommand` keeps those its
   * records name and removes the rest, so files the command left as they were cost a read and a
   * hash, not space. The listing runs in a worker with a deadline (a hostile .gitignore pattern
   * can take exponential time).
   */
  async snapshot(root: string, signal?: AbortSignal): Promise<Snapshot> {
    const listing = await listFiles(root, signal);
    const workspace = new WorkspaceFs([root]);
    const entries = new Map<string, SnapshotEntry>();
    for (const rel of listing.files) {
      const full = path.join(root, rel);
      const stat = fs.lstatSync(full, { throwIfNoEntry: false });
      if (!stat?.isFile() || stat.size > SNAPSHOT_LIMITS.fileBytes) continue;
      const data = readRegular(workspace, full);
      if (data) entries.set(rel, { size: stat.size, mtimeMs: stat.mtimeMs, hash: this.blobs.putProvisional(data) });
    }
    return { root, entries, partial: listing.partial };
  }

  /**
   * After a shell command: a file_change for each snapshotted file it modified or deleted, and
   * each file it created; then the snapshot's images no record names are removed.
   */
  async recordCommand(before: Snapshot, toolCallId: string): Promise<number> {
    try {
      return await this.recordChanges(before, toolCallId);
    } finally {
      this.releaseSnapshot(before);
    }
  }

  /** Keeps the snapshot's images this turn's records name as a before-image and removes the others. */
  releaseSnapshot(snapshot: Snapshot): void {
    const named = new Set(this.before.values());
    this.blobs.settleProvisional(
      [...snapshot.entries.values()].map((e) => e.hash),
      (hash) => named.has(hash),
    );
  }

  private async recordChanges(before: Snapshot, toolCallId: string): Promise<number> {
    const { root, entries } = before;
    // Listed further than the snapshot went, so that files it tracked are seen again.
    const listing = await listFiles(root, undefined, SNAPSHOT_LIMITS.files * 4);
    let changes = 0;
    const seen = new Set<string>();
    const workspace = new WorkspaceFs([root]);
    const record = async (rel: string, full: string) => {
      const after = readRegular(workspace, full);
      await this.recordWrite(full, { root, relative: rel }, toolCallId, after);
      changes++;
    };
    for (const rel of listing.files) {
      seen.add(rel);
      const full = path.join(root, rel);
      const old = entries.get(rel);
      const stat = fs.lstatSync(full, { throwIfNoEntry: false });
      if (!stat?.isFile()) continue;
      if (old && old.size === stat.size && old.mtimeMs === stat.mtimeMs) continue;
      if (!old && (entries.size >= SNAPSHOT_LIMITS.files || stat.size > SNAPSHOT_LIMITS.fileBytes || before.partial)) continue;
      if (old) this.before.set(full, this.before.has(full) ? this.before.get(full)! : old.hash);
      else if (!this.before.has(full)) this.before.set(full, null);
      await record(rel, full);
    }
    if (listing.partial) return changes; // files the listing did not reach may still be there
    for (const [rel, old] of entries) {
      if (seen.has(rel)) continue;
      const full = path.join(root, rel);
      if (!this.before.has(full)) this.before.set(full, old.hash);
      await record(rel, full);
    }
    return changes;
  }
}

/**
 * A file's bytes when it is a regular file of the folder (never blocking on a FIFO or following a
 * link swapped in since it was listed); null otherwise, as for a file that is gone.
 */
function readRegular(workspace: WorkspaceFs, full: string): Buffer | null {
  try {
    return readWhole(workspace, full, full, SNAPSHOT_LIMITS.fileBytes * 64, 'too large').data;
  } catch {
    return null;
  }
}

/**
 * The files of a workspace folder (gitignore respected, at most `limit`), listed in a worker;
 * `partial` when the listing ran out of time, or (after a command) did not reach every file.
 */
async function listFiles(root: string, signal?: AbortSignal, limit = SNAPSHOT_LIMITS.files): Promise<{ files: string[]; partial: boolean }> {
  const result = await runToolJob({ kind: 'walk', root, start: root, limit }, { timeoutMs: SNAPSHOT_LIMITS.listingMs, ...(signal ? { signal } : {}) });
  return { files: result.items, partial: result.timedOut || (limit > SNAPSHOT_LIMITS.files && result.truncated) };
}
