// From a line of code to the turn that wrote it (docs/reference.md, Blame). The index says which
// turns changed or committed a file; their spans of the logs give the writes (file_change: the
// file's images before and after, blobs of the session) and the commits. The writes are replayed
// in time order, each line carrying the turn that wrote it: a line a write keeps keeps its author,
// a line it adds is its turn's, and between two writes (someone else's edits) and from the last
// write to the file as it is now, only the lines kept unchanged keep an author.
import fs from 'node:fs';
import path from 'node:path';
import type { StoreLayout } from '../format/layout';
import { BlobStore } from '../format/blobStore';
import { keptLines } from '../format/keptLines';
import { linesOf } from '../format/lineDiff';
import { promptText } from '../format/messageText';
import { sha256Hex } from '../hash';
import type { SessionIndex } from '../index/sessionIndex';
import { readBlameMemo, writeBlameMemo, type BlameMemo, type MemoSpan } from './blameMemo';
import type { FileTurn } from '../index/turnSearch';
import { readWireLog } from '../wire/wireReader';
import { isChangeUndo, isKnown, isPromptRecord, parseRecordLine, type CommitRecord, type FileChangeRecord, type KnownRecord } from '../wire/records';
import { headType } from '../wire/lineHead';
import { walkLines } from '../wire/lineWalk';
import { workspaceKey } from '../workspace/workspaceKey';

/** The turn that wrote a line, and the commit that holds it. */
export interface LineAuthor {
  readonly sessionId: string;
  readonly turn: number;
  /** When the write was recorded (ms). */
  readonly at: number;
  /** The turn's prompt, as the user wrote it. */
  readonly prompt: string;
  /** `provider/id` of the turn's model; null when its turn_begin named none. */
  readonly model: string | null;
  /** The first commit recorded after the write that changed the file; absent while none was. */
  readonly commit?: { readonly id: string; readonly at: number; readonly subject: string };
}

/** A line of the file as it is now (numbered from 1), and who wrote it: null when no Braid turn did, or someone changed it since. */
export interface BlamedLine {
  readonly line: number;
  readonly text: string;
  readonly author: LineAuthor | null;
}

/** Files larger than this are not blamed: their lines are not followed. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** A write of the file by a turn, with what blame needs of its turn and session. */
interface Write {
  readonly record: FileChangeRecord;
  /** The session (workspace key, id) whose blobs hold the write's images. */
  readonly session: readonly [string, string];
  readonly blobs: BlobStore;
  readonly author: Omit<LineAuthor, 'commit' | 'at'>;
}

/**
 * The lines of `file` with the turns of the sessions of `workspaceKeys` that wrote them. The file
 * as it is now is read from disk, or is `text` when given (an editor's unsaved buffer).
 */
export function blameFile(index: SessionIndex, layout: StoreLayout, workspaceKeys: readonly string[], file: string, text?: string): BlamedLine[] {
  const real = fs.realpathSync(file);
  const now = text === undefined ? readNow(file, real) : Buffer.from(text, 'utf8');
  if (now.length > MAX_FILE_BYTES) throw new Error(`${file} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB: its lines are not followed`);
  const spans = workspaceKeys.flatMap((key) => index.turnsOfFile(key, real).map((t) => ({ ...t, key })));
  const { authors, commits } = followed(layout, workspaceKeys, real, spans, now);
  return linesOf(now.toString('utf8')).map((line, i) => {
    const author = authors[i] ?? null;
    return { line: i + 1, text: line, author: author && withCommit(author, commits) };
  });
}

/**
 * The authors of the lines of `now`, and the commits of the file: going on from the memo of the
 * last blame of the file when it can (only the spans new or grown since are read), else replaying
 * every write; the memo is then kept for the next blame.
 */
