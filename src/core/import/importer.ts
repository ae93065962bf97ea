import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeTime } from 'ulid';
import { sha256Hex } from '../hash';
import { stateText, type StoredState } from '../format/sessionState';
import { Publisher, type PublishFailure } from './publisher';
import { listSessionFolders } from '../format/layout';
import { readSessionSummary } from '../format/summary';
import { workspaceKey } from '../workspace/workspaceKey';
import { autoTitle } from '../format/titles';
import { scanWireLog } from '../wire/wireReader';
import type { ImportedRecord, MessageRecord, NewRecord, WireRecord } from '../wire/records';
import { WriterLease } from '../store/writerLease';
import type { SessionStore } from '../store/sessionStore';
import { ImportLog, SourceChangedError, type ImportedSoFar } from './importLog';
import { digestPrefix } from './sourceLines';
import { FileReport, type ScannedSession, type SourceFormat, type SourceTool } from './source';
import { claudeCode } from './claudeCode';
import { codex } from './codex';
import { pi } from './pi';
import { opencode } from './opencode';

/** The importer's version, written in each `imported` record. */
export const IMPORTER_VERSION = 1;

export const FORMATS: readonly SourceFormat[] = [claudeCode, codex, pi, opencode];

export type ImportAction = 'imported' | 'appended' | 'unchanged' | 'skipped' | 'failed';

/** What happened to one source session (or one file that held none). */
export interface ImportOutcome {
  readonly tool: SourceTool;
  readonly file: string;
  readonly action: ImportAction;
  /** With --dry-run: what would happen (nothing was written). */
  readonly dryRun: boolean;
  readonly sourceId?: string;
  readonly sessionId?: string;
  readonly workspaceDir?: string;
  readonly title?: string | null;
  readonly turns?: number;
  /** Messages written now (all of them for a new session, the new ones for an append). */
  readonly messages?: number;
  /** Forks made of the source's other branches. */
  readonly forks?: readonly string[];
  /** Why the session or parts of the file were left out. */
  readonly reason?: string;
  readonly skippedLines?: string;
  readonly bytes: number;
}

export interface ImportOptions {
  readonly from: SourceTool | 'auto';
  /** Files or folders to import; none: each tool's default folders. */
  readonly paths: readonly string[];
  readonly dryRun: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly home?: string;
  readonly signal?: AbortSignal;
  /** Called after each source session, with the counts so far. */
  readonly onProgress?: (done: number, total: number, outcome: ImportOutcome) => void;
}

/** A source's files found, per tool (the picker's counts; what an import with no paths reads). */
export function findSources(options: Pick<ImportOptions, 'from' | 'paths' | 'env' | 'home'>): Array<{ format: SourceFormat; files: string[] }> {
  const env = options.env ?? process.env;
  const home = options.home ?? os.homedir();
  const formats = options.from === 'auto' ? FORMATS : FORMATS.filter((f) => f.tool === options.from);
  const sniffing = options.from === 'auto' && options.paths.length > 0;
  const claimed = new Set<string>();
  return formats
    .map((format) => {
      const roots = options.paths.length ? options.paths.map((p) => path.resolve(p)) : format.defaultRoots(env, home);
      let files = [...new Set(roots.flatMap((root) => format.findFiles(root)))];
      // Folders given with --from auto may hold any tool's files: each file goes to the tool whose records it starts with.
      if (sniffing) files = files.filter((f) => !claimed.has(f) && sniff(f) === format.tool);
      for (const f of files) claimed.add(f);
      return { format, files };
    })
    .filter((s) => s.files.length > 0);
}

/** The tool whose records a file starts with (its first line), or null. */
export function sniff(file: string): SourceTool | null {
  if (file.endsWith('.json')) return 'opencode';
  let head: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(65536);
      head = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
  for (const line of head.split('\n').slice(0, 20)) {
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof r !== 'object' || r === null) continue;
    const rec = r as Record<string, unknown>;
    if (rec.type === 'session' && typeof rec.cwd === 'string') return 'pi';
    if ('payload' in rec && typeof rec.type === 'string') return 'codex';
    if (typeof rec.sessionId === 'string' || typeof rec.leafUuid === 'string' || typeof rec.parentUuid === 'string' || rec.parentUuid === null)
      return 'claude-code';
  }
  return null;
}

