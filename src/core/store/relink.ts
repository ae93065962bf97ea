import fs from 'node:fs';
import path from 'node:path';
import { counted } from '../counted';
import { fsyncDir, writeFileAtomic } from '../fs/atomic';
import { realPath, safeReaddir } from '../fs/probe';
import { sha256Hex } from '../hash';
import { identityOf } from '../git/worktree';
import { listSessionFolders } from '../format/layout';
import { readState, relinkedStateFile, storedPart, type RepoIdentity, type StoredState } from '../format/sessionState';
import { readWireLog } from '../wire/wireReader';
import type { FileChangeRecord } from '../wire/records';
import { WireLogWriter } from '../wire/wireLog';
import { canonicalWorkspaceDir, isWorkspaceKey, spelledWorkspaceKey, workspaceKey } from '../workspace/workspaceKey';
import type { StoreContext } from './storeContext';
import { moveSessionFolder } from './moveSession';
import { SessionBusyError } from './writerLease';
import { SharedSessionError } from './errors';

/** Sessions of another workspace key that belong to a folder: why Braid thinks so. */
export type RelinkReason = 'same folder' | 'same repository' | 'same name and files';

/** The sessions recorded under an old path that a folder can take over. */
export interface RelinkCandidate {
  readonly fromKey: string;
  /** The folder the sessions recorded (gone, or another spelling of this one). */
  readonly fromDir: string;
  readonly sessionIds: readonly string[];
  readonly reason: RelinkReason;
}

/** A relink that cannot be done as asked; the message says why and what to do. */
export class RelinkError extends Error {
  override readonly name = 'RelinkError';
}

/** Files a content check reads at most, and their largest size. */
const CHECKED_FILES = 20;
const MAX_CHECKED_BYTES = 1024 * 1024;

/** The states of a workspace key's sessions (unreadable ones left out). */
function statesOf(store: StoreContext, key: string): Array<{ dir: string; state: StoredState }> {
  return listSessionFolders(store.layout, key).flatMap((f) => {
    try {
      return [{ dir: f.dir, state: readState(store.layout.stateFile(f.dir)) }];
    } catch {
      return [];
    }
  });
}

/**
 * Whether `dir` holds the files the sessions last wrote: of their latest file changes (up to
 * 20), at least one and at least half are there with the content Braid wrote.
 */
function filesMatch(store: StoreContext, dirs: readonly string[], folder: string): boolean {
  const changes: FileChangeRecord[] = [];
  for (const dir of dirs) {
    const { records } = readWireLog(store.layout.agentLog(dir), { only: ['file_change'] });
    changes.push(...records.filter((r): r is FileChangeRecord => r.t === 'file_change' && (r as FileChangeRecord).after !== null));
  }
  const latest = new Map<string, string>();
  for (const c of changes.sort((a, b) => b.ts - a.ts)) if (!latest.has(c.path)) latest.set(c.path, c.after!);
  const checked = [...latest].slice(0, CHECKED_FILES);
  let same = 0;
  for (const [rel, hash] of checked) {
    const file = path.join(folder, rel);
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (stat?.isFile() && stat.size <= MAX_CHECKED_BYTES && sha256Hex(fs.readFileSync(file)) === hash) same++;
  }
  return same > 0 && same * 2 >= checked.length;
}

/**
 * Sessions a folder with none of its own can take over (docs/architecture.md, Re-linking a moved
 * folder): those recorded under another spelling of it (a link, `..`, case), or under a folder
 * that no longer exists and held the same repository (origin and first commit; `identity`, asked
 * of git only in a trusted workspace) or a folder of the same name whose files Braid last wrote are here.
 */
export function relinkCandidates(store: StoreContext, folder: string, identity?: RepoIdentity): RelinkCandidate[] {
  const here = canonicalWorkspaceDir(folder);
  const key = workspaceKey(here);
  if (listSessionFolders(store.layout, key).length > 0) return [];
  const found: RelinkCandidate[] = [];
  for (const other of safeReaddir(store.layout.sessionsDir).filter((k) => isWorkspaceKey(k) && k !== key)) {
    const states = statesOf(store, other);
    const first = states[0]?.state;
    if (!first) continue;
    const real = realPath(first.workspaceDir);
    let reason: RelinkReason | undefined;
    if (real !== undefined) reason = real === here ? 'same folder' : undefined;
    else if (identity && states.some((s) => s.state.identity?.rootCommit === identity.rootCommit && s.state.identity?.remote === identity.remote))
      reason = 'same repository';
    else if (path.basename(first.workspaceDir) === path.basename(here) && filesMatch(store, states.map((s) => s.dir).slice(0, 50), here))
      reason = 'same name and files';
    if (reason) found.push({ fromKey: other, fromDir: first.workspaceDir, sessionIds: states.map((s) => s.state.id), reason });
  }
  return found;
}

/** The repository identity of a folder for {@link relinkCandidates}; git runs only when the caller may run it (a trusted workspace). */
export const folderIdentity = identityOf;

