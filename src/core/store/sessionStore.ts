import fs from 'node:fs';
import { folderGone, goneMeanwhile, SessionNotFoundError, SharedSessionError } from './errors';
import path from 'node:path';
import { statMtime, statSize } from '../fs/probe';
import { fsyncDir, writeFileAtomic } from '../fs/atomic';
import { isSessionId, newSessionId } from '../ids';
import { SessionIndex } from '../index/sessionIndex';
import { listSessionFolders } from '../format/layout';
import type { SessionRow } from '../index/indexRows';
import type { Logger } from '../logger';
import { readNewestPage, type MessagePage, type PageCursor } from '../wire/newestPage';
import { replay, type History } from '../wire/replay';
import { readWireLog, type ScanReport } from '../wire/wireReader';
import { WireLogWriter } from '../wire/wireLog';
import { isWorkspaceKey, workspaceKey as keyOf } from '../workspace/workspaceKey';
import { exportJsonl, exportMarkdown, imageFileName, promptImages, type ImageLink } from './export';
import { BlobStore } from '../format/blobStore';
import type { Message } from '@mariozechner/pi-ai';
import { sweepPartials } from './fork';
import { StoreLayout } from '../format/layout';
import {
  readState,
  StateFileError,
  storedPart,
  writeState,
  type RepoIdentity,
  type SessionKind,
  type SessionState,
  type StoredState,
} from '../format/sessionState';
import { logProblem, readSessionFolder, type SessionSummary } from '../format/summary';
import { SessionWriter } from './sessionWriter';
import { isStale, readLease, SessionBusyError, withStateLock } from './writerLease';
import { moveSessionFolder } from './moveSession';
import { expiredTrash, listTrash, removeTrashEntry, type TrashedSession } from './trash';
import { formatBytes } from '../bytes';
import { timeAgo } from '../timeAgo';
import { counted } from '../counted';
import type { LiveWriter, StateUpdateOptions, StoreContext } from './storeContext';
import { storedTitle } from '../format/titles';

export { TRASH_RETENTION_MS } from './trash';

export interface StoreOptions {
  readonly root: string;
  readonly wasmPath: string;
  readonly logger: Logger;
  /** The workspace this process works in: its index is loaded while opening, the others' when first needed. */
  readonly workspaceKey?: string;
  /** Follow other processes' index saves (the extension); one-shot CLI commands do not. */
  readonly watch?: boolean;
  readonly saveDelayMs?: number;
  /** See SessionIndexOptions.verifyAfterMs. */
  readonly verifyAfterMs?: number;
}

export interface CreateOptions {
  readonly workspaceDir: string;
  /** The repository the folder holds (asked of git only in a trusted workspace): a moved folder is found again by it. */
  readonly identity?: RepoIdentity;
  readonly title?: string;
  readonly kind?: SessionKind;
}

/**
 * Sessions on disk (docs/reference.md, Files on disk): create, open, continue, rename, archive, restore,
 * delete to trash and back, purge, export. state.json is changed only under the session's lock
 * (read, change, write atomically), so two processes changing one session lose neither change.
 * Every change is reported to the index.
 */
export class SessionStore implements StoreContext {
  readonly layout: StoreLayout;
  /** Writers open in this process, by session id: their summaries are current without a read. */
  private readonly writers = new Map<string, LiveWriter>();

  private constructor(
    readonly index: SessionIndex,
    layout: StoreLayout,
    readonly logger: Logger,
    /** sql.js's wasm, which the index uses (an import reads other tools' databases with it too). */
    readonly wasmPath: string,
  ) {
    this.layout = layout;
  }

  static async open(options: StoreOptions): Promise<SessionStore> {
    const layout = new StoreLayout(options.root);
    fs.mkdirSync(layout.sessionsDir, { recursive: true });
    const index = await SessionIndex.open({
      layout,
      wasmPath: options.wasmPath,
      logger: options.logger,
      workspaceKey: options.workspaceKey,
      watch: options.watch,
      saveDelayMs: options.saveDelayMs,
      verifyAfterMs: options.verifyAfterMs,
    });
    const store = new SessionStore(index, layout, options.logger, options.wasmPath);
    // Unfinished forks cost only disk: swept off the opening's path (a workspace folder may hold
    // thousands of sessions), the others' workspaces when a process opens there, or by the doctor.
    setTimeout(() => sweepPartials(store, options.workspaceKey), 1000).unref();
    return store;
  }

