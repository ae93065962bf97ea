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
import type { FileTurn } from '../index/turnSearch';
import { readWireLog } from '../wire/wireReader';
import { injectedOf, isChangeUndo, isKnown, type CommitRecord, type FileChangeRecord, type KnownRecord } from '../wire/records';
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
  const { writes, commits } = readTurns(index, layout, workspaceKeys, real);
  const authors = replay(writes, now);
  return linesOf(now.toString('utf8')).map((line, i) => {
    const author = authors[i] ?? null;
    return { line: i + 1, text: line, author: author && withCommit(author, commits) };
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

/** The writes of `real` and the commits that changed it, from every turn the index names, in time order. */
function readTurns(index: SessionIndex, layout: StoreLayout, workspaceKeys: readonly string[], real: string): { writes: Write[]; commits: CommitRecord[] } {
  const writes: Write[] = [];
  const commits: CommitRecord[] = [];
  const seen = new Set<string>();
  const bySession = new Map<string, { key: string; turns: FileTurn[] }>();
  for (const key of workspaceKeys)
    for (const t of index.turnsOfFile(key, real)) {
      const session = bySession.get(t.id) ?? { key, turns: [] };
      session.turns.push(t);
      bySession.set(t.id, session);
    }
  for (const [id, { key, turns }] of bySession) {
    const workspaceDir = turns[0]!.workspaceDir;
    const dir = layout.sessionDir(key, id);
    const log = layout.agentLog(dir);
    const blobs = new BlobStore(layout.blobsDir(dir));
    for (const span of turns) {
      const records = recordsOf(log, span);
      const author = authorOf(id, span.turn, records);
      for (const r of records) {
        if (r.t === 'file_change' && pathOf(r.root ?? workspaceDir, r.path) === real) {
          // A fork copies its source's records: the same write is taken once.
          const key = `${r.ts}\0${r.toolCallId}\0${r.before}\0${r.after}`;
          if (seen.has(key)) continue;
          seen.add(key);
          writes.push({ record: r, blobs, author });
        } else if (r.t === 'commit' && r.files.some((f) => pathOf(r.root, f.path) === real)) commits.push(r);
      }
    }
  }
  writes.sort((a, b) => a.record.ts - b.record.ts);
  commits.sort((a, b) => a.at - b.at);
  return { writes, commits };
}

/** The records blame reads of a turn, from its span of the main log `log` (other types are skipped by their line's head, unparsed). */
function recordsOf(log: string, span: FileTurn): KnownRecord[] {
  const { records } = readWireLog(log, { start: span.start, end: span.end, only: ['turn_begin', 'message', 'file_change', 'commit'] });
  return records.filter((r): r is KnownRecord => isKnown(r) && (!('turn' in r) || r.turn === span.turn));
}

/** A turn as blame names it: its session, number, prompt and model. */
function authorOf(sessionId: string, turn: number, records: readonly KnownRecord[]): Write['author'] {
  const begin = records.find((r) => r.t === 'turn_begin');
  const prompt = records.find((r) => r.t === 'message' && r.message.role === 'user' && !injectedOf(r));
  return {
    sessionId,
    turn,
    prompt: prompt?.t === 'message' ? promptText(prompt.message) : '',
    model: begin?.t === 'turn_begin' && begin.model ? `${begin.model.provider}/${begin.model.id}` : null,
  };
}

/** A recorded path as an absolute one; undefined without a folder to resolve it in. */
function pathOf(root: string | undefined, recorded: string): string | undefined {
  return root === undefined ? undefined : path.resolve(root, recorded);
}

type Authors = (LineAuthor | null)[];

/**
 * The author of each line of `now`, replaying `writes` in order. A write's before-image is
 * compared with the image the last one left (lines changed between them lose their authors); its
 * after-image keeps the authors of the lines it kept and gives its lines to its turn. An image
 * seen before (a rewind or an Undo brought it back) gets back the authors it had then.
 */
function replay(writes: readonly Write[], now: Buffer): Authors {
  const known = new Map<string, Authors>();
  let lines: string[] = [];
  let authors: Authors = [];
  const follow = (hash: string | null, image: string[], own: LineAuthor | null) => {
    const again = hash ? known.get(hash) : undefined;
    const kept = keptLines(lines, image);
    authors = again ?? Array.from(kept, (from) => (from >= 0 ? authors[from]! : own));
    lines = image;
    if (hash) known.set(hash, authors);
  };
  let image: string | null | undefined; // the hash of the image the last write left
  for (const { record, blobs, author } of writes) {
    // Most writes begin from the image the last one left: it is not read again.
    const before = record.before === image ? undefined : imageOf(blobs, record.before);
    if (before) follow(record.before, before, null);
    const after = imageOf(blobs, record.after);
    image = after ? record.after : undefined;
    if (!after) {
      [lines, authors] = [[], []]; // removed, or its image is gone (braid gc): nothing to follow
      continue;
    }
    follow(record.after, after, isChangeUndo(record) ? null : { ...author, at: record.ts });
  }
  follow(sha256Hex(now), linesOf(now.toString('utf8')), null);
  return authors;
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
