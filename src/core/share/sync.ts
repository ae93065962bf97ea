import fs from 'node:fs';
import path from 'node:path';
import { listSessionFolders } from '../format/layout';
import { readState, type StoredState, type SyncPoint } from '../format/sessionState';
import { indexFolder } from '../import/newSession';
import { errorMessage } from '../errors';
import { statSize } from '../fs/probe';
import { dropBlameMemos } from '../store/blameMemo';
import { forkSession } from '../store/fork';
import { listTrash } from '../store/trash';
import { SessionBusyError, WriterLease } from '../store/writerLease';
import { WireLogWriter } from '../wire/wireLog';
import { workspaceKey } from '../workspace/workspaceKey';
import { ownSessions } from './ownSessions';
import { agentsWithLogs } from './sessionChunks';
import { chunkCounts, chunkPath, MANIFEST_FILE, MAX_CHUNK_BYTES, MAX_MANIFEST_BYTES, parseManifest, pusherOf, type Manifest } from './payload';
import { blobOf, checkLogStart, pulledState, readRemote, replaceLog, sizeOf, NewCopies, type Wanted } from './pull';
import { keepSyncPoint, NOT_FAST_FORWARD, pushSessions, type PushedSession, type PushRequest } from './push';
import { remoteKey } from './remote';
import { gitReason, joined, type Pieces, type TooBig } from './shareGit';
import { localTail, tailFits } from './syncTail';

export interface SyncRequest extends Omit<PushRequest, 'sessions'> {
  /** The workspace whose sessions are synced, and its repository's first commit (sessions of other projects are left). */
  readonly workspace: string;
  readonly rootCommit: string | undefined;
}

/** What a sync did (or, dry, would do) with one session the remote holds. */
export interface SyncedIn {
  readonly ref: string;
  readonly id: string;
  readonly title: string;
  /** The machine whose push came in. */
  readonly machineName: string;
  readonly outcome: 'new' | 'updated' | 'forked' | 'unchanged' | 'refused' | 'busy';
  /** Bytes added to the local log. */
  readonly bytes: number;
  /** For `forked`: the new session that holds this machine's turns the other machine did not have. */
  readonly fork?: { readonly id: string; readonly title: string };
  readonly reason?: string;
}

export interface SyncReport {
  readonly pulled: SyncedIn[];
  readonly pushed: PushedSession[];
  /** Sessions of other projects the remote holds, left there. */
  readonly otherProjects: number;
}

/**
 * `braid sync`: brings in what this machine's other machines pushed of this project's sessions
 * (new sessions, and turns added to sessions this machine has), then pushes this machine's own.
 * A session continued on both sides since they last met becomes a fork here, the side that
 * syncs second: the remote's turns go on in the session, this machine's in the fork. Nothing is
 * merged and nothing is lost. A push that finds the remote moved on meanwhile syncs once more.
 */
export async function syncSessions(req: SyncRequest): Promise<SyncReport> {
  const first = await syncIn(req);
  let pushed = await pushSessions({ ...req, sessions: ownSessions(req.store, req.workspace) });
  if (req.dryRun) return { ...first, pushed: pushed.filter((r) => !isBehind(r)) }; // those come in first: the sync-in part says so
  if (!pushed.some(isBehind)) return { ...first, pushed };
  const again = await syncIn(req);
  pushed = await pushSessions({ ...req, sessions: ownSessions(req.store, req.workspace) });
  const later = new Map(again.pulled.filter((s) => s.outcome !== 'unchanged').map((s) => [s.ref, s]));
  return {
    pulled: [...first.pulled.map((s) => later.get(s.ref) ?? s), ...again.pulled.filter((s) => s.outcome === 'new')],
    pushed,
    otherProjects: first.otherProjects,
  };
}

/** A push refused because the remote holds another machine's push of the session that this one has not taken in. */
function isBehind(r: PushedSession): boolean {
  return r.outcome === 'failed' && (r.reason === NOT_FAST_FORWARD || /braid sync brings that here first/.test(r.reason ?? ''));
}