/** A Braid session id that an import of the same source session always gets: its start time, then a hash of the source and id. */
export function importedSessionId(tool: string, sourceId: string, startedAt: number, branch = ''): string {
  const digits = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const hash = sha256Hex(`${tool}\n${sourceId}\n${branch}`);
  let random = '';
  for (let i = 0; i < 16; i++) random += digits[parseInt(hash.slice(i * 2, i * 2 + 2), 16) % 32];
  const time = Math.min(Math.max(0, Math.floor(startedAt)), 2 ** 48 - 1);
  return `ses_${encodeTime(time, 10)}${random}`;
}

/**
 * Imports the sessions found (docs/reference.md, Imported sessions). Each source session becomes
 * a Braid session in the workspace it was recorded in, published by one rename; one already
 * imported is left alone when its source is unchanged and gets what the source added when it
 * grew. One bad file never stops the batch: its outcome says why.
 */
export async function importSessions(store: SessionStore | null, options: ImportOptions): Promise<ImportOutcome[]> {
  if (!store && !options.dryRun) throw new Error('an import needs a store to write to (only a dry run goes without one)');
  const sources = findSources(options);
  const outcomes: ImportOutcome[] = [];
  const total = sources.reduce((n, s) => n + s.files.length, 0);
  const report = (outcome: ImportOutcome) => {
    outcomes.push(outcome);
    options.onProgress?.(outcomes.length, total, outcome);
  };
  const into = store ? { store, known: new KnownSessions(store), publisher: new Publisher((dir) => indexFolder(store, dir)) } : null;
  // One source session at a time (memory holds one), its child threads with it.
  for (const { format, files } of sources) {
    const family = familyOf(format, files);
    for (const file of files) {
      if (options.signal?.aborted) break;
      const parent = family.parentInBatch(file);
      if (parent) {
        report({
          tool: format.tool,
          file,
          action: 'skipped',
          dryRun: options.dryRun,
          reason: `a subagent of ${parent}: imported with it`,
          bytes: fileSize(file),
        });
        continue;
      }
      report(await importFile(into, format, file, family.childrenOf(file), options.dryRun));
    }
  }
  if (into) {
    into.publisher.flush();
    unpublished(outcomes, into.publisher.takeFailures());
  }
  return outcomes;
}

/** Outcomes corrected for the sessions the publisher could not put in place (a failure is said as it is, never as imported). */
function unpublished(outcomes: ImportOutcome[], failures: readonly PublishFailure[]): void {
  for (const failure of failures) {
    const i = outcomes.findIndex((o) => o.sessionId === failure.id || o.forks?.includes(failure.id));
    const o = outcomes[i];
    if (!o) continue;
    outcomes[i] =
      o.sessionId === failure.id
        ? { ...o, action: 'failed', reason: failure.reason, forks: [] }
        : { ...o, forks: o.forks!.filter((f) => f !== failure.id), reason: `a fork of another branch: ${failure.reason}` };
  }
}

/** Which files of a batch are child threads of a session in it (Codex's subagents, opencode's child sessions), read from each file's identity. */
function familyOf(format: SourceFormat, files: readonly string[]) {
  const identities = new Map(files.map((f) => [f, format.identify?.(f) ?? null]));
  const fileOf = new Map([...identities].flatMap(([f, id]) => (id ? [[id.sourceId, f] as const] : [])));
  const children = new Map<string, string[]>();
  for (const [f, id] of identities)
    if (id?.parentSourceId && fileOf.has(id.parentSourceId)) children.set(id.parentSourceId, [...(children.get(id.parentSourceId) ?? []), f]);
  return {
    parentInBatch: (file: string): string | undefined => {
      const parent = identities.get(file)?.parentSourceId;
      return parent !== undefined && fileOf.has(parent) && fileOf.get(parent) !== file ? parent : undefined;
    },
    childrenOf: (file: string): string[] => children.get(identities.get(file)?.sourceId ?? '') ?? [],
  };
}

