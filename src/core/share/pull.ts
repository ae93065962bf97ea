import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors';
import { replaceFileAtomic } from '../fs/atomic';
import { listSessionFolders } from '../format/layout';
import { copyPrefixInto } from '../store/forkCopy';
import {
  normalizeState,
  readState,
  readSharedSidecar,
  sharedSidecarText,
  stateText,
  writeSharedSidecar,
  type SharedOrigin,
  type StoredState,
} from '../format/sessionState';
import { indexFolder, indexHooks } from '../import/newSession';
import { Publisher, type PublishFailure } from '../import/publisher';
import { LogPreparer } from '../index/logPreparer';
import type { PreparedLog } from '../index/preparedLog';
import type { SessionStore } from '../store/sessionStore';
import { workspaceKey } from '../workspace/workspaceKey';
import { chunkPath, MANIFEST_FILE, MAX_CHUNK_BYTES, MAX_MANIFEST_BYTES, parseManifest, parseRef, REF_ROOT, type Manifest } from './payload';
import { trackingRoot, type ShareRemote } from './remote';
import { trackedTips } from './push';
import { ShareError } from './shareError';
import { joined, type Pieces, type ShareGit, type TooBig } from './shareGit';

export interface PullRequest {
  readonly git: ShareGit;
  readonly store: SessionStore;
  readonly remote: ShareRemote;
  /** This machine's id: its own refs are not pulled. */
  readonly machine: string;
  /** The workspace the sessions are brought into, and its repository's first commit (sessions of other projects are left). */
  readonly workspace: string;
  readonly rootCommit: string | undefined;
  /** About this many bytes of logs (as the manifests say) are read from git at a time: {@link GROUP_BYTES} unless given. */
  readonly groupBytes?: number;
}

/** What a pull did with one ref of the remote. */
export interface PulledSession {
  readonly ref: string;
  readonly id: string;
  readonly title: string;
  readonly author: string;
  readonly machineName: string;
  readonly outcome: 'new' | 'updated' | 'unchanged' | 'refused';
  /** Bytes added to the local copy. */
  readonly bytes: number;
  readonly reason?: string;
}

export interface PullReport {
  readonly sessions: PulledSession[];
  /** Sessions of other projects the remote holds, left there. */
  readonly otherProjects: number;
}

/**
 * Brings the sessions other machines pushed to the remote into the workspace's store, read-only
 * (state.json's `shared`). Everything fetched is checked before it is used: the ref's shape, the
 * manifest (its ids match the ref, its paths are Braid's), each blob's size, and that the log
 * begins with its session. A session pulled before gets only the chunks it lacks; a local copy cut
 * short in the middle of a chunk (a pull killed while appending) is written again whole. The chunks
 * are read a group of sessions at a time, git reading the next group while one is written.
 */
export async function pullSessions(req: PullRequest): Promise<PullReport> {
  const remote = await readRemote(req, (machine) => machine !== req.machine);
  const sessions: PulledSession[] = remote.refused.map((r) => refused(r.ref, r.id, r.reason));
  const local = new Map(listSessionFolders(req.store.layout).map((f) => [f.id, f.dir]));
  const copies = new NewCopies(req.store);
  const toRead: { w: Wanted; manifest: Manifest }[] = [];
  for (const { w, manifest } of remote.sessions) {
    if (isUnchanged(req, local.get(w.sessionId), w)) {
      keepSidecar(req, local.get(w.sessionId)!);
      sessions.push({ ...reportOf(w, manifest), outcome: 'unchanged', bytes: 0 });
    } else toRead.push({ w, manifest });
  }
  try {
    const groups = inGroups(toRead, req.groupBytes ?? GROUP_BYTES);
    // git reads a group's chunks while the group before it is written and indexed.
    let reading = readChunks(req.git, groups[0] ?? []);
    for (let g = 0; g < groups.length; g++) {
      const chunks = await reading;
      if (g + 1 < groups.length) {
        reading = readChunks(req.git, groups[g + 1]!);
        reading.catch(() => undefined); // a failure is thrown where it is awaited
      }
      for (const { w, manifest } of groups[g]!) {
        await nextTurnOfLoop(); // git's pipe holds 64 KB: drained between sessions, git goes on reading the next group
        try {
          sessions.push(await pullOne(req, copies, local.get(w.sessionId), w, manifest, logsOf(chunks, w, manifest)));
        } catch (err) {
          sessions.push(refused(w.ref, w.sessionId, err instanceof Error ? err.message : String(err)));
        }
      }
    }
  } finally {
    await copies.finish(); // what was written is published (or said to have failed) before the pull returns or throws
  }
  for (const failure of copies.takeFailures()) {
    const i = sessions.findIndex((s) => s.id === failure.id);
    if (i >= 0) sessions[i] = { ...sessions[i]!, outcome: 'refused', bytes: 0, reason: failure.reason };
  }
  return { sessions, otherProjects: remote.otherProjects };
}