function followed(
  layout: StoreLayout,
  keys: readonly string[],
  real: string,
  spans: readonly Span[],
  now: Buffer,
): { authors: Authors; commits: CommitRecord[] } {
  const memo = readBlameMemo(layout, keys, real);
  try {
    const on = memo && goOn(layout, memo, spans, real);
    if (on) return { authors: on.follower.end(now), commits: on.commits };
  } catch {
    // SeenBefore, or a memo not as this version writes them: every write is replayed (and what cannot be read is said then)
  }
  const { writes, commits } = readWrites(layout, spans, real, new Set());
  const follower = new Follower();
  for (const w of writes) follower.write(w);
  if (spans.length > 0) keepMemo(layout, keys, real, spans, follower, commits);
  return { authors: follower.end(now), commits };
}

/**
 * The memo's follower taken on through the writes of the spans new or grown since it was kept;
 * undefined when it cannot be (a span it read is gone or shorter, a new write is not later than
 * its last, or the last image's blob is gone). Throws SeenBefore when a write brings back an
 * image whose authors the memo did not keep.
 */
function goOn(layout: StoreLayout, memo: BlameMemo, spans: readonly Span[], real: string): { follower: Follower; commits: CommitRecord[] } | undefined {
  const ends = new Map(spans.map((s) => [spanKey(s), s.end]));
  if (memo.spans.some((s) => (ends.get(spanKey(s)) ?? -1) < s.end)) return undefined;
  const read = new Map(memo.spans.map((s) => [spanKey(s), s.end]));
  const fresh = spans.filter((s) => read.get(spanKey(s)) !== s.end);
  const { writes, commits } = readWrites(layout, fresh, real, new Set(memo.writes));
  if (writes.some((w) => w.record.ts <= memo.lastAt)) return undefined;
  const follower = Follower.fromMemo(layout, memo);
  if (!follower) return undefined;
  for (const w of writes) follower.write(w);
  const known = new Set(memo.commits.map((c) => `${c.commit}\0${c.at}`));
  const all = [...memo.commits, ...commits.filter((c) => !known.has(`${c.commit}\0${c.at}`))].sort((a, b) => a.at - b.at);
  if (fresh.length > 0) keepMemo(layout, memo.keys, real, spans, follower, all);
  return { follower, commits: all };
}

function spanKey(s: MemoSpan): string {
  return `${s.key}\0${s.id}\0${s.turn}\0${s.start}`;
}

function keepMemo(layout: StoreLayout, keys: readonly string[], file: string, spans: readonly Span[], follower: Follower, commits: CommitRecord[]): void {
  writeBlameMemo(layout, {
    file,
    keys,
    spans: spans.map(({ key, id, turn, start, end }) => ({ key, id, turn, start, end })),
    commits,
    ...follower.memo(),
  });
}

/** The bytes of the file at `real` (`file` resolved), refused when it is not a file, too large, or binary. */
function readNow(file: string, real: string): Buffer {
  const stat = fs.statSync(real);
  if (!stat.isFile()) throw new Error(`${file} is not a file`);
  if (stat.size > MAX_FILE_BYTES) throw new Error(`${file} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB: its lines are not followed`);
  const now = fs.readFileSync(real);
  if (now.includes(0)) throw new Error(`${file} is a binary file`);
  return now;
}

/**
 * The workspaces whose sessions may have written `file`: `workspaceDir`'s, and those of the
 * folders above the file, each only when the store has sessions of it.
 */
export function blameWorkspaceKeys(index: SessionIndex, workspaceDir: string | undefined, file: string): string[] {
  const folders = [path.dirname(file)];
  while (path.dirname(folders.at(-1)!) !== folders.at(-1)) folders.push(path.dirname(folders.at(-1)!));
  if (workspaceDir !== undefined) folders.unshift(workspaceDir);
  return [...new Set(folders.map(workspaceKey))].filter((k) => index.holdsWorkspace(k));
}

/** A turn that changed or committed the file, with the workspace its session is in. */
type Span = FileTurn & { readonly key: string };

/**
 * The writes of `real` and the commits that changed it, from `spans`, in time order; a write whose
 * key is in `taken` is passed over, and each one read is added (a fork copies its source's
 * records: the same write is taken once).
 */