/** Scans and imports one file (and its child threads' files); its outcome, never a throw. */
async function importFile(into: Into | null, format: SourceFormat, file: string, childFiles: readonly string[], dryRun: boolean): Promise<ImportOutcome> {
  const fileReport = new FileReport();
  let session: ScannedSession | null = null;
  try {
    session = await format.scan(file, fileReport);
    if (!session) return { tool: format.tool, file, action: 'skipped', dryRun, reason: fileReport.summary() || 'no conversation', bytes: fileSize(file) };
    const children: ScannedSession[] = [];
    for (const childFile of childFiles) {
      const child = await format.scan(childFile, fileReport);
      if (child) children.push(child);
    }
    return await importOne(into, session, fileReport, children, dryRun);
  } catch (err) {
    const base = session ? describe(session, dryRun) : { tool: format.tool, file, dryRun, bytes: fileSize(file) };
    return { ...base, action: 'failed', reason: errorText(err), skippedLines: fileReport.summary() || undefined };
  }
}

function describe(session: ScannedSession, dryRun: boolean): Omit<ImportOutcome, 'action'> {
  return {
    tool: session.tool,
    file: session.file,
    dryRun,
    sourceId: session.sourceId,
    workspaceDir: session.cwd,
    title: session.title,
    bytes: session.digest.size,
  };
}

/** Imports one source session; with no store (a dry run where there is none yet) every session is new. */
async function importOne(into: Into | null, session: ScannedSession, report: FileReport, children: ScannedSession[], dryRun: boolean): Promise<ImportOutcome> {
  const base = describe(session, dryRun);
  if (!isAbsolutePath(session.cwd)) return { ...base, action: 'skipped', reason: `the folder it names (${JSON.stringify(session.cwd)}) is not a full path` };
  const id = importedSessionId(session.tool, session.sourceId, session.startedAt);
  const existing = into?.known.find(id);
  if (existing === 'trash')
    return { ...base, sessionId: id, action: 'skipped', reason: 'imported before and deleted since (it is in the trash; Undelete brings it back)' };
  if (!into || dryRun) {
    const outcome =
      into && existing ? (await appendTo(into, existing, id, session, report, true)).outcome : { ...base, sessionId: id, action: 'imported' as const };
    return {
      ...outcome,
      forks: newBranches(into, session, session.branches.slice(1)),
      reason: outcome.reason ?? 'would import (dry run: nothing written)',
      skippedLines: report.summary() || undefined,
    };
  }
  let main: ImportOutcome;
  let forkBranches = session.branches.slice(1);
  if (existing) {
    if (into.publisher.isPending(id)) into.publisher.flush(); // the same session twice in one batch
    const appended = await appendTo(into, existing, id, session, report, false);
    main = appended.outcome;
    // Rewound in the source tool since: the branch it resumes now is a fork of what was imported.
    if (appended.rewoundInSource) forkBranches = [...session.branches];
  } else {
    const written = (await writeNew(into, id, session, session.branches[0]!, report, null, children))!;
    main = { ...base, sessionId: id, action: 'imported', turns: written.turns, messages: written.messages };
  }
  const forks: string[] = [];
  const newForks = newBranches(into, session, forkBranches);
  if (newForks.length && into.publisher.isPending(id)) into.publisher.flush(); // the forks read the session's message ids
  const shared = new Set(newForks.length ? messageIdsOf(into.store, into.known.find(id) as string) : []);
  for (const forkId of newForks) {
    const fork = await writeNew(into, forkId, session, branchOf(session, forkId), report, { sessionId: id, shared }, []);
    if (fork) forks.push(fork.id);
  }
  return { ...main, forks, skippedLines: report.summary() || undefined };
}

/** The session ids of a source's branches that have no Braid session yet (a fork's id is derived from its branch). */
function newBranches(into: Into | null, session: ScannedSession, branches: readonly string[]): string[] {
  return branches.map((b) => importedSessionId(session.tool, session.sourceId, session.startedAt, b)).filter((forkId) => !into?.known.find(forkId));
}

/** The branch whose fork has session id `forkId`. */
function branchOf(session: ScannedSession, forkId: string): string {
  return session.branches.find((b) => importedSessionId(session.tool, session.sourceId, session.startedAt, b) === forkId)!;
}