/** A session of the remote, by its ref, with its manifest (checked). */
export interface RemoteSession {
  readonly w: Wanted;
  readonly manifest: Manifest;
}

/** What {@link readRemote} found: this project's sessions, what it refused and why, and how many sessions are of other projects. */
export interface RemoteSessions {
  readonly sessions: RemoteSession[];
  readonly refused: Array<{ readonly ref: string; readonly id: string; readonly reason: string }>;
  readonly otherProjects: number;
}

/**
 * Fetches the remote's refs and reads the manifests of those whose machine `wanted` keeps, each
 * checked before it is used: the ref's shape, the manifest's ids (they match the ref) and paths.
 * A session is this project's when {@link sameProject} says so; the others are only counted.
 */
export async function readRemote(
  req: Pick<PullRequest, 'git' | 'remote' | 'rootCommit' | 'workspace'>,
  wanted: (machine: string) => boolean,
): Promise<RemoteSessions> {
  const sessions: RemoteSession[] = [];
  const refused: RemoteSessions['refused'] = [];
  let otherProjects = 0;
  const refs: Wanted[] = [];
  for (const r of await fetchSharedRefs(req.git, req.remote)) {
    const parsed = parseRef(r.ref);
    if ('refused' in parsed) refused.push({ ref: r.ref, id: '', reason: `refused: ${parsed.refused}` });
    else if (wanted(parsed.machine)) refs.push({ ...r, ...parsed });
  }
  const spec = (w: Wanted) => `${w.commit}:${MANIFEST_FILE}`;
  const manifests = await req.git.blobs(refs.map(spec), MAX_MANIFEST_BYTES);
  for (const w of refs) {
    try {
      const manifest = parseManifest(joined(blobOf(manifests, spec(w), MAX_MANIFEST_BYTES)), w);
      if (sameProject(manifest, req)) sessions.push({ w, manifest });
      else otherProjects++;
    } catch (err) {
      refused.push({ ref: w.ref, id: w.sessionId, reason: errorMessage(err) });
    }
  }
  return { sessions, refused, otherProjects };
}

/** Fetches every `refs/braid/*` of the remote into the share repository; each ref with its commit. */
export async function fetchSharedRefs(git: ShareGit, remote: ShareRemote): Promise<{ ref: string; commit: string }[]> {
  const root = trackingRoot(remote);
  await git.check(['fetch', '--quiet', '--no-tags', '--prune', '--no-write-fetch-head', remote.url, `+${REF_ROOT}/*:${root}/*`], `fetch from ${remote.shown}`);
  return [...(await trackedTips(git, root))].map(([ref, commit]) => ({ ref, commit }));
}

function refused(ref: string, id: string, reason: string): PulledSession {
  return { ref, id, title: '', author: '', machineName: '', outcome: 'refused', bytes: 0, reason };
}

/** A session of this workspace's project: the same first commit when both know one, else the same folder name. */
export function sameProject(manifest: Manifest, req: Pick<PullRequest, 'rootCommit' | 'workspace'>): boolean {
  if (manifest.project.rootCommit && req.rootCommit) return manifest.project.rootCommit === req.rootCommit;
  return manifest.project.name === path.basename(req.workspace);
}

export interface Wanted {
  readonly ref: string;
  readonly commit: string;
  readonly machine: string;
  readonly sessionId: string;
}

