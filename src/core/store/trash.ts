import fs from 'node:fs';
import path from 'node:path';
import { sessionFolderLayout, type StoreLayout } from '../format/layout';
import { safeReaddir, statMtime } from '../fs/probe';
import { isSessionId } from '../ids';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import { folderBytes } from './storage';

/** Trash older than this is purged (docs/reference.md, Operations). */
export const TRASH_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** A session in the trash. */
export interface TrashedSession {
  readonly id: string;
  readonly workspaceKey: string;
  /** When it was deleted (ms). */
  readonly trashedAt: number;
}

/** Something in the trash past its retention: a deleted session, or a partial folder `braid doctor --fix` moved there. */
export interface ExpiredTrash {
  /** The session's id, or the partial folder's name. */
  readonly id: string;
  readonly kind: 'session' | 'partial';
  readonly workspaceKey: string | null;
  readonly dir: string;
  readonly trashedAt: number;
  readonly bytes: number;
}

/** Sessions in the trash, newest deletion first. */
export function listTrash(layout: StoreLayout): TrashedSession[] {
  const found: TrashedSession[] = [];
  for (const workspaceKey of safeReaddir(layout.trashDir).filter(isWorkspaceKey)) {
    for (const id of safeReaddir(layout.trashedWorkspaceDir(workspaceKey))) {
      if (!isSessionId(id)) continue;
      found.push({ id, workspaceKey, trashedAt: trashedAt(layout.trashedSessionDir(workspaceKey, id)) });
    }
  }
  return found.sort((a, b) => b.trashedAt - a.trashedAt);
}

/** What has been in the trash for the retention or longer at `now`, oldest first, with its size. */
export function expiredTrash(layout: StoreLayout, now = Date.now()): ExpiredTrash[] {
  const expired: ExpiredTrash[] = [];
  for (const t of listTrash(layout)) {
    if (now - t.trashedAt < TRASH_RETENTION_MS) continue;
    const dir = layout.trashedSessionDir(t.workspaceKey, t.id);
    expired.push({ id: t.id, kind: 'session', workspaceKey: t.workspaceKey, dir, trashedAt: t.trashedAt, bytes: folderBytes(dir) });
  }
  for (const name of safeReaddir(layout.trashedPartialsDir)) {
    const dir = path.join(layout.trashedPartialsDir, name);
    const at = statMtime(dir) ?? 0;
    if (now - at < TRASH_RETENTION_MS) continue;
    expired.push({ id: name, kind: 'partial', workspaceKey: null, dir, trashedAt: at, bytes: folderBytes(dir) });
  }
  return expired.sort((a, b) => a.trashedAt - b.trashedAt);
}

/** Removes a trash entry for good. */
export function removeTrashEntry(entry: ExpiredTrash): void {
  fs.rmSync(entry.dir, { recursive: true, force: true });
}

/** When a session in the trash was deleted: its `.trashed-at`, else the folder's time. */
function trashedAt(dir: string): number {
  try {
    const value = Number(fs.readFileSync(sessionFolderLayout.trashedAtFile(dir), 'utf8').trim());
    if (Number.isFinite(value)) return value;
  } catch {
    // fall back to the folder's time
  }
  return statMtime(dir) ?? 0;
}