/** The ids of the messages a session's main log holds. */
function messageIdsOf(store: SessionStore, dir: string): string[] {
  const ids: string[] = [];
  scanWireLog(store.layout.agentLog(dir), (r) => void (r.t === 'message' && ids.push((r as MessageRecord).id)), { only: ['message'] });
  return ids;
}

/** A full path on this system or on Windows (a session recorded there names its drive). */
function isAbsolutePath(p: string): boolean {
  return path.posix.isAbsolute(p) || path.win32.isAbsolute(p);
}

/** Where an import writes, and the sessions there. */
interface Into {
  readonly store: SessionStore;
  readonly known: KnownSessions;
  readonly publisher: Publisher;
}

/**
 * The sessions of the store and of its trash, read from the folder names once per import (a
 * lookup through the index would ask every workspace's index for each source session).
 */
class KnownSessions {
  private readonly folders = new Map<string, string>();
  private readonly trashed: Set<string>;

  constructor(store: SessionStore) {
    for (const f of listSessionFolders(store.layout)) this.folders.set(f.id, f.dir);
    this.trashed = new Set(store.listTrash().map((t) => t.id));
  }

  /** The folder of session `id` when it exists, 'trash' when it was deleted, undefined when it never was. */
  find(id: string): string | 'trash' | undefined {
    return this.folders.get(id) ?? (this.trashed.has(id) ? 'trash' : undefined);
  }

  add(id: string, dir: string): void {
    this.folders.set(id, dir);
  }
}

/** Folds a session folder written here into the index (its workspace's; no lookup of the id). */
function indexFolder(store: SessionStore, dir: string): void {
  const reading = readSessionSummary(dir);
  store.index.putSummary(reading.summary.state.id, reading.summary);
}

/**
 * Writes a new session from one branch of a source into a partial folder, then publishes it with
 * one rename. A fork whose every turn its source session holds (the branch that session is) is
 * not published: null.
 */
async function writeNew(
  into: Into,
  id: string,
  session: ScannedSession,
  branch: string,
  report: FileReport,
  fork: { sessionId: string; shared: ReadonlySet<string> } | null,
  children: readonly ScannedSession[],
): Promise<{ id: string; turns: number; messages: number } | null> {
  const layout = into.store.layout;
  const key = workspaceKey(session.cwd);
  const partial = layout.partialDir(key, id);
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(layout.agentsDir(partial), { recursive: true }); // one mkdir per level, once
  const log = new ImportLog(
    layout.agentLog(partial),
    `${session.tool}\n${session.sourceId}`,
    null,
    undefined,
    null,
    () => 0,
    fork ? { sessionId: fork.sessionId, ids: fork.shared } : undefined,
  );
  try {
    log.head({ t: 'agent', agentId: 'main', parentAgentId: null, purpose: 'main', sessionId: id, workspaceDir: session.cwd, ts: session.startedAt });
    log.head(importedRecord(session));
    await session.convert(branch, log, report);
    for (const child of children) {
      const sub = log.subagent(`${child.tool}:${child.sourceId}`, child.title ?? 'subagent');
      await child.convert(child.branches[0]!, sub.target, report);
    }
    const result = log.finish((soFar) => [importedRecord(session, soFar)], { sync: false });
    if (log.unreadableMessages) report.skip('messages whose content is damaged (not text, images or tool calls)', log.unreadableMessages);
    if (fork && log.lastSharedTurn >= result.turns) {
      fs.rmSync(partial, { recursive: true, force: true });
      return null;
    }
    const state: StoredState = {
      v: 2,
      id,
      workspaceKey: key,
      workspaceDir: session.cwd,
      createdAt: session.startedAt,
      title: titleOf(session.title ?? autoTitle(log.firstPrompt ?? ''), fork !== null),
      titleSource: session.title ? 'user' : 'auto',
      kind: 'conversation',
      visibility: 'visible',
      archived: false,
      forkedFrom: fork ? { sessionId: fork.sessionId, turn: log.lastSharedTurn } : null,
      queue: [],
      paused: null,
    };
    // The folder is not published yet: a plain write; the publisher fsyncs it before the rename.
    fs.writeFileSync(layout.stateFile(partial), stateText(state));
    const finalDir = layout.sessionDir(key, id);
    into.known.add(id, finalDir);
    into.publisher.add(id, partial, finalDir);
    return { id, turns: result.turns, messages: result.messages };
  } catch (err) {
    log.abandon();
    fs.rmSync(partial, { recursive: true, force: true });
    throw err;
  }
}