function reportOf(w: Wanted, manifest: Manifest): Omit<PulledSession, 'outcome' | 'bytes'> {
  return { ref: w.ref, id: w.sessionId, title: manifest.title, author: manifest.author, machineName: manifest.machineName };
}

/** Whether the local copy is of this commit already; throws when the id is a session of this machine (or of another remote's machine). */
function isUnchanged(req: PullRequest, dir: string | undefined, w: Wanted): boolean {
  const existing = dir ? readState(req.store.layout.stateFile(dir)) : undefined;
  // A copy `braid sync` took in is this machine's to go on with: a sync, not a pull, brings what is new.
  if (existing && Object.values(existing.synced ?? {}).some((p) => p.ref === w.ref)) return true;
  if (existing && existing.shared?.machine !== w.machine)
    throw new ShareError(`a session of this machine has the id ${w.sessionId}; the remote's is not pulled over it`);
  return existing?.shared?.commit === w.commit;
}

async function pullOne(
  req: PullRequest,
  copies: NewCopies,
  dir: string | undefined,
  w: Wanted,
  manifest: Manifest,
  logs: Map<string, Pieces[]>,
): Promise<PulledSession> {
  const report = reportOf(w, manifest);
  const existing = dir ? readState(req.store.layout.stateFile(dir)) : undefined;
  const shared: SharedOrigin = {
    remote: req.remote.shown,
    machine: w.machine,
    machineName: manifest.machineName,
    author: manifest.author,
    ref: w.ref,
    commit: w.commit,
    pulledAt: Date.now(),
  };
  if (!dir || !existing) {
    const state = pulledState(w.sessionId, workspaceKey(req.workspace), req.workspace, manifest, shared);
    const bytes = await copies.write(state, logs);
    return { ...report, outcome: 'new', bytes };
  }
  let bytes = 0;
  for (const [agent, chunks] of logs) bytes += catchUp(req.store.layout.agentLog(dir, agent), chunks);
  // The sidecar before the state: whenever state.json names this commit, shared.json does too.
  writeSharedSidecar(req.store.layout.sharedFile(dir), { shared, workspaceDir: copyWorkspace(req, existing) });
  await req.store.update(w.sessionId, (s) => ({ ...s, title: manifest.title, shared }));
  indexFolder(req.store, dir);
  return { ...report, outcome: 'updated', bytes };
}

/** A copy pulled before pulls wrote `shared.json` gets it from its state.json's `shared`. */
function keepSidecar(req: PullRequest, dir: string): void {
  const file = req.store.layout.sharedFile(dir);
  if (readSharedSidecar(file)) return;
  const state = readState(req.store.layout.stateFile(dir));
  if (state.shared) writeSharedSidecar(file, { shared: state.shared, workspaceDir: copyWorkspace(req, state) });
}

/** The workspace folder of a local copy: its state's (it may be another clone's of the project), this pull's when that is no folder (a state rebuilt from the log names `.`). */
function copyWorkspace(req: PullRequest, state: StoredState): string {
  return path.isAbsolute(state.workspaceDir) ? state.workspaceDir : req.workspace;
}

/** Resolves after the event loop has taken the I/O that is ready (a pipe's output, fsyncs done). */
function nextTurnOfLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The blob `spec` names, or a ShareError saying it is missing or too big. */
export function blobOf(blobs: ReadonlyMap<string, Pieces | TooBig>, spec: string, max: number): Pieces {
  const blob = blobs.get(spec);
  const file = spec.slice(spec.indexOf(':') + 1);
  if (!blob) throw new ShareError(`its commit lacks ${file}`);
  if ('tooBig' in blob) throw new ShareError(`its ${file} is ${blob.tooBig} bytes, over the ${max} a pull reads`);
  return blob;
}

/** About this many bytes of chunks are read from git at a time (as the manifests say). */
const GROUP_BYTES = 32 * 1024 * 1024;

/**
 * The sessions to pull in groups of about `groupBytes` of logs, as their manifests say (a
 * manifest that says too little only makes its group bigger: each chunk's size is checked when read).
 */
