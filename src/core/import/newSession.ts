import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { normalizeState, readState, stateText, type StoredState } from '../format/sessionState';
import { listSessionFolders } from '../format/layout';
import { readAgents, readSessionSummary, summarize } from '../format/summary';
import { autoTitle, storedTitle } from '../format/titles';
import { workspaceKey } from '../workspace/workspaceKey';
import type { NewRecord } from '../wire/records';
import type { SessionStore } from '../store/sessionStore';
import type { Publisher, PublishHooks } from './publisher';
import { ImportLog, type ImportedSoFar } from './importLog';
import type { FileReport, ScannedSession } from './source';

/** The importer's version, written in each `imported` record (2: injected context marked, the source's times kept). */
export const IMPORTER_VERSION = 2;

/** Where an import writes, and the sessions there. */
export interface Into {
  readonly store: SessionStore;
  readonly known: KnownSessions;
  readonly publisher: Publisher;
}

/**
 * The sessions of the store and of its trash, read from the folder names once per import (a
 * lookup through the index would ask every workspace's index for each source session).
 */
export class KnownSessions {
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

/** Folds a session folder into the index (its workspace's; no lookup of the id): the whole log, as a rebuild would. */
export function indexFolder(store: SessionStore, dir: string): void {
  const reading = readSessionSummary(dir);
  store.index.putSummary(reading.summary.state.id, reading.summary);
}

/**
 * The publisher's hooks for a store: each workspace's index is loaded before sessions are renamed
 * into it (a new one is built from its folders, which must not read them a second time), and a
 * published session's row comes from its writer's fold (the log is not read back), else from its folder.
 */
export function indexHooks(store: SessionStore): PublishHooks {
  return {
    preparing: (workspaceDirs) => {
      for (const dir of workspaceDirs) store.index.prepareWorkspace(path.basename(dir));
    },
    published: (p, log) => {
      if (!log) return indexFolder(store, p.final);
      const stateFile = store.layout.stateFile(p.final);
      const summary = summarize(readState(stateFile), log.fold, readAgents(p.final), log.logBytes, fs.statSync(stateFile).mtimeMs);
      store.index.putSummary(summary.state.id, summary, log.documents);
    },
  };
}

/** The `imported` record: at the head of the log without `soFar`, at the end of each import with it. */
export function importedRecord(session: ScannedSession, soFar?: ImportedSoFar): NewRecord {
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

/** A fork of another imported branch: the session it is a fork of, and the ids of that session's messages. */
export interface ForkOf {
  readonly sessionId: string;
  readonly shared: ReadonlySet<string>;
}

/**
 * Writes a new session from one branch of a source into a build folder of this process's own
 * (two imports of one source never share one), checks what was written, then hands it to the
 * publisher (one rename). A fork whose every turn its source session holds (the branch that
 * session is) is not published: null.
 */
export async function writeNew(
  into: Into,
  id: string,
  session: ScannedSession,
  branch: string,
  report: FileReport,
  fork: ForkOf | null,
  children: readonly ScannedSession[],
): Promise<{ id: string; turns: number; messages: number } | null> {
  const layout = into.store.layout;
  const key = workspaceKey(session.cwd);
  const partial = `${layout.partialDir(key, id)}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.mkdirSync(layout.agentsDir(partial), { recursive: true }); // one mkdir per level, once
  const log = new ImportLog(layout.agentLog(partial), {
    idScope: `${session.tool}\n${session.sourceId}`,
    startedAt: session.startedAt,
    ...(fork ? { forkOf: { sessionId: fork.sessionId, ids: fork.shared } } : {}),
  });
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
    fs.writeFileSync(layout.stateFile(partial), stateText(importedState(id, key, session, log.firstPrompt, fork, log.lastSharedTurn)));
    const finalDir = layout.sessionDir(key, id);
    into.known.add(id, finalDir);
    await into.publisher.add({ id, partial, final: finalDir, ...(log.fold ? { log: { fold: log.fold, logBytes: log.bytes } } : {}) });
    return { id, turns: result.turns, messages: result.messages };
  } catch (err) {
    log.abandon();
    fs.rmSync(partial, { recursive: true, force: true });
    throw err;
  }
}

/**
 * An imported session's state.json, its values read back as Braid reads any (`normalizeState`):
 * a title on one line, times that are times. Its title is the source's (cut to a line's length)
 * or, as Braid names its own sessions, its first prompt's beginning.
 */
function importedState(id: string, key: string, session: ScannedSession, firstPrompt: string | null, fork: ForkOf | null, lastShared: number): StoredState {
  const own = session.title ? storedTitle(session.title) : '';
  const title = own || autoTitle(firstPrompt ?? '');
  return normalizeState({
    v: 2,
    id,
    workspaceKey: key,
    workspaceDir: session.cwd,
    createdAt: session.startedAt,
    title: fork && title ? `${title} (other branch)` : title,
    titleSource: own ? 'user' : 'auto',
    kind: 'conversation',
    visibility: 'visible',
    archived: false,
    forkedFrom: fork ? { sessionId: fork.sessionId, turn: lastShared } : null,
    queue: [],
    paused: null,
  });
}
