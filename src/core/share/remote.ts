import path from 'node:path';
import { sha256Hex } from '../hash';
import { ShareError } from './shareError';

/**
 * The protocols a share remote may use: a path or `file://`, git's own, ssh and http(s). Others
 * (`ext::`, `fd::`, a remote helper) start a program the URL names, so git is told to refuse them.
 */
export const SHARE_PROTOCOLS = ['file', 'git', 'ssh', 'http', 'https'] as const;

/** A remote the user named for push, pull or sync: where git talks to, and how Braid shows it. */
export interface ShareRemote {
  /** What git is given: a URL, an scp-like `host:path`, or an absolute path. */
  readonly url: string;
  /** The URL without a user's password or token: what is printed and kept in a pulled session. */
  readonly shown: string;
}

/**
 * The remote `spec` names: a URL or path as it is, or (`nameToUrl`) the URL of a remote of the
 * workspace's repository. Refused: an empty name, one starting with `-` (git would read an option),
 * a control character, and a transport other than {@link SHARE_PROTOCOLS}.
 */
export async function shareRemote(spec: string, cwd: string, nameToUrl: (name: string) => Promise<string | undefined>): Promise<ShareRemote> {
  const given = spec.trim();
  if (!given) throw new ShareError('--remote names no remote: give a URL, a path or the name of a git remote of this repository.');
  if (given.startsWith('-')) throw new ShareError(`--remote ${JSON.stringify(given)}: a remote cannot start with "-".`);
  const url = looksLikeUrl(given) ? given : ((await nameToUrl(given)) ?? refuseName(given));
  checkUrl(url, given);
  const absolute = isLocalPath(url) && !url.startsWith('file:') ? path.resolve(cwd, url) : url;
  return { url: absolute, shown: withoutPassword(absolute) };
}

function refuseName(name: string): never {
  throw new ShareError(`--remote ${JSON.stringify(name)}: not a URL or path, and this repository has no git remote of that name.`);
}

/** A URL (`scheme://`), an scp-like `host:path`, or a path (absolute, `./`, `../`). */
function looksLikeUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^[^/:]+@[^/:]+:/.test(s) || isLocalPath(s);
}

function isLocalPath(s: string): boolean {
  return s.startsWith('/') || s.startsWith('./') || s.startsWith('../') || s.startsWith('file://');
}

function checkUrl(url: string, given: string): void {
  const say = (why: string): never => {
    throw new ShareError(`--remote ${JSON.stringify(given)}: ${why}`);
  };
  if (url.startsWith('-')) say('a remote cannot start with "-".');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(url)) say('the remote holds a control character.');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme && !(SHARE_PROTOCOLS as readonly string[]).includes(scheme)) say(`the ${scheme} transport is not allowed (only ${SHARE_PROTOCOLS.join(', ')}).`);
  if (!scheme && /^[a-z][a-z0-9+.-]*::/i.test(url)) say('a remote helper (<transport>::<address>) is not allowed.');
}

/** `https://user:token@host/x` shown as `https://user@host/x`. */
function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1@');
}

/** A remote's key in a session's sync points and the share repository's refs: its shown URL's hash (a password changed is the same remote). */
export function remoteKey(remote: ShareRemote): string {
  return sha256Hex(remote.shown).slice(0, 16);
}

/** Where the share repository mirrors the remote's `refs/braid/*`. */
export function trackingRoot(remote: ShareRemote): string {
  return `refs/remote-braid/${remoteKey(remote)}`;
}
