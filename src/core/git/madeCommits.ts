import { isCommitId } from './headCommit';
import type { SafeGit } from './safeGit';

/** A commit made during a turn, as its `commit` record keeps it (without the turn and the root). */
export interface MadeCommit {
  readonly commit: string;
  readonly parents: string[];
  readonly at: number;
  readonly subject: string;
  readonly files: { status: string; path: string }[];
  readonly moreFiles?: number;
}

/** At most this many commits are recorded for a turn (the newest), and this many files of each. */
const MAX_COMMITS = 100;
const MAX_FILES = 1000;

/** The longest subject kept, in characters. */
const MAX_SUBJECT = 500;

/**
 * The commits HEAD moved through from `before` to `after` that were made since `sinceMs`, oldest
 * first, with the files each changed against its first parent. One git process. A commit older
 * than `sinceMs` was not made during the turn (HEAD moved onto it by a checkout or a reset), so it
 * is left out. Undefined when git failed or printed what this does not read: nothing is recorded
 * rather than something wrong.
 */
export async function madeCommits(git: SafeGit, before: string | null, after: string, sinceMs: number): Promise<MadeCommit[] | undefined> {
  const range = before ? [after, `^${before}`] : [after];
  const out = await git.output([
    'log',
    `--max-count=${MAX_COMMITS}`,
    '--no-renames',
    '--name-status',
    '--no-ext-diff',
    '--no-textconv',
    '--no-show-signature',
    '-z',
    '--format=%x1e%H%x1f%P%x1f%ct%x1f%s',
    ...range,
    '--',
  ]);
  if (out === undefined) return undefined;
  const listed: MadeCommit[] = [];
  for (const chunk of out.split('\x1e').slice(1)) {
    const commit = parseCommit(chunk);
    if (!commit) return undefined;
    listed.push(commit);
  }
  // A subject holding the separators could fake a commit: git lists `after` first and no commit twice.
  if (listed[0]?.commit !== after || new Set(listed.map((c) => c.commit)).size !== listed.length) return undefined;
  return listed.filter((c) => c.at >= Math.floor(sinceMs / 1000) * 1000).reverse();
}

/** One commit of `git log -z --name-status` in the format above; undefined when it is not that. */
function parseCommit(chunk: string): MadeCommit | undefined {
  const end = chunk.indexOf('\0'); // git ends every commit's line with one
  if (end < 0) return undefined;
  const [id, parents, time, ...subject] = chunk.slice(0, end).split('\x1f');
  const seconds = Number(time);
  const parentIds = parents ? parents.split(' ') : [];
  if (!isCommitId(id) || !parentIds.every(isCommitId) || !Number.isSafeInteger(seconds)) return undefined;
  const fields = chunk
    .slice(end + 1)
    .replace(/^\n/, '')
    .split('\0');
  if (fields.at(-1) === '') fields.pop();
  if (fields.length % 2 !== 0) return undefined;
  const files: { status: string; path: string }[] = [];
  for (let i = 0; i < fields.length; i += 2) {
    const [status, file] = [fields[i]!, fields[i + 1]!];
    if (!/^[ACDMTUXB]$/.test(status) || file === '') return undefined;
    files.push({ status, path: file });
  }
  const kept = files.slice(0, MAX_FILES);
  return {
    commit: id,
    parents: parentIds,
    at: seconds * 1000,
    subject: subject.join('\x1f').slice(0, MAX_SUBJECT),
    files: kept,
    ...(files.length > kept.length ? { moreFiles: files.length - kept.length } : {}),
  };
}
