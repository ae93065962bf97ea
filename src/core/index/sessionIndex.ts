import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger';
import type { SessionState } from '../format/sessionState';
import { listSessionFolders, type StoreLayout } from '../format/layout';
import type { StoredState } from '../format/sessionState';
import type { SessionSummary } from '../format/summary';
import { safeReaddir } from '../fs/probe';
import { isSessionId } from '../ids';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import { readFolderSummary, type FolderDrift } from './indexFolders';
import type { ListFilter, RowKey, SearchFilter, SessionRow, WorkspaceRow } from './indexRows';
import type { FileTurn, PreparedDocument, SearchHit, TurnHit } from './turnSearch';
import { loadSqlJs, type SqlJsStatic } from './sqlite';
import { mergeUsageReports, zeroFigures, type SessionUsage, type UsageOptions, type UsageReport } from './usageRows';
import type { WholeFileCheck } from './indexFile';
import { WorkspaceIndex, type IndexStatus } from './workspaceIndex';
import { errorMessage } from '../errors';

export type { FolderDrift } from './indexFolders';
export type { IndexStatus } from './workspaceIndex';

export interface SessionIndexOptions {
  readonly layout: StoreLayout;
  readonly wasmPath: string;
  readonly logger: Logger;
  /** The workspace this process works in: its index is loaded while opening (the others when first asked for). */
  readonly workspaceKey?: string;
  /** Wait this long after a change before saving, to coalesce bursts. */
  readonly saveDelayMs?: number;
  /** Follow other processes' saves (off for one-shot CLI commands). */
  readonly watch?: boolean;
  /**
   * Run the checks that read a whole index file (SQLite's quick_check, values no row may hold)
   * this long after it loads, off the opening's path; a long-lived process (the extension) sets
   * it. One-shot commands leave them to `braid list --all` and `braid doctor`.
   */
  readonly verifyAfterMs?: number;
}

/** A workspace index.sqlite that fails its checks on disk, and what is wrong. */
export interface BrokenIndexFile {
  readonly workspaceKey: string;
  readonly problem: string;
}

/**
 * The sql.js read model of the store (docs/reference.md, The index): one index per workspace, in
 * the workspace's folder, each loaded when first needed. Opening, a turn's update and a listing
 * of one workspace touch that workspace's index only, so they cost the same however many
 * sessions other workspaces hold; a question about every workspace (all sessions, search
 * everywhere, every workspace's usage) loads every workspace's index.
 */
export class SessionIndex {
  private readonly events = new EventEmitter();
  private readonly shards = new Map<string, WorkspaceIndex>();
  private closed = false;
  private watcher: fs.FSWatcher | undefined;

  private constructor(
    private readonly options: SessionIndexOptions,
    private readonly SQL: SqlJsStatic,
  ) {}

  /** Loads sql.js and the index of `options.workspaceKey` (rebuilt from its folders when missing, corrupt or outdated). */
  static async open(options: SessionIndexOptions): Promise<SessionIndex> {
    const index = new SessionIndex(options, await loadSqlJs(options.wasmPath));
    const key = options.workspaceKey;
    // The workspace's index is opened now when it has a folder; else on its first use (a command
    // that only reads a workspace without sessions then makes neither).
    if (key && isWorkspaceKey(key) && index.holdsWorkspace(key)) index.shards.set(key, await WorkspaceIndex.open(index.shardOptions(key)));
    if (options.watch) index.watchNewWorkspaces();
    return index;
  }

  /**
   * Tells listeners when another process makes a workspace folder this one has not indexed (a
   * view of every workspace then shows it); each loaded index follows its own file.
   */
  private watchNewWorkspaces(): void {
    try {
      this.watcher = fs.watch(this.options.layout.sessionsDir, (_event, name) => {
        if (name && isWorkspaceKey(name) && !this.shards.has(name)) this.events.emit('change');
      });
      this.watcher.on('error', () => undefined);
    } catch (err) {
      this.options.logger.warn(`cannot watch ${this.options.layout.sessionsDir} for new workspaces (${errorMessage(err)})`);
    }
  }

  /** `ready` when every loaded index is; `preparing` while one is rebuilt; `degraded` when one serves without saving. */
  get status(): IndexStatus {
    const all = [...this.shards.values()].map((s) => s.status);
    for (const status of ['degraded', 'preparing', 'uninitialized'] as const) if (all.includes(status)) return status;
    return 'ready';
  }