  async close(): Promise<void> {
    await this.index.close();
  }

  /** Creates a session folder with its state and the main agent's first log line. */
  async create(options: CreateOptions): Promise<SessionState> {
    const now = Date.now();
    const id = newSessionId(now);
    const workspaceKey = keyOf(options.workspaceDir);
    const dir = this.layout.sessionDir(workspaceKey, id);
    const state: StoredState = {
      v: 2,
      id,
      workspaceKey,
      workspaceDir: options.workspaceDir,
      ...(options.identity ? { identity: options.identity } : {}),
      createdAt: now,
      title: options.title ?? '',
      titleSource: options.title ? 'user' : 'auto',
      kind: options.kind ?? 'conversation',
      visibility: 'visible',
      archived: false,
      forkedFrom: null,
      queue: [],
      paused: null,
    };
    fs.mkdirSync(path.dirname(this.layout.agentLog(dir)), { recursive: true });
    const log = WireLogWriter.open(this.layout.agentLog(dir));
    await log.append(
      { t: 'agent', agentId: 'main', parentAgentId: null, purpose: 'main', sessionId: id, workspaceDir: options.workspaceDir },
      { durable: true },
    );
    await log.close();
    writeState(this.layout.stateFile(dir), state);
    fsyncDir(path.dirname(dir));
    return this.summaryAt(dir).state;
  }

  /**
   * Removes a session made moments ago that holds nothing of the user's (its first prompt never
   * ran, or it could not be opened): its folder and its index row, not to the trash. Its lease,
   * if it was opened, has been given back.
   */
  discard(id: string): void {
    try {
      fs.rmSync(this.locate(id), { recursive: true, force: true });
    } catch {
      return; // gone already
    }
    this.index.removeSession(id);
  }

  /** The folder of a session, found through the index or, failing that, on disk. */
  locate(id: string): string {
    if (!isSessionId(id)) throw new SessionNotFoundError(`"${id}" is not a session id (they look like ses_01J...)`);
    const row = this.index.get(id);
    // A damaged index row may name a workspace that cannot be a folder: look on disk then.
    if (row && isWorkspaceKey(row.workspaceKey)) {
      const dir = this.layout.sessionDir(row.workspaceKey, id);
      if (fs.existsSync(dir)) return dir;
    }
    const found = listSessionFolders(this.layout).find((f) => f.id === id);
    if (found) return found.dir;
    if (this.listTrash().some((t) => t.id === id))
      throw new SessionNotFoundError(`session ${id} was deleted: it is in the trash for 7 days (Undelete brings it back)`);
    if (row) {
      this.index.removeSession(id); // the folder went away behind our back: the tree drops it now
      throw new SessionNotFoundError(`session ${id} does not exist any more: its folder was removed from disk, not by Braid (it is not in the trash)`);
    }
    throw new SessionNotFoundError(`session ${id} does not exist (deleted sessions can be restored from the trash for 7 days)`);
  }

  /** A session as Braid shows it (state.json and its log's fold); a broken state.json is rebuilt from the logs and written back. */
  get(id: string): SessionState {
    return this.summaryAt(this.locate(id)).state;
  }

  /**
   * A session's summary: the summary of its writer when one is open in this process (memory; not
   * with `live: false`), else the index row while it is current (the log's size and state.json's
   * mtime are those it was built from: two stats, no reads), else the folder read and folded again.
   */
  summaryAt(dir: string, options: { live?: boolean } = {}): SessionSummary {
    const live = options.live === false ? undefined : this.writers.get(path.basename(dir));
    if (live) return live.summary; // a writer of this process folds every record it appends
    const row = this.currentRow(dir);
    if (row) return row;
    const stateFile = this.layout.stateFile(dir);
    const reading = readSessionFolder(dir, stateFile, this.layout.agentLog(dir));
    if (reading.stateProblem) return this.repairState(dir, reading);
    this.index.putSummary(reading.summary.state.id, reading.summary);
    return reading.summary;
  }

