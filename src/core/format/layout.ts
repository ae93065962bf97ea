import path from 'node:path';
import { isSessionId } from '../ids';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import { realPath, safeReaddir } from '../fs/probe';

/** Where everything lives under a store root (docs/reference.md, Files on disk). */
export class StoreLayout {
  constructor(readonly root: string) {}

  get indexFile(): string {
    return path.join(this.root, 'index.sqlite');
  }

  get indexLock(): string {
    return path.join(this.root, 'index.lock');
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

  stateFile(sessionDir: string): string {
    return path.join(sessionDir, 'state.json');
  }

  stateLock(sessionDir: string): string {
    return path.join(sessionDir, 'state.lock');
  }

  writerLock(sessionDir: string): string {
    return path.join(sessionDir, 'writer.lock');
  }

  agentLog(sessionDir: string, agentId = 'main'): string {
    return path.join(sessionDir, 'agents', agentId, 'wire.jsonl');
  }

  blobsDir(sessionDir: string): string {
    return path.join(sessionDir, 'blobs');
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
    return holdsWorkspace ? [this.sessionsDir, this.trashDir, this.indexFile, this.indexLock] : [root];
  }

  trashedSessionDir(workspaceKey: string, sessionId: string): string {
    if (!isSessionId(sessionId) || !isWorkspaceKey(workspaceKey)) throw new Error(`not a session: ${workspaceKey}/${sessionId}`);
    return path.join(this.trashDir, workspaceKey, sessionId);
  }
}

/** Every session folder under the store (or one workspace), skipping partials and stray files. */
export function listSessionFolders(layout: StoreLayout, workspaceKey?: string): Array<{ workspaceKey: string; id: string; dir: string }> {
  const found: Array<{ workspaceKey: string; id: string; dir: string }> = [];
  const keys = workspaceKey ? [workspaceKey] : safeReaddir(layout.sessionsDir).filter(isWorkspaceKey);
  for (const key of keys) {
    for (const id of safeReaddir(path.join(layout.sessionsDir, key))) {
      if (isSessionId(id)) found.push({ workspaceKey: key, id, dir: path.join(layout.sessionsDir, key, id) });
    }
  }
  return found;
}
