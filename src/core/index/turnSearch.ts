// Search over everything a session's turns said, kept turn by turn (docs/architecture.md, "The
// search index"). Each ended turn is one document of `turn_fts`, a contentless FTS4 table (it
// keeps the index, not the text): the turn's distinct words, read from its span of the main log
// when the index first sees it ended. `turn_docs` says whose turn a document is. Contentless FTS4
// cannot delete, so a document leaves search by its `turn_docs` row: a rewind marks the turns it
// dropped not live (its undo marks them live again), and a row dropped for good (a turn that grew
// after it was indexed, a title replaced, a session deleted) leaves entries that match no row
// until the index is rebuilt (`droppedDocuments` counts them).
import type { LogFold, TurnFacts } from '../format/logFold';
import type { SessionSummary } from '../format/summary';
import { distinctWords, ftsQuery, queryWords } from './searchText';
import { lastInsertRowid, queryAll, runPrepared, type Database, type SqlValue } from './sqlite';
import { SpanReader, turnContent } from './turnText';

export const TURN_SEARCH_SCHEMA = `
CREATE VIRTUAL TABLE turn_fts USING fts4(content="", matchinfo=fts3, words, tokenize=unicode61);
-- A document of turn_fts: a session's turn (turn 0, start -1: its title), what of the log it read
-- (start to span_end) and whether it is searched (live).
CREATE TABLE turn_docs (
  docid INTEGER PRIMARY KEY AUTOINCREMENT,
  session_seq INTEGER NOT NULL,
  turn INTEGER NOT NULL,
  start INTEGER NOT NULL,
  span_end INTEGER NOT NULL,
  live INTEGER NOT NULL,
  UNIQUE (session_seq, start)
);
-- The files a turn changed (its file_change records), relative to their workspace folder.
CREATE TABLE session_files (path TEXT NOT NULL, docid INTEGER NOT NULL, PRIMARY KEY (path, docid)) WITHOUT ROWID;
CREATE INDEX session_files_by_doc ON session_files(docid);
`;

/** The title's document: before every turn. */
const TITLE_START = -1;

interface Doc {
  docid: number;
  end: number;
  live: boolean;
}

/** A turn's search document: its distinct words (searchText.ts) and the files it changed. */
export interface TurnDocument {
  readonly words: string;
  readonly files: readonly string[];
}

/** A document made before the index wrote it (a pulled log's, on a worker thread): turn `turn`'s, of the log's bytes `start` to `end`. */
export interface PreparedDocument extends TurnDocument {
  readonly turn: number;
  readonly start: number;
  readonly end: number;
}

/** The document of turn `turn` in `bytes` (whole lines of its main log). */
export function turnDocument(bytes: Buffer, turn: number): TurnDocument {
  const content = turnContent(bytes, turn);
  return { words: distinctWords(content.texts), files: content.files };
}

/** The turns a session's documents are of, each with where its span ends: every ended turn of its turn map (or one a later turn follows). */
export function documentedTurns(fold: LogFold, logBytes: number): Array<{ turn: TurnFacts; end: number }> {
  const turns = fold.turns;
  return turns
    .filter((t, i) => t.outcome !== null || i < turns.length - 1) // a turn still running is indexed once it ends
    .map((turn) => ({ turn, end: Math.min(turn.end, logBytes) }));
}

/**
 * Brings a session's search documents up to date with its summary: the title, and each turn
 * {@link documentedTurns} names that has no document yet, read from `log` unless `prepared` holds
 * it (made from the same bytes, for the same span). Only what changed is read, so a turn's update
 * costs that turn, not the session.
 */
export function indexTurns(
  db: Database,
  seq: number,
  s: SessionSummary,
  log: string,
  previousTitle: string | undefined,
  prepared: readonly PreparedDocument[] = [],
): void {
  const docs = docsOf(db, seq);
  const title = docs.get(TITLE_START);
  if (!title || previousTitle !== s.state.title) {
    if (title) dropDoc(db, title.docid);
    addDoc(db, seq, { turn: 0, start: TITLE_START, end: 0 }, { words: distinctWords([s.state.title]), files: [] });
  }
  docs.delete(TITLE_START);
  settleLiveness(db, docs, s.fold);
  const ready = new Map(prepared.map((d) => [d.start, d]));
  const reader = new SpanReader(log);
  try {
    for (const { turn, end } of documentedTurns(s.fold, s.logBytes)) {
      const doc = docs.get(turn.start);
      const made = doc ? undefined : ready.get(turn.start);
      indexTurn(db, seq, doc, turn, reader, end, made?.end === end ? made : undefined);
    }
  } finally {
    reader.close();
  }
}

