import fs from 'node:fs';
import path from 'node:path';
import { encodeTime } from 'ulid';
import { sha256Hex } from '../hash';
import { scanWireLog } from '../wire/wireReader';
import type { ImportedRecord, MessageRecord, WireRecord } from '../wire/records';
import type { SessionStore } from '../store/sessionStore';
import { Publisher, type PublishFailure } from './publisher';
import { SourceDatabases } from './sourceDatabase';
import { SourceRefusedError } from '../fs/sourceFile';
import { findSources, type SourceQuery } from './sources';
import { IMPORTER_VERSION, KnownSessions, indexHooks, writeNew, type Into } from './newSession';
import { appendTo } from './reimport';
import { MessageIds } from './importLog';
import { FileReport, type ScannedSession, type SourceFormat, type SourceRef } from './source';
import type { ImportOutcome } from './outcome';

export { IMPORTER_VERSION };
export { importFailed, type ImportAction, type ImportOutcome } from './outcome';
export { FORMATS, findSources } from './sources';

export interface ImportOptions extends SourceQuery {
  readonly dryRun: boolean;
  /** sql.js's wasm (opencode's database is read with it); without it a database is refused, saying so. */
  readonly wasmPath?: string;
  /** With no store given: opens (or makes) one, called only when the import has a session to write. */
  readonly openStore?: () => Promise<SessionStore>;
  readonly signal?: AbortSignal;
  /** Called after each source session, with the counts so far. */
  readonly onProgress?: (done: number, total: number, outcome: ImportOutcome) => void;
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
 * imported is left alone when its source is unchanged, gets what the source added when it grew,
 * and is written again when its import was cut short. One bad file never stops the batch: its
 * outcome says why; a path named that cannot be read is `refused`.
 */
export async function importSessions(given: SessionStore | null, options: ImportOptions): Promise<ImportOutcome[]> {
  if (!given && !options.dryRun && !options.openStore) throw new Error('an import needs a store to write to (only a dry run goes without one)');
  const databases = new SourceDatabases(options.wasmPath);
  try {
    const found = await findSources(options, databases);
    // A store is opened (made, where there is none yet) only when there is something to write.
    const store = given ?? (!options.dryRun && found.sources.length ? await options.openStore!() : null);
    const outcomes: ImportOutcome[] = found.refused.map((r) => ({
      tool: r.tool,
      file: r.path,
      action: 'refused',
      dryRun: options.dryRun,
      reason: r.reason,
      bytes: 0,
    }));
    const total = found.sources.reduce((n, s) => n + s.refs.length, 0) + outcomes.length;
    const report = (outcome: ImportOutcome) => {
      outcomes.push(outcome);
      options.onProgress?.(outcomes.length, total, outcome);
    };
    const into = store ? { store, known: new KnownSessions(store), publisher: new Publisher(indexHooks(store)) } : null;
    // One source session at a time (memory holds one), its child threads with it.
    for (const { format, refs } of found.sources) {
      const family = await familyOf(format, refs, databases);
      for (const ref of refs) {
        if (options.signal?.aborted) break;
        const parent = family.parentInBatch(ref);
        if (parent) {
          report({
            tool: format.tool,
            file: ref.file,
            action: 'skipped',
            dryRun: options.dryRun,
            ...(family.sourceIdOf(ref) ? { sourceId: family.sourceIdOf(ref) } : {}),
            reason: `a subagent of ${parent}: imported with it`,
            bytes: fileSize(ref),
          });
          continue;
        }
        report(await importRef(into, format, ref, family.childrenOf(ref), options.dryRun, databases));
      }
    }
    if (into) {
      await into.publisher.flush();
      settleUnpublished(into, outcomes, into.publisher.takeFailures());
      indexNamed(into, outcomes);
    }
    return outcomes;
  } finally {
    await databases.close();
  }
}

/**
 * Outcomes corrected for the sessions the publisher could not put in place. One that another
 * process published at the same moment from the same source bytes is unchanged; any other
 * failure is said as it is, never as imported.
 */
function settleUnpublished(into: Into, outcomes: ImportOutcome[], failures: readonly PublishFailure[]): void {
  for (const failure of failures) {
    const i = outcomes.findIndex((o) => o.sessionId === failure.id || o.forks?.includes(failure.id));
    const o = outcomes[i];
    if (!o) continue;
    if (o.sessionId === failure.id && failure.taken && publishedSame(into.store, failure.final, o)) {
      outcomes[i] = { ...o, action: 'unchanged', reason: 'another process imported the same source at the same time', forks: [] };
      into.known.add(failure.id, failure.final);
      continue;
    }
    outcomes[i] =
      o.sessionId === failure.id
        ? { ...o, action: 'failed', reason: failure.reason, forks: [] }
        : { ...o, forks: o.forks!.filter((f) => f !== failure.id), reason: `a fork of another branch: ${failure.reason}` };
  }
}

/** What an outcome says is in the store: the index lists it as its folder is now. */
const IN_STORE = new Set<ImportOutcome['action']>(['imported', 'appended', 'repaired', 'unchanged']);

/**
 * Makes the index agree with the folder of every session the outcomes say is in the store (two
 * stats each when it does): a process that published one, or changed it, may have died before it
 * recorded its row, and an import that finds the session unchanged must still list it.
 */
function indexNamed(into: Into, outcomes: readonly ImportOutcome[]): void {
  for (const o of outcomes) {
    if (!IN_STORE.has(o.action)) continue;
    for (const id of [o.sessionId, ...(o.forks ?? [])]) {
      const dir = id === undefined ? undefined : into.known.find(id);
      if (typeof dir !== 'string') continue;
      try {
        into.store.summaryAt(dir);
      } catch {
        // gone meanwhile (another process deleted it): nothing to list
      }
    }
  }
}

/** Whether the session at `dir` holds a whole import of the source bytes `o` read. */
function publishedSame(store: SessionStore, dir: string, o: ImportOutcome): boolean {
  let last: ImportedRecord | undefined;
  try {
    scanWireLog(store.layout.agentLog(dir), (r: WireRecord) => void ((r as ImportedRecord).turns !== undefined && (last = r as ImportedRecord)), {
      only: ['imported'],
    });
  } catch {
    return false;
  }
  return last !== undefined && last.size === o.bytes && last.turns === o.turns && last.sourceId === o.sourceId;
}

/** Which sessions of a batch are child threads of a session in it (Codex's subagents, opencode's child sessions), read from each one's identity. */
async function familyOf(format: SourceFormat, refs: readonly SourceRef[], databases: SourceDatabases) {
  const keyOf = (ref: SourceRef) => `${ref.file}\n${ref.key ?? ''}`;
  const identities = new Map<string, { sourceId: string; parentSourceId?: string } | null>();
  for (const ref of refs) identities.set(keyOf(ref), format.identify ? await format.identify(ref, databases).catch(() => null) : null);
  const refOf = new Map<string, SourceRef>();
  for (const ref of refs) {
    const id = identities.get(keyOf(ref));
    if (id) refOf.set(id.sourceId, ref);
  }
  const children = new Map<string, SourceRef[]>();
  for (const ref of refs) {
    const parent = identities.get(keyOf(ref))?.parentSourceId;
    if (parent && refOf.has(parent)) children.set(parent, [...(children.get(parent) ?? []), ref]);
  }
  return {
    parentInBatch: (ref: SourceRef): string | undefined => {
      const parent = identities.get(keyOf(ref))?.parentSourceId;
      return parent !== undefined && refOf.has(parent) && refOf.get(parent) !== ref ? parent : undefined;
    },
    childrenOf: (ref: SourceRef): SourceRef[] => children.get(identities.get(keyOf(ref))?.sourceId ?? '') ?? [],
    sourceIdOf: (ref: SourceRef): string | undefined => identities.get(keyOf(ref))?.sourceId,
  };
}

/** Scans and imports one source session (and its child threads); its outcome, never a throw. */
async function importRef(
  into: Into | null,
  format: SourceFormat,
  ref: SourceRef,
  childRefs: readonly SourceRef[],
  dryRun: boolean,
  databases: SourceDatabases,
): Promise<ImportOutcome> {
  const fileReport = new FileReport();
  let session: ScannedSession | null = null;
  const bare = { tool: format.tool, file: ref.file, dryRun, ...(ref.key ? { sourceId: ref.key } : {}), bytes: fileSize(ref) };
  try {
    session = await format.scan(ref, fileReport, databases);
    if (!session) return { ...bare, action: 'skipped', reason: fileReport.summary() || 'no conversation' };
    const children: ScannedSession[] = [];
    for (const childRef of childRefs) {
      const child = await format.scan(childRef, fileReport, databases);
      if (child) children.push(child);
    }
    return await importOne(into, session, fileReport, children, dryRun);
  } catch (err) {
    const base = session ? describe(session, dryRun) : bare;
    const action = err instanceof SourceRefusedError ? 'refused' : 'failed';
    return { ...base, action, reason: errorText(err), skippedLines: fileReport.summary() || undefined };
  }
}

function describe(session: ScannedSession, dryRun: boolean): ImportOutcome {
  return {
    tool: session.tool,
    file: session.file,
    action: 'imported',
    dryRun,
    sourceId: session.sourceId,
    workspaceDir: session.cwd,
    title: session.title,
    bytes: session.digest.size,
  };
}

/** Why the folder a session names cannot be its workspace, or null when it can: a full path, on one line. */
function unusableFolder(cwd: string): string | null {
  if (!(path.posix.isAbsolute(cwd) || path.win32.isAbsolute(cwd))) return `the folder it names (${JSON.stringify(cwd.slice(0, 200))}) is not a full path`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(cwd)) return `the folder it names (${JSON.stringify(cwd.slice(0, 200))}) holds control characters`;
  return null;
}