/** A ref of the remote this sync acts on, with its checked manifest and the local copy. */
interface Incoming {
  readonly w: Wanted;
  readonly manifest: Manifest;
  readonly dir: string | undefined;
  /** Where the local copy stands on the remote; undefined for a session new here. */
  readonly point: SyncPoint | undefined;
}

async function syncIn(req: SyncRequest): Promise<Omit<SyncReport, 'pushed'>> {
  const remote = await readRemote(req, () => true);
  const pulled: SyncedIn[] = remote.refused.map((r) => refusedRef(r.ref, r.id, r.reason));
  const local = new Map(listSessionFolders(req.store.layout).map((f) => [f.id, f.dir]));
  const trashed = new Set(listTrash(req.store.layout).map((t) => t.id));
  const incoming: Incoming[] = [];
  for (const { w, manifest } of remote.sessions) {
    if (trashed.has(w.sessionId)) continue; // deleted here: a sync does not bring it back
    try {
      const found = await placeOf(req, w, manifest, local.get(w.sessionId));
      if (found === 'unchanged') pulled.push({ ...reportOf(w, manifest), outcome: 'unchanged', bytes: 0 });
      else if (found) incoming.push(found);
    } catch (err) {
      pulled.push(refusedRef(w.ref, w.sessionId, errorMessage(err)));
    }
  }
  const otherProjects = remote.otherProjects;
  if (req.dryRun) return { pulled: [...pulled, ...incoming.map(wouldTake)], otherProjects };
  const chunks = await req.git.blobs(incoming.flatMap(chunkSpecs), MAX_CHUNK_BYTES);
  const copies = new NewCopies(req.store);
  try {
    for (const item of incoming) {
      try {
        pulled.push(await takeIn(req, copies, item, newChunks(chunks, item)));
      } catch (err) {
        pulled.push(
          err instanceof SessionBusyError
            ? { ...reportOf(item.w, item.manifest), outcome: 'busy', bytes: 0, reason: err.message }
            : refusedRef(item.w.ref, item.w.sessionId, errorMessage(err)),
        );
      }
    }
  } finally {
    await copies.finish(); // what was written is published (or said to have failed) before the sync goes on or throws
  }
  for (const failure of copies.takeFailures()) {
    const i = pulled.findIndex((s) => s.id === failure.id);
    if (i >= 0) pulled[i] = { ...pulled[i]!, outcome: 'refused', bytes: 0, reason: failure.reason };
  }
  return { pulled, otherProjects };
}

/**
 * How the remote's `w` meets this machine: a session new here (undefined point), one to bring up
 * to the remote's commit, `unchanged`, or undefined to leave (a session of this machine deleted
 * here, or one synced through another ref). Throws why a ref is refused.
 */
async function placeOf(req: SyncRequest, w: Wanted, manifest: Manifest, dir: string | undefined): Promise<Incoming | 'unchanged' | undefined> {
  if (!dir) return w.machine === req.machine.id ? undefined : { w, manifest, dir, point: undefined };
  const state = readState(req.store.layout.stateFile(dir));
  const key = remoteKey(req.remote);
  if (state.shared) {
    if (state.shared.ref !== w.ref) throw new Error(`this machine has it pulled from ${state.shared.remote}, read-only`);
    if (state.shared.commit === w.commit) return 'unchanged';
    await checkDescends(req, state.shared.commit, w.commit);
    return { w, manifest, dir, point: await pulledPoint(req, dir, state) };
  }
  const point = state.synced?.[key];
  if (point && point.ref !== w.ref) return undefined;
  if (point?.commit === w.commit) return 'unchanged';
  if (point) {
    await checkDescends(req, point.commit, w.commit);
    return { w, manifest, dir, point };
  }
  if (w.machine === req.machine.id && pusherOf(manifest).machine === req.machine.id) {
    // Pushed by this machine before it kept sync points: the manifest says how much of the local logs the remote holds.
    const bytes = Object.fromEntries(Object.entries(manifest.logs).map(([a, l]) => [a, l.sourceBytes]));
    await keepSyncPoint(req.store, w.sessionId, req.remote, { ref: w.ref, commit: w.commit, bytes, chunks: chunkCounts(manifest) });
    return 'unchanged';
  }
  throw new Error(
    `a session of this machine has the id ${w.sessionId} and no sync point with this remote (never synced, or its state.json was rebuilt); it is left as it is`,
  );
}

