import fs from 'node:fs';
import { statMtime, statSize } from '../fs/probe';
import { LockTimeoutError } from '../fs/fileLock';
import type { Logger } from '../logger';
import type { StoreLayout } from '../format/layout';
import { readState } from '../format/sessionState';
import { summarize, type SessionSummary } from '../format/summary';
import { keepFold } from '../format/foldFile';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import { IndexLockLostError, type IndexFile } from './indexFile';
import { readFolderSummary } from './indexFolders';
import * as rows from './indexRows';
import type { Database } from './sqlite';
import type { PreparedDocument } from './turnSearch';
import { errorMessage } from '../errors';

/**
 * A change not written yet: a session's new summary (with its turns' search documents when they
 * were made already, from the log its fold was folded from), or its removal (with the workspace it
 * was in).
 */
export type PendingChange = { summary: SessionSummary; documents?: readonly PreparedDocument[] } | { removedFrom: string };

/** What the synchronisation asks of the index it serves. */
export interface SyncHooks {
  /** Runs `work` on the file; damage SQLite reports rebuilds it from the folders, then `work` runs again. */
  withDamageRecovery<T>(work: () => T): T;
  /** Another process changed the file. */
  changedElsewhere(): void;
}

export interface SyncOptions {
  readonly layout: StoreLayout;
  /** The workspace whose index.sqlite this is. */
  readonly workspaceKey: string;
  readonly logger: Logger;
  /** Wait this long after a change before writing it, to coalesce bursts. */
  readonly saveDelayMs?: number;
}

/**
 * This process's changes to a workspace's index.sqlite, which several processes use in place. A
 * change is remembered as pending and written soon after (`saveDelayMs`), in one transaction with
 * the others pending: each is first brought up to date with disk, since another process may have
 * changed the same session's state.json since. A query writes what is pending first, so this
 * process reads its own changes. A watcher tells when another process changed the file.
 */
export class IndexSync {
  private readonly pending = new Map<string, PendingChange>();
  private saveTimer: NodeJS.Timeout | undefined;
  private watcher: fs.FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private closedValue = false;
  /** The file's change counter after this process's last look: another value means another process wrote. */
  private knownCounter = -1;
  /** Set while pending changes must wait (a build of the file is under way). */
  private held = false;

  constructor(
    private readonly file: IndexFile,
    private readonly options: SyncOptions,
    private readonly hooks: SyncHooks,
  ) {}

  /** Whether `close` ran: nothing is written or watched any more. */
  get closed(): boolean {
    return this.closedValue;
  }

  /** Remembers a change to a session's row; the next write carries it. */
  put(id: string, change: PendingChange): void {
    this.pending.set(id, change);
  }

  /** A session's pending change: its new summary, null when its removal is pending, undefined when nothing is. */
  pendingSummary(id: string): SessionSummary | null | undefined {
    const change = this.pending.get(id);
    if (!change) return undefined;
    return 'summary' in change ? change.summary : null;
  }

  /** Holds pending changes back (true) while the file is rebuilt, or lets them go again (false). */
  hold(held: boolean): void {
    this.held = held;
  }

  /**
   * Runs a query on the file, after writing what is pending (a failed write is logged and stays
   * pending; the query then sees the file without it).
   */
  read<T>(query: (db: Database) => T): T {
    if (this.pending.size > 0 && !this.held) {
      try {
        this.writePending();
      } catch (err) {
        this.options.logger.warn(`writing the session index failed: ${errorMessage(err)}; will retry`);
        this.scheduleSave();
      }
    }
    return this.file.use(query);
  }