  /** Called after the index changed, by this process or (with `watch`) another. */
  onDidChange(listener: () => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  private shardOptions(workspaceKey: string) {
    const { layout, logger, saveDelayMs, watch, verifyAfterMs } = this.options;
    return { layout, logger, saveDelayMs, watch, verifyAfterMs, workspaceKey, SQL: this.SQL, changed: () => this.events.emit('change') };
  }

  /** A workspace's index, loaded (or rebuilt from its folders) now when this process has not yet. */
  private shard(workspaceKey: string): WorkspaceIndex {
    let shard = this.shards.get(workspaceKey);
    if (!shard) {
      if (this.closed) throw new Error('the session index is closed');
      shard = WorkspaceIndex.load(this.shardOptions(workspaceKey));
      this.shards.set(workspaceKey, shard);
    }
    return shard;
  }

  /** The workspaces that have a folder in the store, and any this process indexed. */
  private workspaceKeys(): string[] {
    const keys = new Set(safeReaddir(this.options.layout.sessionsDir).filter(isWorkspaceKey));
    for (const key of this.shards.keys()) keys.add(key);
    return [...keys];
  }

  /** Every workspace's index, loaded. */
  private everyShard(): WorkspaceIndex[] {
    return this.workspaceKeys().map((key) => this.shard(key));
  }

  /** The index holding a session, found by its folder (a stat per workspace), or undefined. */
  private shardOfId(id: string): WorkspaceIndex | undefined {
    for (const shard of this.shards.values()) if (shard.get(id)) return shard;
    if (!isSessionId(id)) return undefined;
    const sessions = this.options.layout.sessionsDir;
    const key = safeReaddir(sessions).find((k) => isWorkspaceKey(k) && !this.shards.has(k) && fs.existsSync(path.join(sessions, k, id)));
    return key ? this.shard(key) : undefined;
  }

  /**
   * Checks every workspace's index.sqlite as it is on disk now (another process, or damage after
   * this one loaded it): what is wrong with each that fails. A workspace without sessions needs none.
   */
  checkFiles(): BrokenIndexFile[] {
    const broken: BrokenIndexFile[] = [];
    for (const key of this.workspaceKeys()) {
      if (!fs.existsSync(this.options.layout.indexFile(key)) && listSessionFolders(this.options.layout, key).length === 0) continue;
      const problem = this.shard(key).checkFile();
      if (problem) broken.push({ workspaceKey: key, problem });
    }
    return broken;
  }

  /** Rebuilds a workspace's index from its session folders and rewrites its file, a damaged one kept as index.sqlite.corrupt. */
  repairFile(workspaceKey: string): Promise<void> {
    return this.shard(workspaceKey).repairFile();
  }

  /** The whole-file checks of every loaded index (`every`: of every workspace's, loaded first; see WorkspaceIndex.verify); whether one found damage. */
  verify(check: WholeFileCheck = 'pages', scope: 'loaded' | 'every' = 'loaded'): boolean {
    const shards = scope === 'every' ? this.everyShard() : [...this.shards.values()];
    return shards.map((s) => s.verify(check)).includes(true);
  }

  /**
   * Rebuilds every workspace's rows from the session folders and saves. Progress is called with
   * (done, total) sessions. Only the indexes this process had loaded stay in memory afterwards.
   */
  async rebuildFromFolders(progress?: (done: number, total: number) => void): Promise<void> {
    const keys = this.workspaceKeys();
    const sizes = keys.map((key) => listSessionFolders(this.options.layout, key).length);
    const total = sizes.reduce((a, b) => a + b, 0);
    let before = 0;
    for (const [i, key] of keys.entries()) {
      const step = progress && ((done: number) => progress(before + done, total));
      const loaded = this.shards.get(key);
      if (loaded) await loaded.rebuildFromFolders(step);
      else this.shards.set(key, await WorkspaceIndex.rebuilt(this.shardOptions(key), step)); // its folders read once
      if (!loaded && key !== this.options.workspaceKey) await this.unload(key);
      before += sizes[i]!;
    }
    progress?.(total, total);
  }

  /** Saves and frees a workspace's index; the next question about that workspace loads it again. */
  private async unload(workspaceKey: string): Promise<void> {
    const shard = this.shards.get(workspaceKey);
    this.shards.delete(workspaceKey);
    await shard?.close();
  }

  /** How a workspace's rows (every workspace's when absent) differ from its folders, changing nothing. */
  driftFromFolders(workspaceKey?: string): FolderDrift {
    const drift: FolderDrift = { added: 0, updated: 0, removed: 0 };
    for (const shard of workspaceKey ? [this.shard(workspaceKey)] : this.everyShard()) {
      const d = shard.driftFromFolders();
      drift.added += d.added;
      drift.updated += d.updated;
      drift.removed += d.removed;
    }
    return drift;
  }

  /** Brings a workspace's rows (every workspace's when absent) in line with its folders. Returns what changed. */
  async catchUpWithFolders(workspaceKey?: string): Promise<FolderDrift> {
    const drift: FolderDrift = { added: 0, updated: 0, removed: 0 };
    for (const shard of workspaceKey ? [this.shard(workspaceKey)] : this.everyShard()) {
      const d = await shard.catchUpWithFolders();
      drift.added += d.added;
      drift.updated += d.updated;
      drift.removed += d.removed;
    }
    return drift;
  }

  /** Records a session's current summary (and its turns' search documents, when made already) and tells listeners; saved soon after. */
  putSummary(id: string, summary: SessionSummary, documents?: readonly PreparedDocument[]): void {
    this.shard(summary.state.workspaceKey).putSummary(id, summary, documents);
    this.events.emit('change');
  }

  /**
   * Loads a workspace's index now (built from its folders when it has none yet). An import about
   * to publish sessions there loads it first, so that building it does not read them again.
   */
  prepareWorkspace(workspaceKey: string): void {
    this.shard(workspaceKey);
  }

  /** Removes a session's row (its folder is gone) from every loaded index that has it, and tells listeners. */
  removeSession(id: string): void {
    for (const shard of this.shards.values()) if (shard.get(id)) shard.removeSession(id);
    this.events.emit('change');
  }

  /** Replaces only the state of a session (a rename, an archive): no log scan when the index knows it. */
  updateState(state: StoredState, stateMtime: number, dir: string): void {
    this.shard(state.workspaceKey).updateState(state, stateMtime, dir);
    this.events.emit('change');
  }

  /** Re-reads one session folder into the index; undefined (and the index unchanged) when it cannot be read. */
  rereadFolder(dir: string): SessionSummary | undefined {
    const summary = readFolderSummary(dir, this.options.logger);
    if (summary) this.putSummary(summary.state.id, summary);
    return summary;
  }

  /**
   * Whether the store has anything of a workspace: its folder, or its index loaded here. A
   * command that only reads asks first, so that it does not make a workspace's folder and index
   * where there are no sessions to list.
   */
  holdsWorkspace(workspaceKey: string): boolean {
    return this.shards.has(workspaceKey) || fs.existsSync(this.options.layout.workspaceDir(workspaceKey));
  }

  /**
   * Sessions matching `filter`, most recently updated first. Across workspaces, each workspace
   * gives the keys of its candidates, the page is picked from all of them, and only the page's
   * rows are read.
   */
  list(filter: ListFilter): SessionRow[] {
    if (filter.workspaceKey) return this.shard(filter.workspaceKey).list(filter);
    const { limit, offset = 0 } = filter;
    const wanted = limit === undefined || limit < 0 ? undefined : offset + limit;
    const shards = this.everyShard();
    const keys = shards.flatMap((s) => s.listKeys({ ...filter, limit: wanted, offset: 0 }).map((key) => ({ ...key, shard: s })));
    return rowsInOrder(newestFirst(keys).slice(offset, wanted));
  }

  /** How many sessions match `filter`. */
  count(filter: ListFilter): number {
    if (filter.workspaceKey) return this.shard(filter.workspaceKey).count(filter);
    return this.everyShard().reduce((n, s) => n + s.count(filter), 0);
  }

  /** A session's row, if the index has it. */
  get(id: string): SessionRow | undefined {
    return this.shardOfId(id)?.get(id);
  }

  /** What the index holds about a session, as a summary. */
  summaryOf(id: string): SessionSummary | undefined {
    return this.shardOfId(id)?.summaryOf(id);
  }

  /** A session's state as the index keeps it, without reading its log's fold. */
  stateOf(id: string): SessionState | undefined {
    return this.shardOfId(id)?.stateOf(id);
  }

  /**
   * Session ids that begin with `prefix` (every workspace, archived and hidden ones too), in
   * order, at most `limit`: read from the folder names, which loads no index.
   */
  idsStartingWith(prefix: string, limit: number): string[] {
    const ids = listSessionFolders(this.options.layout)
      .map((f) => f.id)
      .filter((id) => id.startsWith(prefix));
    return [...new Set(ids)].sort().slice(0, limit);
  }

  /** Sessions whose title or turns say every word of `text` (full-text search), within `filter`, most recently updated first. */
  search(text: string, filter: SearchFilter): SessionRow[] {
    if (filter.workspaceKey) return this.shard(filter.workspaceKey).search(text, filter);
    return rowsInOrder(this.hitsOfEveryShard(text, filter));
  }

  /** What `search` finds, each session with its matching turns and its row. */
  searchTurns(text: string, filter: SearchFilter): Array<{ row: SessionRow; turns: TurnHit[] }> {
    const hits = this.hitsOfEveryShard(text, filter);
    const rows = new Map(rowsInOrder(hits).map((r) => [r.id, r]));
    return hits.flatMap((hit) => {
      const row = rows.get(hit.id);
      return row ? [{ row, turns: hit.turns }] : [];
    });
  }

  /** The turns of a workspace's sessions that changed or committed the file at `absolutePath`. */
  turnsOfFile(workspaceKey: string, absolutePath: string): FileTurn[] {
    return this.shard(workspaceKey).turnsOfFile(absolutePath);
  }

  /** The hits of the filter's workspace, or of every workspace, each with its index. */
  private hitsOfEveryShard(text: string, filter: SearchFilter): Array<SearchHit & { shard: WorkspaceIndex }> {
    const shards = filter.workspaceKey ? [this.shard(filter.workspaceKey)] : this.everyShard();
    const hits = shards.flatMap((s) => s.searchHits(text, filter).map((hit) => ({ ...hit, shard: s })));
    return newestFirst(hits).slice(0, filter.limit ?? 50);
  }

  /** The titles of the sessions forked from `sourceId` in its workspace (archived and hidden ones too). */
  forkTitles(workspaceKey: string, sourceId: string): string[] {
    return this.shard(workspaceKey).forkTitles(workspaceKey, sourceId);
  }

  /** The workspaces that have sessions (with how many), most recently updated first. */
  workspaces(): WorkspaceRow[] {
    return this.everyShard()
      .flatMap((s) => s.workspaces())
      .sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /** Usage of a workspace (every workspace when absent), each model call counted once. */
  usageReport(workspaceKey?: string, options?: UsageOptions): UsageReport {
    if (workspaceKey) return this.shard(workspaceKey).usageReport(workspaceKey, options);
    return mergeUsageReports(this.everyShard().map((s) => s.usageReport(s.workspaceKey, options)));
  }

  /** A session's own calls, and those its log inherited from the session it was forked from. */
  sessionUsage(id: string): SessionUsage {
    return this.shardOfId(id)?.sessionUsage(id) ?? { own: zeroFigures(), inherited: zeroFigures(), history: zeroFigures() };
  }

  /** Saves every loaded index's pending changes now. */
  async flush(): Promise<void> {
    await Promise.all([...this.shards.values()].map((s) => s.flush()));
  }

  /** Saves what is pending, stops watching and frees every database. */
  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    await Promise.all([...this.shards.values()].map((s) => s.close()));
    this.events.removeAllListeners();
  }
}

/** Rows (or their keys) most recently updated first (ties by id, newest first), as each index orders its own. */
function newestFirst<T extends RowKey>(rows: T[]): T[] {
  return rows.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** The rows of the keys picked, read from their workspaces' indexes, in the keys' order. */
function rowsInOrder(keys: ReadonlyArray<RowKey & { shard: WorkspaceIndex }>): SessionRow[] {
  const byShard = new Map<WorkspaceIndex, string[]>();
  for (const key of keys) byShard.set(key.shard, [...(byShard.get(key.shard) ?? []), key.id]);
  const rows = new Map<string, SessionRow>();
  for (const [shard, ids] of byShard) for (const row of shard.rowsOf(ids)) rows.set(row.id, row);
  return keys.flatMap((key) => rows.get(key.id) ?? []);
}
