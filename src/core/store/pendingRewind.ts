import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir, writeFileAtomic } from '../fs/atomic';
import { statSize } from '../fs/probe';
import { BlobStore } from '../tools/checkpoints';
import type { NewRecord } from '../wire/records';
import { WireLogWriter } from '../wire/wireLog';
import { scanWireLog } from '../wire/wireReader';
import type { SessionStore } from './sessionStore';

/** The journal of a rewind or undo under way, in the session folder. */
export const PENDING_FILE = 'rewind.pending.json';

/** A workspace file a rewind or undo changes: from the image it has now to the one it must get (blob hashes, null = absent). */
export interface PendingFile {
  readonly path: string;
  readonly from: string | null;
  readonly to: string | null;
}

/**
 * A rewind (or its undo) written down before it touches anything: the files it changes, the
 * records it appends, and the log's size before them. A crash part-way leaves the journal behind,
 * and the next process that opens the session finishes it: a rewind is never half applied, with
 * some files restored and the conversation not rewound (DESIGN.md 6).
 */
export interface PendingRewind {
  readonly v: 1;
  readonly op: 'rewind' | 'undo';
  readonly workspaceDir: string;
  readonly logBytes: number;
  readonly records: NewRecord[];
  readonly files: PendingFile[];
  readonly turnCount: number;
}

const hashOf = (file: string): string | null => (fs.existsSync(file) ? createHash('sha256').update(fs.readFileSync(file)).digest('hex') : null);

/** Writes the journal, then applies it. The caller holds the session's writer lease; `fence` is its check. */
export async function runPending(store: SessionStore, dir: string, pending: Omit<PendingRewind, 'v' | 'logBytes'>, fence: () => void): Promise<void> {
  const journal: PendingRewind = { v: 1, ...pending, logBytes: statSize(store.layout.agentLog(dir)) };
  writeFileAtomic(path.join(dir, PENDING_FILE), JSON.stringify(journal), fence);
  await applyPending(store, dir, journal, fence);
}

/**
 * Finishes a rewind or undo a crash cut short, if the session has one. Returns what it finished.
 * The caller holds the lease; `fence` is its check.
 */
export async function finishPending(store: SessionStore, dir: string, fence: () => void): Promise<PendingRewind['op'] | undefined> {
  const file = path.join(dir, PENDING_FILE);
  let journal: PendingRewind;
  try {
    journal = JSON.parse(fs.readFileSync(file, 'utf8')) as PendingRewind;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // A journal is written whole (temp + rename) before anything happens: a broken one never started.
    store.logger.warn(`${file}: unreadable journal of a rewind that had not started (${(err as Error).message}); removed`);
    fs.rmSync(file, { force: true });
    return undefined;
  }
  store.logger.warn(`${path.basename(dir)}: finishing a ${journal.op} that was cut short`);
  await applyPending(store, dir, journal, fence);
  return journal.op;
}

/** Whether the session has a rewind or undo left half done (for `braid doctor`). */
export function hasPending(dir: string): boolean {
  return fs.existsSync(path.join(dir, PENDING_FILE));
}

/**
 * Applies a journal; running it again after a crash at any point gives the same result. A file
 * is written only while it still has its `from` image (a file changed since is left alone), and
 * only the records not already in the log are appended. Each write waits for the lease's `fence`.
 */
async function applyPending(store: SessionStore, dir: string, journal: PendingRewind, fence: () => void): Promise<void> {
  const blobs = new BlobStore(store.layout.blobsDir(dir));
  for (const f of journal.files) {
    const full = path.resolve(journal.workspaceDir, f.path);
    const now = hashOf(full);
    if (now === f.to) continue;
    if (now !== f.from) {
      store.logger.warn(`${f.path} changed since the ${journal.op} began; left as it is`);
      continue;
    }
    fence();
    if (f.to === null) fs.rmSync(full, { force: true });
    else {
      // Replaced whole (temp + rename), at the real path when the name is a symlink.
      fs.mkdirSync(path.dirname(full), { recursive: true });
      writeFileAtomic(now === null ? full : fs.realpathSync(full), blobs.get(f.to));
    }
  }
  const logFile = store.layout.agentLog(dir);
  let present = 0;
  if (statSize(logFile) > journal.logBytes) scanWireLog(logFile, () => void present++, { start: journal.logBytes });
  const log = WireLogWriter.open(logFile, { fence });
  try {
    if (present < journal.records.length) await log.append(journal.records.slice(present), { durable: true });
  } finally {
    await log.close();
  }
  await store.update(path.basename(dir), (s) => ({ ...s, status: 'idle', error: null, turnCount: journal.turnCount }), { fence });
  store.index.refresh(dir);
  fs.rmSync(path.join(dir, PENDING_FILE), { force: true });
  fsyncDir(dir);
}