/**
 * The remote's commit must have the one this machine last met in its history: chunks are added,
 * never changed, so only then are the chunks past the sync point what the session gained.
 */
async function checkDescends(req: SyncRequest, met: string, tip: string): Promise<void> {
  const run = await req.git.run(['merge-base', '--is-ancestor', met, tip]);
  if (run.code === 0) return;
  if (run.code === 1)
    throw new Error(
      `the remote's history of it no longer holds commit ${met.slice(0, 12)}, where this machine last met it (rewritten there); the local session is left as it is`,
    );
  throw new Error(`git could not tell whether the remote's commit follows ${met.slice(0, 12)}: ${gitReason(run.stderr)}`);
}

/** The sync point of a copy `braid pull` brought in read-only: its logs are the chunks of the commit it pulled, byte for byte. */
async function pulledPoint(req: SyncRequest, dir: string, state: StoredState): Promise<SyncPoint> {
  const commit = state.shared!.commit;
  const blob = (await req.git.blobs([`${commit}:${MANIFEST_FILE}`], MAX_MANIFEST_BYTES)).get(`${commit}:${MANIFEST_FILE}`);
  if (!blob || 'tooBig' in blob) throw new Error('the commit it was pulled at is gone from the share repository; pull it again');
  const then = parseManifest(joined(blob), { machine: state.shared!.machine, sessionId: state.id });
  const bytes = Object.fromEntries(Object.keys(then.logs).map((a) => [a, statSize(req.store.layout.agentLog(dir, a))]));
  return { ref: state.shared!.ref, commit, bytes, chunks: chunkCounts(then) };
}

/** The chunks of `item` the local copy lacks: all of them for a session new here. */
function chunkSpecs(item: Incoming): string[] {
  return Object.entries(item.manifest.logs).flatMap(([agent, log]) =>
    log.chunks.slice(item.point?.chunks[agent] ?? 0).map((c) => `${item.w.commit}:${chunkPath(agent, c)}`),
  );
}

function newChunks(blobs: ReadonlyMap<string, Pieces | TooBig>, item: Incoming): Map<string, Pieces[]> {
  const logs = new Map<string, Pieces[]>();
  for (const [agent, log] of Object.entries(item.manifest.logs)) {
    const fresh = log.chunks.slice(item.point?.chunks[agent] ?? 0);
    logs.set(
      agent,
      fresh.map((c) => blobOf(blobs, `${item.w.commit}:${chunkPath(agent, c)}`, MAX_CHUNK_BYTES)),
    );
  }
  return logs;
}

/** The line that says which machine made the records just taken in. */
function syncedLine(manifest: Manifest): string {
  return WireLogWriter.serialize({ t: 'synced', machine: pusherOf(manifest).machine }).line;
}

async function takeIn(req: SyncRequest, copies: NewCopies, item: Incoming, logs: Map<string, Pieces[]>): Promise<SyncedIn> {
  const { w, manifest } = item;
  const report = reportOf(w, manifest);
  if (!item.dir || !item.point) {
    checkLogStart(logs, w.sessionId, manifest);
    const key = workspaceKey(req.workspace);
    const bytes = Object.fromEntries([...logs].map(([a, chunks]) => [a, sizeOf(chunks.flat())]));
    const state = { ...pulledState(w.sessionId, key, req.workspace, manifest), synced: { [remoteKey(req.remote)]: pointOf(w, manifest, bytes) } };
    const written = await copies.write(state, logs, syncedLine(manifest));
    return { ...report, outcome: 'new', bytes: written };
  }
  const lease = await WriterLease.acquire(req.store.layout, item.dir, { evenShared: true });
  try {
    return await advance(req, item, logs, report);
  } finally {
    await lease.release();
  }
}