/** Indexes turn `t` read up to `end` (`ready`: its document, made already), unless its document `doc` has it all; a turn that said more since is indexed again. */
function indexTurn(db: Database, seq: number, doc: Doc | undefined, t: TurnFacts, log: SpanReader, end: number, ready?: TurnDocument): void {
  if (doc && doc.end >= end) return;
  if (doc) {
    const added = turnDocument(log.read(doc.end, end), t.turn);
    if (!added.words && added.files.length === 0) {
      runPrepared(db, 'UPDATE turn_docs SET span_end = ? WHERE docid = ?', [end, doc.docid]);
      return;
    }
    dropDoc(db, doc.docid);
  }
  addDoc(db, seq, { turn: t.turn, start: t.start, end }, ready ?? turnDocument(log.read(t.start, end), t.turn));
}

/** Live: the turn is effective. A turn the last rewind dropped waits for its undo; any other that left is dropped. */
function settleLiveness(db: Database, docs: Map<number, Doc>, fold: LogFold): void {
  const effective = new Set(fold.turns.map((t) => t.start));
  const last = fold.lastRewind;
  const undoable = new Set(typeof last === 'object' && last ? last.dropped.map((t) => t.start) : []);
  for (const [start, doc] of docs) {
    const live = effective.has(start);
    if (!live && !undoable.has(start)) {
      dropDoc(db, doc.docid);
      docs.delete(start);
    } else if (live !== doc.live) runPrepared(db, 'UPDATE turn_docs SET live = ? WHERE docid = ?', [live ? 1 : 0, doc.docid]);
  }
}

/** A session's documents by where their turn starts, read as one string (a 1,000-turn session is one row to cross from sql.js). */
function docsOf(db: Database, seq: number): Map<number, Doc> {
  const text = queryAll<{ d: string | null }>(
    db,
    "SELECT group_concat(start || ',' || span_end || ',' || live || ',' || docid, ';') AS d FROM turn_docs WHERE session_seq = ?",
    [seq],
  )[0]?.d;
  const docs = new Map<number, Doc>();
  for (const entry of text ? text.split(';') : []) {
    const [start, end, live, docid] = entry.split(',').map(Number) as [number, number, number, number];
    docs.set(start, { docid, end, live: live === 1 });
  }
  return docs;
}

function addDoc(db: Database, seq: number, at: { turn: number; start: number; end: number }, document: TurnDocument): void {
  runPrepared(db, 'INSERT INTO turn_docs (session_seq, turn, start, span_end, live) VALUES (?, ?, ?, ?, 1)', [seq, at.turn, at.start, at.end]);
  const docid = lastInsertRowid(db);
  if (document.words) runPrepared(db, 'INSERT INTO turn_fts (docid, words) VALUES (?, ?)', [docid, document.words]);
  for (const path of document.files) runPrepared(db, 'INSERT OR IGNORE INTO session_files (path, docid) VALUES (?, ?)', [path, docid]);
}

/** Drops a document for good: its full-text entries stay, matching no row, until a rebuild. */
function dropDoc(db: Database, docid: number): void {
  runPrepared(db, 'DELETE FROM session_files WHERE docid = ?', [docid]);
  runPrepared(db, 'DELETE FROM turn_docs WHERE docid = ?', [docid]);
}

/** Drops a deleted session's documents. */
export function dropSessionDocs(db: Database, seq: number): void {
  runPrepared(db, 'DELETE FROM session_files WHERE docid IN (SELECT docid FROM turn_docs WHERE session_seq = ?)', [seq]);
  runPrepared(db, 'DELETE FROM turn_docs WHERE session_seq = ?', [seq]);
}

/** Documents dropped since the index was built: their full-text entries match nothing and stay until a rebuild. */
export function droppedDocuments(db: Database): number {
  const made = queryAll<{ n: number }>(db, "SELECT seq AS n FROM sqlite_sequence WHERE name = 'turn_docs'")[0]?.n ?? 0;
  const kept = queryAll<{ n: number }>(db, 'SELECT count(*) AS n FROM turn_docs')[0]?.n ?? 0;
  return made - kept;
}

/**
 * What a search asks beyond the words and the list's filter (indexRows' SearchFilter): the
 * session's files, model and dates. The git branch is the list's filter (`ListFilter.branch`), so
 * a list and a search narrow by it alike.
 */
export interface SearchOptions {
  readonly limit?: number;
  /** A file one of its effective turns changed: its path relative to the workspace folder, or the end of one. */
  readonly file?: string;
  /** Part of the session's model id (its last turn's model), any case. */
  readonly model?: string;
  /** Sessions active at or after this time (ms): updated since. */
  readonly since?: number;
  /** Sessions begun before this time (ms): created until. */
  readonly until?: number;
}

/** A matching turn (0: the title) and where it lies in the session's main log. */
export interface TurnHit {
  readonly turn: number;
  readonly start: number;
  readonly end: number;
}

/** A matching session (as a list orders it) and its matching turns, in turn order. */
export interface SearchHit {
  readonly id: string;
  readonly updatedAt: number;
  readonly turns: TurnHit[];
}

/**
 * Sessions whose live turns (or title) say every word of `text`, within `filter`, most recently
 * updated first, each with the turns that say any of them; with only a file to look for, the
 * turns that changed it. Empty when there is nothing to look for.
 */