/** The `imported` record: at the head of the log without `soFar`, at the end of each import with it. */
function importedRecord(session: ScannedSession, soFar?: ImportedSoFar): NewRecord {
  return {
    t: 'imported',
    tool: session.tool,
    file: session.file,
    sourceId: session.sourceId,
    size: session.digest.size,
    sha256: session.digest.sha256,
    importer: IMPORTER_VERSION,
    ...(soFar ?? {}),
  };
}

/** The newest `imported` record of a session's log, and the turns Braid counts in it. */
function importedSoFar(store: SessionStore, dir: string): (ImportedRecord & ImportedSoFar) | undefined {
  let last: (ImportedRecord & ImportedSoFar) | undefined;
  const visit = (r: WireRecord) => {
    const record = r as ImportedRecord;
    if (record.t === 'imported' && record.turns !== undefined && record.lastTurnMessages !== undefined && record.earlierTurns !== undefined)
      last = record as ImportedRecord & ImportedSoFar;
  };
  scanWireLog(store.layout.agentLog(dir), visit, { only: ['imported'] });
  return last;
}

/**
 * A session imported before: unchanged, or grown at its end (the new part appended under the
 * writer lease). `rewoundInSource`: the source tool rewound the conversation since, so the branch
 * it resumes now is not what was imported (nothing is appended; the caller imports it as a fork).
 */
async function appendTo(
  into: Into,
  dir: string,
  id: string,
  session: ScannedSession,
  report: FileReport,
  dryRun: boolean,
): Promise<{ outcome: ImportOutcome; rewoundInSource?: boolean }> {
  const { store } = into;
  const base = { ...describe(session, dryRun), sessionId: id };
  const left = (reason: string, rewoundInSource = false) => ({ outcome: { ...base, action: 'skipped' as const, reason }, rewoundInSource });
  const last = importedSoFar(store, dir);
  if (!last) return left('a session with this id exists and was not imported');
  if (last.size === session.digest.size && last.sha256 === session.digest.sha256) return { outcome: { ...base, action: 'unchanged', turns: last.turns } };
  const grown = session.grewFrom
    ? await session.grewFrom(last.size, last.sha256)
    : session.digest.size > last.size && (await digestPrefix(session.file, last.size)).sha256 === last.sha256;
  if (!grown) return left('its source changed since the import (not only grown); the imported session is kept as it was');
  if (readSessionSummary(dir).summary.state.turnCount !== last.turns)
    return left(`continued or rewound in Braid since the import; what ${session.tool} added is not appended`);
  if (dryRun) return { outcome: { ...base, action: 'appended', reason: 'would append what the source added (dry run: nothing written)' } };
  const lease = await WriterLease.acquire(store.layout, dir);
  try {
    const log = new ImportLog(store.layout.agentLog(dir), `${session.tool}\n${session.sourceId}`, null, undefined, last, () => 0);
    try {
      await session.convert(session.branches[0]!, log, report);
      const result = log.finish((soFar) => [importedRecord(session, soFar)]);
      if (log.unreadableMessages) report.skip('messages whose content is damaged (not text, images or tool calls)', log.unreadableMessages);
      indexFolder(store, dir);
      return { outcome: { ...base, action: result.appended ? 'appended' : 'unchanged', turns: result.turns, messages: result.appended } };
    } catch (err) {
      log.abandon();
      if (err instanceof SourceChangedError)
        return left(`${session.tool} rewound the conversation since the import (${err.message}): the branch it resumes now is imported as a fork`, true);
      throw err;
    }
  } finally {
    await lease.release();
  }
}

/** A fork of another branch says so in its title, as a fork made in Braid does. */
function titleOf(title: string, isFork: boolean): string {
  return isFork && title ? `${title} (other branch)` : title;
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
