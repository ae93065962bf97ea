import path from 'node:path';
import { isSessionId } from '../ids';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import { realPath, safeReaddir } from '../fs/probe';

/**
 * The files of one session folder. They are the same under every store root, so a reader given
 * only a folder (a session's summary) finds them here; StoreLayout hands out the same functions.
 */
export const sessionFolderLayout = {
  stateFile: (sessionDir: string): string => path.join(sessionDir, 'state.json'),
  stateLock: (sessionDir: string): string => path.join(sessionDir, 'state.lock'),
  writerLock: (sessionDir: string): string => path.join(sessionDir, 'writer.lock'),
  /** The folder of the agents' logs, one subfolder per agent. */
  agentsDir: (sessionDir: string): string => path.join(sessionDir, 'agents'),
  agentLog: (sessionDir: string, agentId = 'main'): string => path.join(sessionDir, 'agents', agentId, 'wire.jsonl'),
  blobsDir: (sessionDir: string): string => path.join(sessionDir, 'blobs'),
  /** The journal of a rewind or its undo while it runs (finished after a crash). */
  pendingRewindFile: (sessionDir: string): string => path.join(sessionDir, 'rewind.pending.json'),
  /** When a session in the trash was deleted (ms, one line); the folder's mtime when missing. */
  trashedAtFile: (sessionDir: string): string => path.join(sessionDir, '.trashed-at'),
  /** The fold of the main log, a cache kept beside it (format/foldFile.ts). */
  foldFile: (sessionDir: string): string => path.join(sessionDir, 'fold.json'),
  /** A pulled session's origin and workspace folder kept apart from state.json, so a state rebuilt from the log keeps them (format/sessionState.ts). */
  sharedFile: (sessionDir: string): string => path.join(sessionDir, 'shared.json'),
};

/**
 * The state.json and main log of a folder {@link listSessionFolders} listed, as
 * sessionFolderLayout names them, joined by hand: a listed path is normal already, and path.join's
 * normalizing doubled the time of the check of every folder each command makes.
 */
export function listedFolderFiles(dir: string): { state: string; mainLog: string } {
  const sep = path.sep;
  return { state: `${dir}${sep}state.json`, mainLog: `${dir}${sep}agents${sep}main${sep}wire.jsonl` };
}

/** Where everything lives under a store root (docs/reference.md, Files on disk). */
export class StoreLayout {
  readonly stateFile = sessionFolderLayout.stateFile;
  readonly stateLock = sessionFolderLayout.stateLock;
  readonly writerLock = sessionFolderLayout.writerLock;
  readonly agentsDir = sessionFolderLayout.agentsDir;
  readonly agentLog = sessionFolderLayout.agentLog;
  readonly blobsDir = sessionFolderLayout.blobsDir;
  readonly pendingRewindFile = sessionFolderLayout.pendingRewindFile;
  readonly trashedAtFile = sessionFolderLayout.trashedAtFile;
  readonly foldFile = sessionFolderLayout.foldFile;
  readonly sharedFile = sessionFolderLayout.sharedFile;

  constructor(readonly root: string) {}

  /** A workspace's index (a cache of its sessions' rows), beside its session folders. */
  indexFile(workspaceKey: string): string {
    return path.join(this.workspaceDir(workspaceKey), 'index.sqlite');
  }

  /** What git said of the repositories a workspace's sessions run in (src/core/git/repoFacts.ts): a cache, read by each fresh process. */
  gitFactsFile(workspaceKey: string): string {
    return path.join(this.workspaceDir(workspaceKey), 'git-facts.json');
  }

  /** The lock held while a workspace's index.sqlite is saved. */
  indexLock(workspaceKey: string): string {
    return path.join(this.workspaceDir(workspaceKey), 'index.lock');
  }

  /** The one index of every workspace that earlier versions kept at the root; no longer read (`braid doctor --fix` removes it). */
  get legacyIndexFile(): string {
    return path.join(this.root, 'index.sqlite');
  }

  get sessionsDir(): string {
    return path.join(this.root, 'sessions');
  }