export function searchHits(db: Database, text: string, filter: SearchOptions, where: { sql: string; params: SqlValue[] }): SearchHit[] {
  const words = queryWords(text).flatMap((word) => ftsQuery(word) ?? []);
  const file = filter.file ? normalizedPath(filter.file) : '';
  if (words.length === 0 && !file) return [];
  const from =
    words.length > 0
      ? 'turn_fts f CROSS JOIN turn_docs d ON d.docid = f.docid CROSS JOIN sessions s ON s.seq = d.session_seq WHERE turn_fts MATCH ?'
      : `session_files sf CROSS JOIN turn_docs d ON d.docid = sf.docid CROSS JOIN sessions s ON s.seq = d.session_seq WHERE ${FILE_MATCH}`;
  const clauses = ['d.live = 1', where.sql];
  // The turns shown say any word's terms (OR binds before the space's AND in FTS4: terms only).
  const anyWord = words.length === 1 ? words[0]! : words.flatMap((w) => w.split(' ')).join(' OR ');
  const params: SqlValue[] = [...(words.length > 0 ? [anyWord] : Array<string>(FILE_PARAMS).fill(file)), ...where.params];
  const add = (clause: string, ...values: SqlValue[]) => (clauses.push(clause), params.push(...values));
  // With several words, each must be said in some live turn of the session (not all in one).
  if (words.length > 1)
    for (const word of words)
      add('s.seq IN (SELECT d2.session_seq FROM turn_fts f2 CROSS JOIN turn_docs d2 ON d2.docid = f2.docid WHERE f2.words MATCH ? AND d2.live = 1)', word);
  if (words.length > 0 && file)
    add(
      `EXISTS (SELECT 1 FROM turn_docs d2 CROSS JOIN session_files sf ON sf.docid = d2.docid WHERE d2.session_seq = s.seq AND d2.live = 1 AND ${FILE_MATCH})`,
      ...Array<string>(FILE_PARAMS).fill(file),
    );
  if (filter.model) add('instr(lower(s.model_id), ?) > 0', filter.model.toLowerCase());
  if (filter.since !== undefined) add('s.updated_at >= ?', filter.since);
  if (filter.until !== undefined) add('s.created_at < ?', filter.until);
  const rows = queryAll<{ id: string; updated_at: number; turns: string }>(
    db,
    `SELECT s.id, s.updated_at, group_concat(d.turn || ',' || d.start || ',' || d.span_end, ';') AS turns FROM ${from} AND ${clauses.join(' AND ')}
    GROUP BY s.seq ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`,
    [...params, filter.limit ?? 50],
  );
  return rows.map((r) => ({ id: r.id, updatedAt: r.updated_at, turns: turnHits(r.turns) }));
}

/** A turn whose changes or commits named a file, and its span of its session's main log. */
export interface FileTurn {
  readonly id: string;
  /** The session's workspace folder: what a `file_change` written before records named their root is relative to. */
  readonly workspaceDir: string;
  readonly turn: number;
  readonly start: number;
  readonly end: number;
}

/**
 * Every turn (live or dropped by a rewind) that changed or committed a file whose recorded path is
 * an end of `absolutePath` (`src/x.ts` of `/repo/src/x.ts`), in log order per session: the turns
 * that may have written it. Looked up by the table's key, one candidate end at a time.
 */
export function turnsOfFile(db: Database, absolutePath: string): FileTurn[] {
  const parts = absolutePath.replace(/\\/g, '/').split('/').filter(Boolean);
  const ends = parts.map((_, i) => parts.slice(i).join('/'));
  if (ends.length === 0) return [];
  return queryAll<{ id: string; workspace_dir: string; turn: number; start: number; span_end: number }>(
    db,
    `SELECT DISTINCT s.id, s.workspace_dir, d.turn, d.start, d.span_end FROM session_files sf CROSS JOIN turn_docs d ON d.docid = sf.docid
    CROSS JOIN sessions s ON s.seq = d.session_seq WHERE sf.path IN (${ends.map(() => '?').join(', ')}) ORDER BY s.seq, d.start`,
    ends,
  ).map((r) => ({ id: r.id, workspaceDir: r.workspace_dir, turn: r.turn, start: r.start, end: r.span_end }));
}

/** A path, or a path's end, as session_files holds them: `/` between folders, no leading `./`. */
function normalizedPath(file: string): string {
  return file.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

/** A changed file is the one asked for when it is it, ends with it, or (asked by a longer path, an absolute one) is its end. */
const FILE_MATCH = "(sf.path = ? OR substr(sf.path, -length(?) - 1) = '/' || ? OR substr(?, -length(sf.path) - 1) = '/' || sf.path)";
const FILE_PARAMS = 4;

function turnHits(text: string): TurnHit[] {
  return text
    .split(';')
    .map((entry) => {
      const [turn, start, end] = entry.split(',').map(Number) as [number, number, number];
      return { turn, start, end };
    })
    .sort((a, b) => a.turn - b.turn || a.start - b.start);
}