  /** The index row of a session folder while it is current: the log's size and state.json's mtime are those it was built from. */
  currentRow(dir: string): SessionSummary | undefined {
    const row = this.index.summaryOf(path.basename(dir));
    const current =
      row && row.stateMtime > 0 && row.stateMtime === statMtime(this.layout.stateFile(dir)) && row.logBytes === statSize(this.layout.agentLog(dir));
    return current ? row : undefined;
  }

  private readOrRepair(dir: string): StoredState {
    try {
      return readState(this.layout.stateFile(dir));
    } catch (err) {
      if (!(err instanceof StateFileError)) throw err;
      return this.repairState(dir).state;
    }
  }

  /**
   * Rebuilds a session's state.json from its logs and writes it back, keeping the broken file
   * beside it as state.json.broken-<ms>. Returns the session's summary.
   */
  repairState(dir: string, reading = readSessionFolder(dir)): SessionSummary {
    // A folder another process moved to the trash (or removed) meanwhile has no state to repair.
    if (!fs.existsSync(dir)) throw folderGone(dir);
    const stateFile = this.layout.stateFile(dir);
    try {
      if (fs.existsSync(stateFile)) fs.copyFileSync(stateFile, `${stateFile}.broken-${Date.now()}`);
      writeState(stateFile, reading.summary.state);
    } catch (err) {
      throw goneMeanwhile(err, dir);
    }
    this.logger.warn(
      `session ${path.basename(dir)}: ${reading.stateProblem ?? 'state.json unreadable'}; rebuilt it from the session's log (the damaged file is kept as state.json.broken-*)`,
    );
    return this.index.rereadFolder(dir) ?? reading.summary;
  }

  /**
   * The latest visible, non-archived session of a workspace that this machine can write (not one
   * pulled from a git remote: those are read-only here), by an index query on that workspace.
   */
  latest(workspaceDir: string): SessionRow | undefined {
    const workspaceKey = keyOf(workspaceDir);
    for (const row of this.index.list({ workspaceKey, shared: false, limit: 5 })) {
      if (fs.existsSync(this.layout.sessionDir(workspaceKey, row.id))) return row;
      this.index.removeSession(row.id);
    }
    return undefined;
  }

  /** Continue latest: the latest visible, non-archived session of the workspace this machine writes, if any. */
  continueLatest(workspaceDir: string): SessionState | undefined {
    const row = this.latest(workspaceDir);
    return row ? this.get(row.id) : undefined;
  }

  /**
   * Changes state.json under the session's lock (read, change, write atomically) and updates the
   * index row (from `summary` when the caller keeps the session's summary: a writer). Returns the
   * session as it is now. A lease holder passes its `fence`: it runs under the lock right before
   * the file is replaced, and the lease changes hands only under that same lock, so a writer that
   * lost its lease writes nothing.
   */
  async update(id: string, change: (state: StoredState) => StoredState, options: StateUpdateOptions = {}): Promise<SessionState> {
    const dir = this.locate(id);
    const stateFile = this.layout.stateFile(dir);
    const { next, mtime } = await withStateLock(this.layout, dir, () => {
      const updated = storedPart(change(this.readOrRepair(dir)));
      writeState(stateFile, updated, options.fence);
      return { next: updated, mtime: fs.statSync(stateFile).mtimeMs };
    });
    // A writer that keeps its session's summary up to date hands it over: one index update, no re-read.
    if (options.summary) {
      const summary = options.summary(next, mtime);
      this.index.putSummary(id, summary);
      return summary.state;
    }
    // A writer open in this process keeps the summary its session's reads come from: it takes the change.
    const live = this.writers.get(id);
    if (live) {
      const summary = live.stateChanged(next, mtime);
      this.index.putSummary(id, summary);
      return summary.state;
    }
    this.index.updateState(next, mtime, dir);
    return this.summaryAt(dir).state;
  }

  async rename(id: string, title: string): Promise<SessionState> {
    const clean = storedTitle(title);
    if (!clean) throw new Error('A session title cannot be empty.');
    return this.update(id, (s) => ({ ...s, title: clean, titleSource: 'user' }));
  }