  get trashDir(): string {
    return path.join(this.root, 'trash');
  }

  workspaceDir(workspaceKey: string): string {
    if (!isWorkspaceKey(workspaceKey)) throw new Error(`not a workspace key: ${workspaceKey}`);
    return path.join(this.sessionsDir, workspaceKey);
  }

  sessionDir(workspaceKey: string, sessionId: string): string {
    if (!isSessionId(sessionId)) throw new Error(`not a session id: ${sessionId}`);
    return path.join(this.workspaceDir(workspaceKey), sessionId);
  }

  partialDir(workspaceKey: string, sessionId: string): string {
    return path.join(this.workspaceDir(workspaceKey), `.partial-${sessionId}`);
  }

  /**
   * What tools must never read or write: the whole data folder, or, when a workspace folder lies
   * inside it, everything Braid keeps there (the sessions, the trash, the index).
   */
  protectedFrom(workspaceFolders: readonly string[]): string[] {
    const real = (p: string) => realPath(p) ?? path.resolve(p);
    const root = real(this.root);
    const holdsWorkspace = workspaceFolders.map(real).some((w) => w === root || w.startsWith(root + path.sep));
    const kept = [this.sessionsDir, this.trashDir, path.dirname(this.blameMemoDir), this.legacyIndexFile, path.join(this.root, 'index.lock')];
    return holdsWorkspace ? kept : [root];
  }

  /** The worktree workspaces a workspace's sessions were forked into, one empty file per key: its tree lists them too. */
  worktreeLinksDir(workspaceKey: string): string {
    if (!isWorkspaceKey(workspaceKey)) throw new Error(`not a workspace key: ${workspaceKey}`);
    return path.join(this.root, 'worktrees', workspaceKey);
  }

  /** What blame keeps of the files it followed (store/blameMemo.ts): a cache, rebuilt when absent. */
  get blameMemoDir(): string {
    return path.join(this.root, 'cache', 'blame');
  }

  /** Where `braid doctor --fix` moves orphan partial folders. */
  get trashedPartialsDir(): string {
    return path.join(this.trashDir, '.partials');
  }

  /** A workspace's folder in the trash (its deleted sessions). */
  trashedWorkspaceDir(workspaceKey: string): string {
    if (!isWorkspaceKey(workspaceKey)) throw new Error(`not a workspace key: ${workspaceKey}`);
    return path.join(this.trashDir, workspaceKey);
  }

  trashedSessionDir(workspaceKey: string, sessionId: string): string {
    if (!isSessionId(sessionId) || !isWorkspaceKey(workspaceKey)) throw new Error(`not a session: ${workspaceKey}/${sessionId}`);
    return path.join(this.trashedWorkspaceDir(workspaceKey), sessionId);
  }
}

/** The id of every session folder of the store (as listSessionFolders, without building paths). */
export function listSessionIds(layout: StoreLayout): string[] {
  const ids: string[] = [];
  for (const key of safeReaddir(layout.sessionsDir).filter(isWorkspaceKey)) {
    for (const id of safeReaddir(path.join(layout.sessionsDir, key))) if (isSessionId(id)) ids.push(id);
  }
  return ids;
}

/** Every session folder under the store (or one workspace), skipping partials and stray files. */
export function listSessionFolders(layout: StoreLayout, workspaceKey?: string): Array<{ workspaceKey: string; id: string; dir: string }> {
  const found: Array<{ workspaceKey: string; id: string; dir: string }> = [];
  const sessionsDir = layout.sessionsDir;
  const keys = workspaceKey ? [workspaceKey] : safeReaddir(sessionsDir).filter(isWorkspaceKey);
  for (const key of keys) {
    const workspace = path.join(sessionsDir, key);
    // Joined by hand: the names are a folder's entries, and path.join's normalizing cost more than the readdir.
    for (const id of safeReaddir(workspace)) if (isSessionId(id)) found.push({ workspaceKey: key, id, dir: workspace + path.sep + id });
  }
  return found;
}
