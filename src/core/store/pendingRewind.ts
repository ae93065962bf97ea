import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors';
import { sessionFolderLayout } from '../format/layout';
import { sha256Hex } from '../hash';
import { fsyncDir, writeFileAtomic } from '../fs/atomic';
import { statSize } from '../fs/probe';
import { BlobStore } from '../format/blobStore';
import { removeEmptyFolders, removeFile, replaceFile } from '../tools/confinedFile';
import { currentBytes, SessionFiles, type LocatedFile } from './sessionFiles';
import type { NewRecord } from '../wire/records';
import type { SessionSummary } from '../format/summary';
import { WireLogWriter, type WrittenLine } from '../wire/wireLog';
import { scanWireLog } from '../wire/wireReader';
import type { StoreContext } from './storeContext';
import { LeaseLostError } from './writerLease';

/** A workspace file a rewind or undo changes: from the image it has now to the one it must get (blob hashes, null = absent). */
export interface PendingFile {
  readonly path: string;
  /** Its workspace folder; absent in journals from before Braid recorded it (the session's folder). */
  readonly root?: string;
  readonly from: string | null;
  readonly to: string | null;
}

/**
 * A rewind (or its undo) written down before it touches anything: the files it changes, the
 * records it appends, and the log's size before them. A crash part-way leaves the journal behind,
 * and the next process that opens the session finishes it: a rewind is never half applied, with
 * some files restored and the conversation not rewound.
 */
export interface PendingRewind {
  readonly v: 1;
  readonly op: 'rewind' | 'undo' | 'undo of changes';
  readonly workspaceDir: string;
  readonly logBytes: number;
  readonly records: NewRecord[];
  readonly files: PendingFile[];
  /** Folders the rewound turns created, removed when the files leave them empty (relative to `root`). */
  readonly emptyFolders?: Array<{ readonly path: string; readonly root?: string }>;
}

/**
 * The index row after a journal's records are appended (given them and the log's size before and
 * after), when the caller can tell it without reading the log; undefined when it cannot.
 */
export type RowAfter = (appended: readonly WrittenLine[], before: number, after: number) => SessionSummary | undefined;

/**
 * Writes the journal, then applies it. The caller holds the session's writer lease; `fence` is its
 * check. `rowAfter` gives the index row; without it (or when it cannot) the folder is read again.
 */
export async function runPending(
  store: StoreContext,
  dir: string,
  pending: Omit<PendingRewind, 'v' | 'logBytes'>,
  fence: () => void,
  rowAfter?: RowAfter,
): Promise<void> {
  const journal: PendingRewind = { v: 1, ...pending, logBytes: statSize(store.layout.agentLog(dir)) };
  writeFileAtomic(store.layout.pendingRewindFile(dir), JSON.stringify(journal), fence);
  await applyPending(store, dir, journal, fence, rowAfter);
}

/**
 * Finishes a rewind or undo a crash cut short, if the session has one. Returns what it finished.
 * The caller holds the lease; `fence` is its check.
 */
export async function finishPending(store: StoreContext, dir: string, fence: () => void): Promise<PendingRewind['op'] | undefined> {
  const file = store.layout.pendingRewindFile(dir);
  let journal: PendingRewind;
  try {
    journal = JSON.parse(fs.readFileSync(file, 'utf8')) as PendingRewind;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // A journal is written whole (temp + rename) before anything happens: a broken one never started.
    store.logger.warn(`${file}: unreadable journal of a rewind that had not started (${errorMessage(err)}); removed`);
    fs.rmSync(file, { force: true });
    return undefined;
  }
  store.logger.warn(`${path.basename(dir)}: finishing a ${journal.op} that was cut short`);
  await applyPending(store, dir, journal, fence);
  return journal.op;
}

/** Whether the session has a rewind or undo left half done (for `braid doctor`). */
export function hasPending(dir: string): boolean {
  return fs.existsSync(sessionFolderLayout.pendingRewindFile(dir));
}

/**
 * Applies a journal; running it again after a crash at any point gives the same result. A file
 * is written only while it still has its `from` image (a file changed since is left alone), and
 * only the records not already in the log are appended. Each write waits for the lease's `fence`.
 */
async function applyPending(store: StoreContext, dir: string, journal: PendingRewind, fence: () => void, rowAfter?: RowAfter): Promise<void> {
  const blobs = new BlobStore(store.layout.blobsDir(dir));
  // The journal is data: every path is checked against the session's workspace folders now.
  const touchesFiles = journal.files.length > 0 || (journal.emptyFolders?.length ?? 0) > 0;
  const files = touchesFiles ? new SessionFiles(store.get(path.basename(dir)), store.layout) : undefined;
  for (const f of journal.files) {
    const at = files!.locate(f.root, f.path);
    if ('refused' in at) {
      store.logger.warn(`${journal.op}: ${at.refused}`);
      continue;
    }
    try {
      const current = currentBytes(at, f.path);
      const now = current ? sha256Hex(current) : null;
      if (now === f.to) continue;
      if (now !== f.from) {
        store.logger.warn(`${f.path} changed since the ${journal.op} began; left as it is`);
        continue;
      }
      fence();
      if (f.to === null) removeFile(at.workspace, at.full, f.path);
      else replaceFile(at.workspace, at.full, blobs.get(f.to), f.path);
    } catch (err) {
      if (err instanceof LeaseLostError) throw err;
      store.logger.warn(`${journal.op}: ${f.path} was left as it is (${errorMessage(err)})`);
    }
  }
  // Innermost first, so a folder whose only content was a created folder goes too.
  const folders = (journal.emptyFolders ?? []).map((f) => files!.locate(f.root, f.path)).filter((at): at is LocatedFile => !('refused' in at));
  for (const at of folders.sort((a, b) => b.full.length - a.full.length)) {
    fence();
    removeEmptyFolders(at.workspace, [at.full]);
  }
  const logFile = store.layout.agentLog(dir);
  let present = 0;
  if (statSize(logFile) > journal.logBytes) scanWireLog(logFile, () => void present++, { start: journal.logBytes });
  const log = WireLogWriter.open(logFile, { fence });
  let row: SessionSummary | undefined;
  try {
    if (present < journal.records.length) {
      const appended = await log.appendLines(journal.records.slice(present), { durable: true });
      if (present === 0) row = rowAfter?.(appended, journal.logBytes, log.bytes);
    }
  } finally {
    await log.close();
  }
  if (row) store.index.putSummary(row.state.id, row);
  else store.index.rereadFolder(dir);
  fs.rmSync(store.layout.pendingRewindFile(dir), { force: true });
  fsyncDir(dir);
}
