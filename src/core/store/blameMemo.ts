// What blame keeps of a file between runs (docs/reference.md, Blame): the authors of the lines the
// last write left, and which spans of which logs they came from. The next blame of the file reads
// only the spans that are new or grew since, and replays only their writes; anything else it
// cannot go on from (a span gone or moved, a write older than the last one followed, an image seen
// before whose authors were not kept) makes it replay every write, as without a memo.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { StoreLayout } from '../format/layout';
import type { CommitRecord } from '../wire/records';

/** Bumped when what blame answers, or what a memo holds, changes: an older memo is not read. */
const MEMO_VERSION = 1;

/** A turn's span of its session's main log, as the index names it, with the workspace the session is in. */
export interface MemoSpan {
  readonly key: string;
  readonly id: string;
  readonly turn: number;
  readonly start: number;
  readonly end: number;
}

/** The turn a line came from, without its commit (as the memo keeps it). */
export interface MemoAuthor {
  readonly sessionId: string;
  readonly turn: number;
  readonly at: number;
  readonly prompt: string;
  readonly model: string | null;
}

/** The state of following a file's lines after its last write, and what it was made from. */
export interface BlameMemo {
  readonly v: number;
  /** The file (its real path) and the workspaces whose sessions were read. */
  readonly file: string;
  readonly keys: readonly string[];
  /** Every span read. */
  readonly spans: readonly MemoSpan[];
  /** Every write taken (its key: a fork's copy of a write is taken once). */
  readonly writes: readonly string[];
  /** The time of the last write followed. */
  readonly lastAt: number;
  /** Every image seen (their authors are not kept, but for the last one's). */
  readonly images: readonly string[];
  /** The image the last write left; null when it removed the file, or its image is gone. */
  readonly image: string | null;
  /** The session (workspace key, id) whose blobs hold `image`. */
  readonly imageSession: readonly [string, string] | null;
  /** The authors of the lines of `image`, as indexes into `authors` (-1: no one). */
  readonly authors: readonly MemoAuthor[];
  readonly lineAuthors: readonly number[];
  /** The commits recorded that changed the file. */
  readonly commits: readonly CommitRecord[];
}

/** The memo of `file` blamed over `keys`; undefined when there is none, or it is of another version or unreadable. */
export function readBlameMemo(layout: StoreLayout, keys: readonly string[], file: string): BlameMemo | undefined {
  try {
    const memo = JSON.parse(fs.readFileSync(memoFile(layout, keys, file), 'utf8')) as BlameMemo;
    if (memo.v !== MEMO_VERSION || memo.file !== file || JSON.stringify(memo.keys) !== JSON.stringify(keys)) return undefined;
    const count = memo.authors.length;
    if (!memo.lineAuthors.every((a) => Number.isInteger(a) && a >= -1 && a < count)) return undefined;
    return memo;
  } catch {
    return undefined;
  }
}

/** Replaces the memo of `memo.file` (a temp file renamed over it, unsynced: a memo lost costs one full replay); never throws. */
export function writeBlameMemo(layout: StoreLayout, memo: Omit<BlameMemo, 'v'>): void {
  const file = memoFile(layout, memo.keys, memo.file);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${Date.now()}`); // as the doctor's sweep names them
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(temp, JSON.stringify({ v: MEMO_VERSION, ...memo }));
    fs.renameSync(temp, file);
  } catch {
    fs.rmSync(temp, { force: true });
  }
}

/** Removes every memo: after `braid gc` removed images, a replay would follow fewer lines than a memo says. */
export function dropBlameMemos(layout: StoreLayout): void {
  fs.rmSync(layout.blameMemoDir, { recursive: true, force: true });
}

function memoFile(layout: StoreLayout, keys: readonly string[], file: string): string {
  const name = crypto
    .createHash('sha256')
    .update(JSON.stringify([keys, file]))
    .digest('hex')
    .slice(0, 32);
  return path.join(layout.blameMemoDir, `${name}.json`);
}