function readWrites(layout: StoreLayout, spans: readonly Span[], real: string, taken: Set<string>): { writes: Write[]; commits: CommitRecord[] } {
  const writes: Write[] = [];
  const commits: CommitRecord[] = [];
  for (const span of spans) {
    const dir = layout.sessionDir(span.key, span.id);
    const log = layout.agentLog(dir);
    const records = recordsOf(log, span);
    const author = authorOf(span.id, span, log, records);
    const blobs = new BlobStore(layout.blobsDir(dir));
    for (const r of records) {
      if (r.t === 'file_change' && pathOf(r.root ?? span.workspaceDir, r.path) === real) {
        const key = writeKey(r);
        if (taken.has(key)) continue;
        taken.add(key);
        writes.push({ record: r, session: [span.key, span.id], blobs, author });
      } else if (r.t === 'commit' && r.files.some((f) => pathOf(r.root, f.path) === real)) commits.push(r);
    }
  }
  writes.sort((a, b) => a.record.ts - b.record.ts);
  commits.sort((a, b) => a.at - b.at);
  return { writes, commits };
}

function writeKey(r: FileChangeRecord): string {
  return `${r.ts}\0${r.toolCallId}\0${r.before}\0${r.after}`;
}

/** The records blame reads of a turn, from its span of the main log `log` (other types are skipped by their line's head, unparsed). */
function recordsOf(log: string, span: FileTurn): KnownRecord[] {
  const { records } = readWireLog(log, { start: span.start, end: span.end, only: ['turn_begin', 'file_change', 'commit'] });
  return records.filter((r): r is KnownRecord => isKnown(r) && ofTurn(r, span.turn));
}

function ofTurn(record: KnownRecord, turn: number): boolean {
  return !('turn' in record) || record.turn === turn;
}

/** A turn as blame names it: its session, number, prompt and model. */
function authorOf(sessionId: string, span: FileTurn, log: string, records: readonly KnownRecord[]): Write['author'] {
  const begin = records.find((r) => r.t === 'turn_begin');
  return {
    sessionId,
    turn: span.turn,
    prompt: promptOf(log, span),
    model: begin?.t === 'turn_begin' && begin.model ? `${begin.model.provider}/${begin.model.id}` : null,
  };
}

/**
 * The turn's prompt (its first user message that is not injected context), '' when it has none.
 * The walk ends at the prompt, near the span's start: the rest of the turn's messages (tool
 * outputs, most of its bytes) are not parsed.
 */
function promptOf(log: string, span: FileTurn): string {
  const fd = fs.openSync(log, 'r');
  let prompt = '';
  try {
    walkLines(fd, span.start, span.end, {
      line: (buf, start, end) => {
        const type = headType(buf, start, end);
        if (type !== undefined && type !== 'message') return true;
        const read = parseRecordLine(buf.toString('utf8', start, end));
        const record = 'record' in read && isKnown(read.record) ? read.record : undefined;
        if (record?.t !== 'message' || !ofTurn(record, span.turn) || !isPromptRecord(record)) return true;
        prompt = promptText(record.message);
        return false;
      },
      overlong: () => undefined,
    });
  } finally {
    fs.closeSync(fd);
  }
  return prompt;
}

/** A recorded path as an absolute one; undefined without a folder to resolve it in. */
function pathOf(root: string | undefined, recorded: string): string | undefined {
  return root === undefined ? undefined : path.resolve(root, recorded);
}

type Authors = (LineAuthor | null)[];

/** A write brought back an image whose authors a memo did not keep: every write is replayed instead. */
class SeenBefore extends Error {}

/**
 * The authors of a file's lines, followed through its writes in time order. A write's
 * before-image is compared with the image the last one left (lines changed between them lose
 * their authors); its after-image keeps the authors of the lines it kept and gives its lines to
 * its turn. An image seen before (a rewind or an Undo brought it back) gets back the authors it
 * had then.
 */
