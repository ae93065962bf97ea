import fs from 'node:fs';
import { sessionFolderLayout } from './layout';
import { recordFromHead } from './headFold';
import { applyRecord, emptyFold, type LogFold } from './logFold';
import { scanWireLog } from '../wire/wireReader';
import { statSize } from '../fs/probe';

/**
 * A session's fold kept beside its log (`fold.json` in the session folder), so that the index
 * holds only what lists and searches read, and a row does not grow with its session's turns.
 *
 * The file is a cache. It is written without fsync, and only now and then: when the log has grown
 * by FOLD_FILE_LAG since the copy this process knows of. A reader folds in the log's bytes after
 * the copy, so a copy that lags costs a read of at most that much log. A copy whose log no longer
 * holds the bytes it was made from (its last bytes differ) is ignored, and the log is folded whole.
 */
export const FOLD_FILE_LAG = 1024 * 1024;

/** How many of the log's last bytes a copy keeps, to tell that the log still ends as it did. */
const TAIL_BYTES = 64;

/** 2: a turn keeps the branch its turn_begin recorded (a copy of version 1 may lack one a newer log holds). */
const FOLD_FILE_VERSION = 2;

interface FoldFileContent {
  v: typeof FOLD_FILE_VERSION;
  /** The log's size the fold covers. */
  logBytes: number;
  /** The log's last bytes before `logBytes`, base64. */
  tail: string;
  fold: LogFold;
}

/** The log size of each fold.json this process wrote or read, by session folder. */
const copies = new Map<string, number>();

/**
 * The fold of a session's main log up to `logBytes`: the copy beside the log, with what the log
 * says after it folded in; the whole log when there is no usable copy. Undefined when the log is
 * shorter than `logBytes` (it is not the log the caller's facts came from).
 */
export function foldOfLog(dir: string, logBytes: number): LogFold | undefined {
  const logFile = sessionFolderLayout.agentLog(dir);
  const copy = readCopy(dir, logFile, logBytes);
  const fold = copy?.fold ?? emptyFold();
  const start = copy?.logBytes ?? 0;
  if (start === logBytes) return fold;
  if (statSize(logFile) < logBytes) return undefined;
  scanWireLog(logFile, (record, offset, length) => applyRecord(fold, record, offset, length), { start, end: logBytes, fromHead: recordFromHead });
  return fold;
}

/** Writes the fold beside the log when the copy there lags the log by `lag` bytes or more; never throws. */
export function keepFold(dir: string, fold: LogFold, logBytes: number, lag = FOLD_FILE_LAG): void {
  if (logBytes - (copies.get(dir) ?? 0) < lag) return;
  const file = sessionFolderLayout.foldFile(dir);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const tail = tailOf(sessionFolderLayout.agentLog(dir), logBytes);
    if (tail === undefined) return;
    const content: FoldFileContent = { v: FOLD_FILE_VERSION, logBytes, tail, fold };
    fs.writeFileSync(tmp, JSON.stringify(content));
    fs.renameSync(tmp, file);
    copies.set(dir, logBytes);
  } catch {
    // A cache: the next reader folds more of the log. The folder may have moved meanwhile.
    fs.rmSync(tmp, { force: true });
  }
}

/** The copy beside the log when it is whole, covers at most `logBytes`, and the log still ends where it did. */
function readCopy(dir: string, logFile: string, logBytes: number): FoldFileContent | undefined {
  let content: FoldFileContent;
  try {
    content = JSON.parse(fs.readFileSync(sessionFolderLayout.foldFile(dir), 'utf8')) as FoldFileContent;
  } catch {
    return undefined;
  }
  if (content?.v !== FOLD_FILE_VERSION || typeof content.logBytes !== 'number' || content.logBytes > logBytes || !isFold(content.fold)) return undefined;
  if (tailOf(logFile, content.logBytes) !== content.tail) return undefined;
  copies.set(dir, content.logBytes);
  return content;
}

/** The log's last bytes before `end`, base64; undefined when the log is shorter. */
function tailOf(logFile: string, end: number): string | undefined {
  const length = Math.min(TAIL_BYTES, end);
  const buf = Buffer.alloc(length);
  let fd: number;
  try {
    fd = fs.openSync(logFile, 'r');
  } catch {
    return undefined;
  }
  try {
    return fs.readSync(fd, buf, 0, length, end - length) === length ? buf.toString('base64') : undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether a parsed value has the fold's shape (a damaged or foreign file is ignored). */
function isFold(fold: LogFold | undefined): fold is LogFold {
  return (
    typeof fold === 'object' &&
    fold !== null &&
    Array.isArray(fold.turns) &&
    fold.turns.every((t) => typeof t?.start === 'number' && typeof t.end === 'number' && typeof t.turn === 'number') &&
    Array.isArray(fold.forkedAt) &&
    Array.isArray(fold.changeUndosAt) &&
    typeof fold.prompts === 'string' &&
    typeof fold.callIds === 'object' &&
    fold.callIds !== null &&
    Array.isArray(fold.usage) &&
    Array.isArray(fold.unattributed) &&
    typeof fold.totals === 'object' &&
    fold.totals !== null
  );
}