  async archive(id: string): Promise<SessionState> {
    return this.update(id, (s) => ({ ...s, archived: true }));
  }

  async restore(id: string): Promise<SessionState> {
    return this.update(id, (s) => ({ ...s, archived: false }));
  }

  /**
   * Moves a session to the trash (restorable for 7 days). Refused (SessionBusyError) while another
   * process writes it: its writer would go on appending to a session the user deleted.
   */
  async delete(id: string): Promise<void> {
    const dir = this.locate(id);
    const target = this.layout.trashedSessionDir(path.basename(path.dirname(dir)), id);
    try {
      await moveSessionFolder(
        this.layout,
        dir,
        target,
        () => {
          // Never replace what the trash holds; two live copies of one id cannot happen by design.
          if (fs.existsSync(target)) throw new Error(`a copy of session ${id} is in the trash already; restore or purge it first`);
          // The time goes in before the move, so the folder arrives in the trash whole.
          fs.writeFileSync(this.layout.trashedAtFile(dir), `${Date.now()}\n`);
        },
        { evenShared: true }, // a pulled copy is deleted like any session: only this machine's copy goes
      );
    } catch (err) {
      if (err instanceof SessionBusyError)
        err.message = `session ${id} is being written by process ${err.holder.pid} on ${err.holder.host} (another window or the CLI); close it there before deleting it`;
      throw err;
    }
    // Tell listeners now: the tree must drop the row at once, not when another process saves.
    this.index.removeSession(id);
  }

  /** Sessions in the trash, newest deletion first. */
  listTrash(): TrashedSession[] {
    return listTrash(this.layout);
  }

  /** Brings a deleted session back from the trash. */
  async undelete(id: string): Promise<SessionState> {
    const entry = this.listTrash().find((t) => t.id === id);
    if (!entry) throw new SessionNotFoundError(`session ${id} is not in the trash`);
    const from = this.layout.trashedSessionDir(entry.workspaceKey, id);
    const to = this.layout.sessionDir(entry.workspaceKey, id);
    if (fs.existsSync(to)) throw new Error(`session ${id} exists already; it was restored before`);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    try {
      fs.renameSync(from, to);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new SessionNotFoundError(`session ${id} was restored by another process just now`);
      throw err;
    }
    fs.rmSync(this.layout.trashedAtFile(to), { force: true });
    fsyncDir(path.dirname(to));
    this.index.rereadFolder(to);
    return this.get(id);
  }

  /**
   * Deletes for good what has been in the trash 7 days or longer (deleted sessions, and partial
   * folders the doctor moved there), saying each in the log. Returns the ids (a partial: its folder's name).
   */
  purgeTrash(now = Date.now()): string[] {
    const expired = expiredTrash(this.layout, now);
    for (const entry of expired) {
      removeTrashEntry(entry);
      const what = entry.kind === 'session' ? `session ${entry.id} (${entry.workspaceKey})` : `the partial folder ${entry.id}`;
      this.logger.info(`purged ${what} from the trash, deleted ${timeAgo(entry.trashedAt, now)}: ${formatBytes(entry.bytes)}`);
    }
    if (expired.length) {
      const bytes = expired.reduce((sum, e) => sum + e.bytes, 0);
      this.logger.info(`purged ${counted(expired.length, 'entry', 'entries')} deleted more than 7 days ago from the trash: ${formatBytes(bytes)}`);
    }
    return expired.map((e) => e.id);
  }

  /** The whole effective history of a session's main agent. */
  history(id: string): History {
    const { records, report } = readWireLog(this.layout.agentLog(this.locate(id)));
    this.noteLogProblems(id, report);
    return replay(records);
  }

  /** Says in the log what a read of a session's main log had to skip (damaged lines), if anything. */
  private noteLogProblems(id: string, report: ScanReport): void {
    const problem = logProblem(report, 'its main log (agents/main/wire.jsonl)');
    if (problem) this.logger.warn(`session ${id}: ${problem}`);
  }

  /** The newest page of messages (80 by default), read from the end of the log. */
  newestPage(id: string, limit?: number, before?: PageCursor): MessagePage {
    return readNewestPage(this.layout.agentLog(this.locate(id)), limit, before);
  }