/**
 * Brings a local copy up to the remote's commit, under its writer lease. When every local log
 * past the sync point holds nothing of this machine's own (or only what an interrupted sync had
 * begun to append), the new chunks are appended. Otherwise the session went on here too: the
 * whole local session is forked first, then its logs are made the remote's (the sync point's
 * bytes, then the new chunks), so the fork holds this machine's turns.
 */
async function advance(req: SyncRequest, item: Incoming, logs: Map<string, Pieces[]>, report: Omit<SyncedIn, 'outcome' | 'bytes'>): Promise<SyncedIn> {
  const { w, manifest, dir } = item;
  const point = item.point!;
  const layout = req.store.layout;
  const agents = new Set([...Object.keys(manifest.logs), ...agentsWithLogs(dir!)]);
  const diverged = [...agents].some((a) => !tailFits(localTail(layout.agentLog(dir!, a), point.bytes[a] ?? 0), joined((logs.get(a) ?? []).flat())));
  let fork: SyncedIn['fork'];
  if (diverged) {
    const state = readState(layout.stateFile(dir!));
    const made = await forkSession(req.store, w.sessionId, { title: `${state.title} (on ${req.machine.name})` });
    if (made.leftOutTurn !== null) {
      await req.store.delete(made.id);
      throw new Error(
        `its turn ${made.leftOutTurn} never ended here (Braid stopped during it?); open the session once so Braid closes that turn, then sync again`,
      );
    }
    fork = { id: made.id, title: made.title };
  }
  const bytes: Record<string, number> = {};
  let added = 0;
  for (const agent of agents) {
    const file = layout.agentLog(dir!, agent);
    const chunks = (logs.get(agent) ?? []).flat();
    if (!(agent in manifest.logs)) {
      fs.rmSync(path.dirname(file), { recursive: true, force: true }); // this machine's subagent: the fork holds it
      continue;
    }
    const kept = point.bytes[agent] ?? 0;
    const tail = agent === 'main' ? [Buffer.from(syncedLine(manifest))] : [];
    if (statSize(file) < kept) throw new Error(`${path.basename(file)} is shorter than the ${kept} bytes its sync point names`);
    replaceLog(file, kept, [...chunks, ...tail]);
    bytes[agent] = kept + sizeOf(chunks);
    added += sizeOf(chunks);
  }
  const state = await req.store.update(w.sessionId, (s) => {
    const { shared: _pulledReadOnly, ...own } = s;
    return { ...own, synced: { ...s.synced, [remoteKey(req.remote)]: pointOf(w, manifest, bytes) } };
  });
  // A copy pulled read-only is this machine's now: its shared.json goes after the state.json that no longer says shared.
  fs.rmSync(layout.sharedFile(dir!), { force: true });
  indexFolder(req.store, dir!);
  if (diverged) dropBlameMemos(layout); // the log's turns after the sync point are the remote's now: a memo could name this machine's
  return { ...report, title: state.title, outcome: fork ? 'forked' : 'updated', bytes: added, ...(fork ? { fork } : {}) };
}

function pointOf(w: Wanted, manifest: Manifest, bytes: Record<string, number>): SyncPoint {
  return { ref: w.ref, commit: w.commit, bytes, chunks: chunkCounts(manifest) };
}

function wouldTake(item: Incoming): SyncedIn {
  return { ...reportOf(item.w, item.manifest), outcome: item.point ? 'updated' : 'new', bytes: 0 };
}

function reportOf(w: Wanted, manifest: Manifest): Omit<SyncedIn, 'outcome' | 'bytes'> {
  return { ref: w.ref, id: w.sessionId, title: manifest.title, machineName: pusherOf(manifest).name };
}

function refusedRef(ref: string, id: string, reason: string): SyncedIn {
  return { ref, id, title: '', machineName: '', outcome: 'refused', bytes: 0, reason };
}