/** Imports one source session; with no store (a dry run where there is none yet) every session is new. */
async function importOne(into: Into | null, session: ScannedSession, report: FileReport, children: ScannedSession[], dryRun: boolean): Promise<ImportOutcome> {
  const base = describe(session, dryRun);
  const unusable = unusableFolder(session.cwd);
  if (unusable) return { ...base, action: 'skipped', reason: unusable };
  const id = importedSessionId(session.tool, session.sourceId, session.startedAt);
  const existing = into?.known.find(id);
  if (existing === 'trash')
    return { ...base, sessionId: id, action: 'skipped', reason: 'imported before and deleted since (it is in the trash; Undelete brings it back)' };
  if (!into || dryRun) {
    const outcome = into && existing ? (await appendTo(into, existing, { ...base, sessionId: id }, session, report, true)).outcome : { ...base, sessionId: id };
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
    if (into.publisher.isPending(id)) await into.publisher.flush(); // the same session twice in one batch
    const appended = await appendTo(into, existing, { ...base, sessionId: id }, session, report, false);
    main = appended.outcome;
    // Rewound in the source tool since: the branch it resumes now is a fork of what was imported, unless it is an earlier copy of it.
    if (appended.rewoundInSource && (await holdsOnly(into.store, existing, session)))
      main = { ...main, reason: 'an earlier copy of the imported session (every message it holds was imported): nothing to add' };
    else if (appended.rewoundInSource) forkBranches = [...session.branches];
  } else {
    const written = (await writeNew(into, id, session, session.branches[0]!, report, null, children))!;
    main = { ...base, sessionId: id, action: 'imported', turns: written.turns, messages: written.messages };
  }
  const forks: string[] = [];
  const newForks = newBranches(into, session, forkBranches);
  if (newForks.length && into.publisher.isPending(id)) await into.publisher.flush(); // the forks read the session's message ids
  const shared = new Set(newForks.length ? messageIdsOf(into.store, into.known.find(id) as string) : []);
  for (const forkId of newForks) {
    const fork = await writeNew(into, forkId, session, branchOf(session, forkId), report, { sessionId: id, shared }, []);
    if (fork) forks.push(fork.id);
  }
  return { ...main, forks, skippedLines: report.summary() || undefined };
}

/** Whether every message of the branch a source resumes is in the session at `dir` already. */
async function holdsOnly(store: SessionStore, dir: string, session: ScannedSession): Promise<boolean> {
  const collect = new MessageIds(`${session.tool}\n${session.sourceId}`);
  await session.convert(session.branches[0]!, collect, new FileReport());
  const imported = new Set(messageIdsOf(store, dir));
  return [...collect.ids].every((id) => imported.has(id));
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

function fileSize(ref: SourceRef): number {
  if (ref.key !== undefined) return 0; // one session of a database: its size is its rows', known once read
  try {
    return fs.lstatSync(ref.file).size;
  } catch {
    return 0;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