function inGroups<T extends { manifest: Manifest }>(toRead: readonly T[], groupBytes: number): T[][] {
  const groups: T[][] = [];
  let bytes = groupBytes;
  for (const item of toRead) {
    if (bytes >= groupBytes) {
      groups.push([]);
      bytes = 0;
    }
    groups.at(-1)!.push(item);
    for (const log of Object.values(item.manifest.logs)) bytes += log.sourceBytes;
  }
  return groups;
}

/** Every chunk the sessions of a group name, read with one `git cat-file` (sizes checked first). */
function readChunks(git: ShareGit, toRead: readonly { w: Wanted; manifest: Manifest }[]): Promise<Map<string, Pieces | TooBig>> {
  const specs = toRead.flatMap(({ w, manifest }) =>
    Object.entries(manifest.logs).flatMap(([agent, log]) => log.chunks.map((c) => `${w.commit}:${chunkPath(agent, c)}`)),
  );
  return git.blobs(specs, MAX_CHUNK_BYTES);
}

/** One session's logs, each agent's chunks in order; the main log must begin with the `agent` record of this session. */
export function logsOf(blobs: ReadonlyMap<string, Pieces | TooBig>, w: Wanted, manifest: Manifest): Map<string, Pieces[]> {
  const logs = new Map<string, Pieces[]>();
  for (const [agent, log] of Object.entries(manifest.logs)) {
    logs.set(
      agent,
      log.chunks.map((c) => blobOf(blobs, `${w.commit}:${chunkPath(agent, c)}`, MAX_CHUNK_BYTES)),
    );
  }
  checkLogStart(logs, w.sessionId, manifest);
  return logs;
}

/**
 * A log taken in whole must begin with its session's `agent` record: this session's, or for a fork
 * (its manifest says so) the session it was copied from, whose first line a fork keeps.
 */
export function checkLogStart(logs: ReadonlyMap<string, Pieces[]>, sessionId: string, manifest: Manifest): void {
  const head = firstLine((logs.get('main') ?? []).flat());
  let record: { t?: unknown; sessionId?: unknown } | undefined;
  try {
    record = head ? (JSON.parse(head) as typeof record) : undefined;
  } catch {
    record = undefined;
  }
  const named = record?.sessionId === sessionId || (manifest.forkedFrom !== null && typeof record?.sessionId === 'string');
  if (record?.t !== 'agent' || !named) throw new ShareError('its main log does not begin with the session its ref names');
}

/**
 * The sessions a pull or a sync writes for the first time. Each is built in a folder of this
 * process's own and published by one rename, in batches (Publisher). Its main log is made ready
 * for the index on a worker thread (LogPreparer) while the next is written, so the index's row
 * and search documents do not wait for the log to be read back. `finish` publishes the rest.
 */
export class NewCopies {
  private readonly publisher: Publisher;
  private readonly preparer = new LogPreparer();

  constructor(private readonly store: SessionStore) {
    this.publisher = new Publisher(indexHooks(store));
  }

  /** Writes a session new here (`tail` ends its main log); the bytes its logs took from the remote. */
  async write(state: StoredState, logs: Map<string, Pieces[]>, tail?: string): Promise<number> {
    const layout = this.store.layout;
    const partial = `${layout.partialDir(state.workspaceKey, state.id)}.${process.pid}.${randomBytes(4).toString('hex')}`;
    let bytes = 0;
    let main: Promise<PreparedLog | undefined> | undefined;
    try {
      // Each folder made once, parents first (a recursive mkdir of the log's folder first fails twice: 1,000 sessions, 2,000 calls).
      fs.mkdirSync(partial, { recursive: true });
      fs.mkdirSync(layout.agentsDir(partial));
      for (const [agent, chunks] of logs) {
        const file = layout.agentLog(partial, agent);
        const pieces = [...chunks.flat(), ...(agent === 'main' && tail ? [Buffer.from(tail)] : [])];
        fs.mkdirSync(path.dirname(file));
        writeFile(file, 'w', pieces, false);
        if (agent === 'main') main = this.preparer.prepare(file, pieces);
        bytes += sizeOf(chunks.flat());
      }
      fs.writeFileSync(layout.stateFile(partial), stateText(state));
      // A pulled copy's origin, published with the state by the folder's one rename: a state rebuilt from the log reads it back.
      if (state.shared) fs.writeFileSync(layout.sharedFile(partial), sharedSidecarText({ shared: state.shared, workspaceDir: state.workspaceDir }));
    } catch (err) {
      await main; // the worker may be reading the log: removed once it is done
      fs.rmSync(partial, { recursive: true, force: true });
      throw err;
    }
    await this.publisher.add({ id: state.id, partial, final: layout.sessionDir(state.workspaceKey, state.id), log: main });
    return bytes;
  }

