import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir } from '../fs/atomic';
import type { LogFold } from '../format/logFold';

/** A session built in a `.partial-<id>…` folder of this process's own, waiting to be published at `final`; `fold` and `logBytes`: its main log's, when its writer kept them. */
export interface Pending {
  readonly id: string;
  readonly partial: string;
  readonly final: string;
  readonly fold?: LogFold;
  readonly logBytes?: number;
}

/** What a publisher tells its owner. */
export interface PublishHooks {
  /** Before a batch is renamed into place: the workspace folders it goes to. */
  preparing?(workspaceDirs: readonly string[]): void;
  /** After each session is in place (the index learns of it). */
  published(session: Pending): void;
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
 * each folder is renamed into place, then each workspace folder is fsynced once. A session is
 * never visible before its files are durable; a crash loses at most the batch, whose partial
 * folders the next start sweeps (an import run again brings them in).
 */
export class Publisher {
  private pending: Pending[] = [];
  private readonly failures: PublishFailure[] = [];

  constructor(
    private readonly hooks: PublishHooks,
    private readonly batch = 64,
  ) {}

  add(session: Pending): void {
    this.pending.push(session);
    if (this.pending.length >= this.batch) this.flush();
  }

  isPending(id: string): boolean {
    return this.pending.some((p) => p.id === id);
  }

  /** Publishes every pending session. */
  flush(): void {
    const batch = this.pending.splice(0);
    if (!batch.length) return;
    for (const p of batch) syncTree(p.partial);
    this.hooks.preparing?.([...new Set(batch.map((p) => path.dirname(p.final)))]);
    const done: Pending[] = [];
    for (const p of batch) {
      try {
        fs.renameSync(p.partial, p.final);
        done.push(p);
      } catch (err) {
        fs.rmSync(p.partial, { recursive: true, force: true });
        const code = (err as NodeJS.ErrnoException).code;
        const taken = code === 'ENOTEMPTY' || code === 'EEXIST';
        this.failures.push({
          id: p.id,
          final: p.final,
          taken,
          reason: taken ? 'another process imported it at the same time, from other source bytes; import again' : `could not publish it: ${String(err)}`,
        });
      }
    }
    for (const dir of new Set(done.map((p) => path.dirname(p.final)))) fsyncDir(dir);
    for (const p of done) this.hooks.published(p);
  }

  /** The sessions that could not be published so far (each said once). */
  takeFailures(): PublishFailure[] {
    return this.failures.splice(0);
  }

  /** Removes what was not published (an import that stops). */
  abandon(): void {
    for (const p of this.pending.splice(0)) fs.rmSync(p.partial, { recursive: true, force: true });
  }
}

/** fsyncs every file under `dir`, then the folders, deepest first. */
function syncTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) syncTree(full);
    else if (entry.isFile()) {
      const fd = fs.openSync(full, 'r');
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    }
  }
  fsyncDir(dir);
}