  /**
   * Opens the session for appending (taking its writer lease, over a stale one too): the only way
   * records get into its logs. SessionBusyError while another process holds a fresh lease.
   */
  /** Called by a SessionWriter as it opens and closes, so reads of its session come from its memory. */
  trackWriter(writer: LiveWriter, open: boolean): void {
    if (open) this.writers.set(writer.id, writer);
    else if (this.writers.get(writer.id) === writer) this.writers.delete(writer.id);
  }

  async openWriter(id: string): Promise<SessionWriter> {
    return SessionWriter.open(this, this.locate(id));
  }

  /**
   * Crash recovery at start (docs/architecture.md, Fork, rewind, the lease and recovery): sessions of the workspace whose writer died (a
   * writer.lock left behind and stale, or the status left `running` with no live writer) get
   * their open turn ended `interrupted`, with a note, and status `interrupted`. A crash can land
   * between a turn's `turn_begin` and its state write, so the log decides, not the status.
   * Returns the ids of the sessions it changed.
   */
  async recoverInterrupted(workspaceDir: string): Promise<string[]> {
    const recovered: string[] = [];
    for (const folder of listSessionFolders(this.layout, keyOf(workspaceDir))) {
      // Start-up path: only sessions with a lease file left behind, or that the index says are
      // running, are read; the others cost one failed open of writer.lock.
      const lease = readLease(this.layout.writerLock(folder.dir));
      if (lease ? !isStale(lease) : this.index.get(folder.id)?.status !== 'running') continue;
      try {
        if (!lease && this.summaryAt(folder.dir).state.status !== 'running') continue;
        if (await this.recoverSession(folder.dir)) recovered.push(folder.id);
      } catch (err) {
        // A state.json that cannot be read is the doctor's; a writer that came meanwhile recovers the session itself.
        // A pulled session's open turn is the pushing machine's (read-only here): it stays as pulled.
        if (err instanceof StateFileError || err instanceof SessionBusyError || err instanceof SharedSessionError) continue;
        throw err;
      }
    }
    if (recovered.length) this.logger.info(`marked ${counted(recovered.length, 'session')} interrupted after a crash`);
    return recovered;
  }

  /**
   * Takes over the lease of a session whose writer is gone and runs crash recovery (see
   * SessionWriter.recover), then lets go. Returns whether a turn was ended `interrupted`.
   */
  async recoverSession(dir: string): Promise<boolean> {
    const writer = await SessionWriter.open(this, dir);
    try {
      return await writer.recover();
    } finally {
      await writer.close();
    }
  }

  /**
   * Writes the Markdown export to `file` and the prompts' images beside it, in `<name>-images/`
   * named by hash; returns the image files written.
   */
  exportWithImages(id: string, file: string): string[] {
    const dir = this.locate(id);
    const history = this.history(id);
    const blobs = new BlobStore(this.layout.blobsDir(dir));
    const folderName = `${path.basename(file, path.extname(file))}-images`;
    const folder = path.join(path.dirname(file), folderName);
    const written: string[] = [];
    for (const { message } of history.messages) {
      for (const image of promptImages(message as Message)) {
        const target = path.join(folder, imageFileName(image.blob, image.mimeType));
        if (written.includes(target)) continue;
        fs.mkdirSync(folder, { recursive: true });
        fs.writeFileSync(target, blobs.get(image.blob));
        written.push(target);
      }
    }
    const link: ImageLink = (blob, mimeType) => `${encodeURIComponent(folderName)}/${imageFileName(blob, mimeType)}`;
    writeFileAtomic(file, exportMarkdown(this.summaryAt(dir).state, history, link));
    return written;
  }

  /** Whether the session's prompts carried images (its Markdown export then has files beside it). */
  hasImages(id: string): boolean {
    return this.history(id).messages.some(({ message }) => promptImages(message as Message).length > 0);
  }

  export(id: string, format: 'md' | 'jsonl'): string {
    const dir = this.locate(id);
    if (format === 'md') return exportMarkdown(this.summaryAt(dir).state, this.history(id));
    const { text, report } = exportJsonl(this.layout.agentLog(dir));
    this.noteLogProblems(id, report);
    return text;
  }
}