class Follower {
  /** The authors each image seen had; null for an image a memo names without them. */
  private readonly known = new Map<string, Authors | null>();
  private readonly taken: string[] = [];
  private lines: string[] = [];
  private authors: Authors = [];
  /** The hash of the image the last write left; null when it removed the file or its image is gone. */
  private image: string | null = null;
  private imageSession: readonly [string, string] | null = null;
  private lastAt = -1;

  /** A follower where a memo left it; undefined when the last image's blob is gone. */
  static fromMemo(layout: StoreLayout, memo: BlameMemo): Follower | undefined {
    const f = new Follower();
    const [key, id] = memo.imageSession ?? ['', ''];
    const lines = memo.image === null ? [] : imageOf(new BlobStore(layout.blobsDir(layout.sessionDir(key, id))), memo.image);
    if (!lines || lines.length !== memo.lineAuthors.length) return undefined;
    f.lines = lines;
    f.authors = memo.lineAuthors.map((a) => (a < 0 ? null : memo.authors[a]!));
    for (const hash of memo.images) f.known.set(hash, null);
    if (memo.image !== null) f.known.set(memo.image, f.authors);
    [f.image, f.imageSession, f.lastAt] = [memo.image, memo.imageSession, memo.lastAt];
    f.taken.push(...memo.writes);
    return f;
  }

  write({ record, session, blobs, author }: Write): void {
    this.taken.push(writeKey(record));
    this.lastAt = record.ts;
    // Most writes begin from the image the last one left: it is not read again.
    const before = record.before === this.image ? undefined : imageOf(blobs, record.before);
    if (before) this.follow(record.before, before, null);
    const after = imageOf(blobs, record.after);
    [this.image, this.imageSession] = after && record.after !== null ? [record.after, session] : [null, null];
    if (!after) {
      [this.lines, this.authors] = [[], []]; // removed, or its image is gone (braid gc): nothing to follow
      return;
    }
    this.follow(record.after, after, isChangeUndo(record) ? null : { ...author, at: record.ts });
  }

  /** The authors of the lines of the file as it is now. */
  end(now: Buffer): Authors {
    this.follow(sha256Hex(now), linesOf(now.toString('utf8')), null);
    return this.authors;
  }

  /** What a memo keeps of this follower (before `end`). */
  memo(): Pick<BlameMemo, 'writes' | 'lastAt' | 'images' | 'image' | 'imageSession' | 'authors' | 'lineAuthors'> {
    const authors = [...new Set(this.authors.filter((a): a is LineAuthor => a !== null))];
    const at = new Map(authors.map((a, i) => [a, i]));
    return {
      writes: this.taken,
      lastAt: this.lastAt,
      images: [...this.known.keys()],
      image: this.image,
      imageSession: this.imageSession,
      authors: authors.map(({ sessionId, turn, at, prompt, model }) => ({ sessionId, turn, at, prompt, model })),
      lineAuthors: this.authors.map((a) => (a ? at.get(a)! : -1)),
    };
  }

  private follow(hash: string | null, image: string[], own: LineAuthor | null): void {
    const again = hash ? this.known.get(hash) : undefined;
    if (again === null) throw new SeenBefore();
    const kept = keptLines(this.lines, image);
    this.authors = again ?? Array.from(kept, (from) => (from >= 0 ? this.authors[from]! : own));
    this.lines = image;
    if (hash) this.known.set(hash, this.authors);
  }
}

/** The lines of a blob; an empty file for null (absent), undefined when the blob is not there. */
function imageOf(blobs: BlobStore, hash: string | null): string[] | undefined {
  if (hash === null) return [];
  const bytes = blobs.find(hash);
  return bytes && linesOf(bytes.toString('utf8'));
}

/** The author with the first commit of the file recorded at or after the write (commit times are whole seconds). */
function withCommit(author: LineAuthor, commits: readonly CommitRecord[]): LineAuthor {
  const commit = commits.find((c) => c.at >= Math.floor(author.at / 1000) * 1000);
  return commit ? { ...author, commit: { id: commit.commit, at: commit.at, subject: commit.subject } } : author;
}
