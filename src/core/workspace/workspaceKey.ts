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

/** `wd_<slug>_<first 12 hex of sha256(normalized path)>`: the folder name of a workspace's sessions. */
export function workspaceKey(dir: string): string {
  const hash = sha256Hex(normalizeWorkspacePath(dir)).slice(0, 12);
  return `wd_${workspaceSlug(dir)}_${hash}`;
}

const KEY = /^wd_[a-z0-9-]{1,32}_[0-9a-f]{12}$/;

/** True for a well-formed workspace key. */
export function isWorkspaceKey(value: string): boolean {
  return KEY.test(value);
}