  /** Publishes every session written so far, then ends the worker; resolves when all are in place (or said to have failed). */
  async finish(): Promise<void> {
    try {
      await this.publisher.flush();
    } finally {
      await this.preparer.close();
    }
  }

  /** The sessions that could not be published so far (each said once). */
  takeFailures(): PublishFailure[] {
    return this.publisher.takeFailures();
  }
}

export function pulledState(id: string, key: string, workspace: string, manifest: Manifest, shared?: SharedOrigin): StoredState {
  return normalizeState({
    v: 2,
    id,
    workspaceKey: key,
    workspaceDir: workspace,
    createdAt: manifest.createdAt,
    title: manifest.title,
    titleSource: 'user',
    kind: 'conversation',
    visibility: 'visible',
    archived: false,
    forkedFrom: manifest.forkedFrom,
    queue: [],
    paused: null,
    ...(shared ? { shared } : {}),
  });
}

/**
 * Appends to a local copy's log the chunks it lacks, found by its size: the chunks before it must
 * end exactly there. A size between two chunks' ends (an append cut short) is mended by writing
 * the whole log again, atomically. Returns the bytes added.
 */
function catchUp(file: string, chunks: readonly Pieces[]): number {
  const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
  let end = 0;
  let k = 0;
  while (k < chunks.length && end + sizeOf(chunks[k]!) <= size) end += sizeOf(chunks[k++]!);
  if (end === size) {
    const rest = chunks.slice(k).flat();
    if (sizeOf(rest) === 0) return 0;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFile(file, 'a', rest, true);
    return sizeOf(rest);
  }
  replaceLog(file, 0, chunks.flat());
  return sizeOf(chunks.flat()) - size;
}

/**
 * Replaces `file` with its first `keep` bytes followed by `pieces`, synced, by one rename (a
 * reader sees the old log or the new one, never a part): a pulled copy cut short mended, or a
 * synced log made the remote's past where the two last met.
 */
export function replaceLog(file: string, keep: number, pieces: Pieces): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  replaceFileAtomic(file, (fd) => {
    if (keep > 0) copyPrefixInto(file, fd, keep);
    writePieces(fd, pieces, keep);
  });
}

/** The text of the first line of `pieces` (the bytes before its first newline), copying no more. */
function firstLine(pieces: Pieces): string {
  const parts: Buffer[] = [];
  for (const piece of pieces) {
    const nl = piece.indexOf(10);
    parts.push(nl < 0 ? piece : piece.subarray(0, nl));
    if (nl >= 0) break;
  }
  return Buffer.concat(parts).toString('utf8');
}

export function sizeOf(pieces: Pieces): number {
  return pieces.reduce((n, p) => n + p.length, 0);
}

/** Writes `pieces` to `file` (`w` from the start, `a` after its end), fsynced when `sync`. */
export function writeFile(file: string, flags: 'w' | 'a', pieces: Pieces, sync: boolean): void {
  const fd = fs.openSync(file, flags);
  try {
    writePieces(fd, pieces);
    if (sync) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `pieces` to the open file `fd`, at its current position or from byte `at` when given. */
function writePieces(fd: number, pieces: Pieces, at?: number): void {
  let position = at;
  for (const piece of pieces)
    for (let done = 0; done < piece.length;) {
      const n = fs.writeSync(fd, piece, done, piece.length - done, position);
      done += n;
      if (position !== undefined) position += n;
    }
}