  /** Writes soon (after `saveDelayMs`, 100 ms by default), once for a burst of changes. */
  scheduleSave(): void {
    if (this.closedValue || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.flush().catch((err: unknown) => this.options.logger.error(`writing the session index failed: ${errorMessage(err)}`));
    }, this.options.saveDelayMs ?? 100);
  }

  /** Writes pending changes now. A lock another process keeps (or took over) is logged and retried later; other failures throw. */
  async flush(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    if (this.pending.size === 0) return;
    if (this.held) return this.scheduleSave(); // the build that holds them installs its file first
    try {
      this.writePending();
    } catch (err) {
      if (!(err instanceof LockTimeoutError) && !(err instanceof IndexLockLostError)) throw err;
      this.options.logger.warn(`could not write the session index: ${err.message}; will retry`);
      this.scheduleSave();
    }
  }

  /** Writes every pending change in one transaction; those written are no longer pending. */
  private writePending(): void {
    const applying = new Map(this.pending);
    this.hooks.withDamageRecovery(() =>
      this.file.use((db) => {
        const written = [...applying].map(([id, change]) => [id, this.latestFromDisk(id, change)] as const);
        db.run('BEGIN');
        try {
          for (const [id, summary] of written) writeRow(db, id, summary, this.options.layout, documentsFor(summary, applying.get(id)!));
          db.run('COMMIT');
        } catch (err) {
          tryRollback(db);
          throw err;
        }
        this.knownCounter = this.file.changeCounterOnDisk();
        for (const [, summary] of written) if (summary) keepFold(this.dirOf(summary), summary.fold, summary.logBytes);
      }),
    );
    for (const [id, change] of applying) if (this.pending.get(id) === change) this.pending.delete(id);
  }

  /**
   * Brings a pending change up to date with disk before it is written: another process may have
   * changed the same session's state.json since (both write state under the session's lock, so the
   * file has every change; the last write must carry it), or removed or restored it. Null: the
   * session is gone.
   */
  private latestFromDisk(id: string, change: PendingChange): SessionSummary | null {
    const { layout, logger } = this.options;
    if ('removedFrom' in change) {
      if (!isWorkspaceKey(change.removedFrom)) return null;
      const dir = layout.sessionDir(change.removedFrom, id);
      return fs.existsSync(dir) ? (readFolderSummary(dir, logger) ?? null) : null;
    }
    return this.withLatestState(change.summary);
  }

  private dirOf(summary: SessionSummary): string {
    return this.options.layout.sessionDir(summary.state.workspaceKey, summary.state.id);
  }

  /** `indexed` with the session's state as disk has it now (its folder re-read when its log grew). */
  private withLatestState(indexed: SessionSummary): SessionSummary | null {
    const { layout, logger } = this.options;
    const dir = layout.sessionDir(indexed.state.workspaceKey, indexed.state.id);
    const stateFile = layout.stateFile(dir);
    const mtime = statMtime(stateFile);
    if (mtime === undefined && !fs.existsSync(dir)) return null;
    // Another process appended to the log: counts and previews must be read again.
    if (statSize(layout.agentLog(dir)) !== indexed.logBytes) return readFolderSummary(dir, logger) ?? (fs.existsSync(dir) ? indexed : null);
    // state.json is read again whatever its mtime says (two writes within one clock tick share
    // one): it has every process's changes, since all write it under the session's lock.
    try {
      return summarize(readState(stateFile), indexed.fold, indexed.state.agents, indexed.logBytes, mtime ?? 0);
    } catch {
      return indexed;
    }
  }

  /** Tells when another process changed the file: on file events in the workspace's folder, and by a 1 s poll. */
  watch(): void {
    const { layout, logger, workspaceKey } = this.options;
    const folder = layout.workspaceDir(workspaceKey);
    this.knownCounter = this.file.changeCounterOnDisk();
    const check = () => {
      if (this.closedValue) return;
      const counter = this.file.changeCounterOnDisk();
      if (counter === this.knownCounter) return;
      this.knownCounter = counter;
      this.hooks.changedElsewhere();
    };
    try {
      fs.mkdirSync(folder, { recursive: true });
      this.watcher = fs.watch(folder, (_event, name) => {
        if (name === 'index.sqlite') setTimeout(check, 20);
      });
      this.watcher.on('error', () => undefined);
    } catch (err) {
      logger.warn(`cannot watch ${folder} (${errorMessage(err)}); polling instead`);
    }
    // A poll as well: file watching is unreliable on network and some container file systems.
    this.pollTimer = setInterval(check, 1000);
    this.pollTimer.unref();
  }

  /** Writes what is pending, stops watching and closes the file. */
  async close(): Promise<void> {
    if (this.closedValue) return;
    this.held = false;
    await this.flush();
    this.closedValue = true;
    this.watcher?.close();
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.file.close();
  }
}

/**
 * Writes a session's row into `db` (its turns not indexed yet from `documents`, else read from its
 * main log under `layout`), or deletes it (null).
 */
export function writeRow(db: Database, id: string, summary: SessionSummary | null, layout: StoreLayout, documents?: readonly PreparedDocument[]): void {
  if (summary) rows.upsertSummary(db, summary, layout.agentLog(layout.sessionDir(summary.state.workspaceKey, summary.state.id)), documents);
  else rows.deleteSessionRow(db, id);
}

/** A change's documents, while the summary written is of the fold they were made with (not one read again from a log that grew). */
function documentsFor(summary: SessionSummary | null, change: PendingChange): readonly PreparedDocument[] | undefined {
  return 'summary' in change && summary?.fold === change.summary.fold ? change.documents : undefined;
}

function tryRollback(db: Database): void {
  try {
    db.run('ROLLBACK');
  } catch {
    // no transaction left to roll back (SQLite ended it on the error)
  }
}