/** `p` with the prefix `from` replaced by `to` (a folder inside the moved one moves with it). */
function moved(p: string, from: string, to: string): string {
  const rel = path.relative(from, p);
  return rel.startsWith('..') || path.isAbsolute(rel) ? p : path.join(to, rel);
}

/**
 * Moves one session folder under the key of `toDir`: a `relinked` record in its log, its next
 * state written beside state.json, then one rename of the folder (a crash after it is finished by
 * the next read of its state), the state put in place and the index told.
 */
async function relinkOne(store: StoreContext, dir: string, toDir: string): Promise<void> {
  const toKey = workspaceKey(toDir);
  const id = path.basename(dir);
  const target = store.layout.sessionDir(toKey, id);
  if (fs.existsSync(target)) throw new RelinkError(`session ${id} exists already under ${toDir}; it was re-linked before`);
  const prepare = async () => {
    const old = readState(store.layout.stateFile(dir));
    const log = WireLogWriter.open(store.layout.agentLog(dir));
    await log.append({ t: 'relinked', from: old.workspaceDir, to: toDir }, { durable: true });
    await log.close();
    const next: StoredState = {
      ...old,
      workspaceKey: toKey,
      workspaceDir: toDir,
      relinkedFrom: [...new Set([...(old.relinkedFrom ?? []), old.workspaceDir])],
      ...(old.workspaceFolders ? { workspaceFolders: old.workspaceFolders.map((f) => moved(f, old.workspaceDir, toDir)) } : {}),
    };
    writeFileAtomic(relinkedStateFile(store.layout.stateFile(dir)), `${JSON.stringify(storedPart(next), null, 2)}\n`);
  };
  try {
    await moveSessionFolder(store.layout, dir, target, prepare);
  } catch (err) {
    if (err instanceof SessionBusyError) throw new RelinkError(`session ${id} is being written by another window or the CLI; close it there, then re-link`);
    throw err;
  }
  fs.renameSync(relinkedStateFile(store.layout.stateFile(target)), store.layout.stateFile(target));
  fsyncDir(target);
  store.index.removeSession(id);
  store.index.rereadFolder(target);
}

/** The key sessions recorded under `dir` are kept in: as Braid spells it now, or as an earlier Braid spelled it (links and `..` kept). */
function recordedKey(store: StoreContext, dir: string): string {
  const now = workspaceKey(dir);
  const spelled = spelledWorkspaceKey(dir);
  return listSessionFolders(store.layout, now).length === 0 && listSessionFolders(store.layout, spelled).length > 0 ? spelled : now;
}

/** What a relink did. */
export interface RelinkResult {
  readonly fromKey: string;
  readonly toDir: string;
  readonly moved: readonly string[];
}

/**
 * Re-links the sessions recorded under `fromDir` (its workspace key) to the folder `toDir`: each
 * session folder moved by one rename, with a `relinked` record, the index updated. Refused while
 * `fromDir` still exists as another folder (its sessions are its own) or `toDir` does not.
 */
export async function relinkSessions(store: StoreContext, fromDir: string, toDir: string, fromKey = recordedKey(store, fromDir)): Promise<RelinkResult> {
  const to = canonicalWorkspaceDir(toDir);
  if (!fs.statSync(to, { throwIfNoEntry: false })?.isDirectory()) throw new RelinkError(`${toDir} is not a folder; give the folder the sessions moved to`);
  const fromReal = realPath(fromDir);
  if (fromReal !== undefined && fromReal !== to)
    throw new RelinkError(`${fromDir} still exists, so its sessions are its own; re-link only from a folder that was moved or renamed`);
  const toKey = workspaceKey(to);
  if (fromKey === toKey) throw new RelinkError(`${fromDir} and ${toDir} are one folder with one key; there is nothing to re-link`);
  const folders = listSessionFolders(store.layout, fromKey);
  if (!folders.length) throw new RelinkError(`no sessions are recorded under ${fromDir}`);
  const moved: string[] = [];
  let pulled = 0;
  for (const folder of folders) {
    try {
      await relinkOne(store, folder.dir, to);
      moved.push(folder.id);
    } catch (err) {
      // A pulled session is read-only here (its log is another machine's): it stays, and a pull in the moved folder brings it again.
      if (!(err instanceof SharedSessionError)) throw err;
      pulled++;
    }
  }
  // The worktree forks that its tree listed follow it.
  const links = store.layout.worktreeLinksDir(fromKey);
  if (fs.existsSync(links) && !fs.existsSync(store.layout.worktreeLinksDir(toKey))) fs.renameSync(links, store.layout.worktreeLinksDir(toKey));
  const left = pulled ? `; left ${counted(pulled, 'session')} pulled from a git remote where ${pulled === 1 ? 'it was' : 'they were'} (read-only here)` : '';
  store.logger.info(`re-linked ${counted(moved.length, 'session')} from ${fromDir} to ${to}${left}`);
  return { fromKey, toDir: to, moved };
}
