import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir } from '../fs/atomic';
import type { PreparedLog } from '../index/preparedLog';

/** A session built in a `.partial-<id>…` folder of this process's own, waiting to be published at `final`. */
export interface Pending {
  readonly id: string;
  readonly partial: string;
  readonly final: string;
  /** Its main log made ready for the index, when its writer did that (or is doing it: awaited before the session is published). */
  readonly log?: PreparedLog | Promise<PreparedLog | undefined>;
}

/** What a publisher tells its owner. */
export interface PublishHooks {
  /** Before a batch is renamed into place: the workspace folders it goes to. */
  preparing?(workspaceDirs: readonly string[]): void;
  /** After each session is in place (the index learns of it); `log`: its main log made ready, if it was. */
  published(session: Pending, log: PreparedLog | undefined): void;
}

/** What could not be published, and why; `taken` when the session's folder was there already (another process published it). */
export interface PublishFailure {
  readonly id: string;
  readonly final: string;
  readonly reason: string;
  readonly taken: boolean;
}

/**
 * Publishes imported sessions in batches. An imported session is small and many come at once:
 * fsynced one by one, the fsyncs were most of an import. A batch's files are written unsynced,
 * then fsynced together (the first fsync's journal commit carries most of the others' data), then
 * each folder is renamed into place, then each workspace folder is fsynced once. The fsyncs run
 * on libuv's threads while the next batch is built (one batch at most waits on the disk). A
 * session is never visible before its files are durable; a crash loses at most the batches in
 * flight, whose partial folders the next start sweeps (an import run again brings them in).
 */
export class Publisher {
  private pending: Pending[] = [];
  private readonly failures: PublishFailure[] = [];
  /** The batch being published (its fsyncs, then its renames), and the ids in it. */
  private inFlight: Promise<void> = Promise.resolve();
  private readonly publishing = new Set<string>();

  constructor(
    private readonly hooks: PublishHooks,
    private readonly batch = 64,
  ) {}

  /** Adds a built session; a full batch starts publishing, waiting first for the batch before it. */
  async add(session: Pending): Promise<void> {
    this.pending.push(session);
    if (this.pending.length >= this.batch) await this.startBatch();
  }

  /** Whether a session is built and not yet in place. */
  isPending(id: string): boolean {
    return this.publishing.has(id) || this.pending.some((p) => p.id === id);
  }

  /** Publishes every session built so far; resolves when all are in place (or said to have failed). */
  async flush(): Promise<void> {
    if (this.pending.length) void this.startBatch();
    await this.inFlight;
  }

  /** Starts publishing the pending sessions after the batch in flight; resolves when that one is done. */
  private startBatch(): Promise<void> {
    const batch = this.pending.splice(0);
    for (const p of batch) this.publishing.add(p.id);
    const before = this.inFlight;
    this.inFlight = before.then(() => this.publish(batch));
    return before;
  }

  private async publish(batch: readonly Pending[]): Promise<void> {
    let logs: Array<PreparedLog | undefined>;
    try {
      [logs] = await Promise.all([Promise.all(batch.map((p) => p.log)), Promise.all(batch.map((p) => syncTree(p.partial)))]);
    } catch (err) {
      for (const p of batch) this.fail(p, `could not make it durable: ${String(err)}`, false);
      return;
    } finally {
      for (const p of batch) this.publishing.delete(p.id);
    }
    this.hooks.preparing?.([...new Set(batch.map((p) => path.dirname(p.final)))]);
    const done: Array<{ p: Pending; log: PreparedLog | undefined }> = [];
    for (const [i, p] of batch.entries()) {
      try {
        fs.renameSync(p.partial, p.final);
        done.push({ p, log: logs[i] });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const taken = code === 'ENOTEMPTY' || code === 'EEXIST';
        this.fail(
          p,
          taken ? 'another process imported it at the same time, from other source bytes; import again' : `could not publish it: ${String(err)}`,
          taken,
        );
      }
    }
    try {
      for (const dir of new Set(done.map(({ p }) => path.dirname(p.final)))) fsyncDir(dir);
    } catch (err) {
      // In place, but a crash now could lose the rename: said as a failure, never as imported.
      for (const { p } of done) this.failures.push({ id: p.id, final: p.final, taken: false, reason: `its folder could not be made durable: ${String(err)}` });
    }
    for (const { p, log } of done) this.hooks.published(p, log);
  }

  private fail(p: Pending, reason: string, taken: boolean): void {
    fs.rmSync(p.partial, { recursive: true, force: true });
    this.failures.push({ id: p.id, final: p.final, taken, reason });
  }

  /** The sessions that could not be published so far (each said once). */
  takeFailures(): PublishFailure[] {
    return this.failures.splice(0);
  }
}

/** fsyncs every file under `dir`, then the folders, deepest first (listed and synced on libuv's threads). */
async function syncTree(dir: string): Promise<void> {
  const entries = await fs.promises.readdir(dir, { withFileTypes: true });
  await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return syncTree(full);
      return entry.isFile() ? fsyncPath(full) : undefined;
    }),
  );
  await fsyncPath(dir);
}

async function fsyncPath(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
