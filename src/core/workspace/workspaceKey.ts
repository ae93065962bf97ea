import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../hash';

/**
 * Normalizes a workspace path for hashing: backslashes to `/`, trailing slashes removed, and
 * Windows-style paths (with a drive letter) lower-cased, since those file systems ignore case.
 */
export function normalizeWorkspacePath(dir: string): string {
  let p = dir.replace(/\\/g, '/');
  while (p.length > 1 && p.endsWith('/') && !/^[A-Za-z]:\/$/.test(p)) p = p.slice(0, -1);
  if (/^[A-Za-z]:(\/|$)/.test(p) || p.startsWith('//')) p = p.toLowerCase();
  return p;
}

/**
 * One spelling for one folder: `..` and `.` resolved, trailing separators dropped, then, when the
 * folder exists, links followed and the case the file system keeps (a case-insensitive one
 * answers any case). A path that is not absolute on this system (a Windows path read on Linux)
 * is left to {@link normalizeWorkspacePath}.
 */
export function canonicalWorkspaceDir(dir: string): string {
  if (!path.isAbsolute(dir)) return dir;
  const resolved = path.resolve(dir);
  try {
    return fs.realpathSync.native(resolved);
  } catch {
    return resolved;
  }
}

/** The last path segment reduced to `[a-z0-9-]`, at most 32 characters. */
export function workspaceSlug(dir: string): string {
  const normalized = normalizeWorkspacePath(dir);
  const last = normalized.split('/').filter(Boolean).pop() ?? '';
  const slug = last
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 32)
    .replace(/-$/, '');
  return slug || 'root';
}

/** `wd_<slug>_<first 12 hex of sha256(normalized path)>`: the folder name of a workspace's sessions; every spelling of one folder (links, `..`, a trailing slash, case where the file system ignores it) has the same. */
export function workspaceKey(dir: string): string {
  const canonical = canonicalWorkspaceDir(dir);
  const hash = sha256Hex(normalizeWorkspacePath(canonical)).slice(0, 12);
  return `wd_${workspaceSlug(canonical)}_${hash}`;
}

/** The key of `dir` exactly as spelled (no link followed, no `..` resolved): the key Braid gave a folder before spellings were made one. */
export function spelledWorkspaceKey(dir: string): string {
  return `wd_${workspaceSlug(dir)}_${sha256Hex(normalizeWorkspacePath(dir)).slice(0, 12)}`;
}

const KEY = /^wd_[a-z0-9-]{1,32}_[0-9a-f]{12}$/;

/** True for a well-formed workspace key. */
export function isWorkspaceKey(value: string): boolean {
  return KEY.test(value);
}
