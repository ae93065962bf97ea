import { EffectiveTurns } from '../wire/effectiveTurns';
import { sha256Hex } from '../hash';
import { newMessageId } from '../ids';
import { statFile } from '../fs/probe';
import { lineChanges } from '../format/lineDiff';
import fs from 'node:fs';
import { BlobStore, checkpointRemovedNote } from '../format/blobStore';
import { marksPulled, REDO_CALL, UNDO_CALL, type FileChangeRecord, type FileReviewRecord, type NewRecord } from '../wire/records';
import { scanWireLog } from '../wire/wireReader';
import { runPending, type PendingFile } from './pendingRewind';
import { currentBytes, SessionFiles } from './sessionFiles';
import type { StoreContext } from './storeContext';

/** What the Changes list shows: the files of the last turn and of the whole session. */
export interface ChangesInfo {
  /** The session's last turn (0 before the first). */
  readonly turn: number;
  readonly thisTurn: readonly ChangedFile[];
  readonly session: readonly ChangedFile[];
}

/** The Changes lists' two scopes: the last turn's changes, or all the session's. */
export type ChangeScope = 'turn' | 'session';

/** A file whose content differs from its image at the start of the scope (or when last kept). */
export interface ChangedFile {
  /** Names the file in the page's requests: its folder and path. */
  readonly key: string;
  /** As the workspace shows it. */
  readonly path: string;
  readonly status: 'added' | 'modified' | 'deleted';
  /** Lines added and removed; absent for files too large or not text. */
  readonly added?: number;
  readonly removed?: number;
}

/**
 * The Changes list (docs/reference.md, Operations): the files Braid changed, each against its image
 * at the start of the last turn or of the session, or when the user last kept it. A file whose
 * image is that again (undone, or changed back) leaves the list.
 */

/** A changed file with the blob hashes it is compared by (null: the file did not exist). */
export interface FileDelta {
  readonly key: string;
  readonly path: string;
  readonly root?: string;
  /** Its image at the start of the scope, or when last kept. */
  readonly baseline: string | null;
  /** Its image after Braid's last change (or undo). */
  readonly current: string | null;
}

type Kept = FileChangeRecord | FileReviewRecord;

/** A file's key in the lists and the page's requests. */
export function fileKey(root: string | undefined, path: string): string {
  return `${root ?? ''}\u0000${path}`;
}

/**
 * The effective file changes and keeps of a log, read incrementally: each call reads only what
 * was appended since the last (the log only grows; a file replaced whole, as `braid doctor --fix`
 * replaces one, is read again from the start). A rewind record drops what the turns it rewinds
 * recorded, and its undo brings it back.
 */
export class ChangeLedger {
  private offset = 0;
  private identity: string | undefined;
  private records = new EffectiveTurns<Kept>();
  private turn = 0;
  /** The last turn before the last rewind, for its undo. */
  private turnBeforeRewind = 0;
  /** Grows each time a read finds the file changed: what was derived from an older read is out of date. */
  private version = 0;

  /** `rootOf`: the folder a recorded root stands for now (placedRoot), so a file changed before and after a move is one file. */
  constructor(
    private readonly logFile: string,
    private readonly rootOf: (root: string) => string = (root) => root,
  ) {}

  /** The records and the last effective turn, up to date with the file, and the read's version. */
  read(): { readonly records: readonly Kept[]; readonly turn: number; readonly version: number } {
    const now = statFile(this.logFile);
    const size = now?.size ?? 0;
    const replaced = now?.identity !== this.identity || size < this.offset;
    if (replaced) [this.offset, this.records, this.turn, this.identity] = [0, new EffectiveTurns<Kept>(), 0, now?.identity];
    if (replaced || size !== this.offset) {
      this.version++;
      scanWireLog(
        this.logFile,
        (r) => {
          if ('unknown' in r) return;
          // Changes before a fork's mark of pulled records are another machine's: none of them is listed, kept or undone here.
          if (marksPulled(r)) this.records.drop(() => true);
          else if (r.t === 'turn_begin') this.turn = r.turn;
          else if (r.t === 'rewind') {
            this.records.rewind(r.toTurn);
            if (this.turn >= r.toTurn) [this.turnBeforeRewind, this.turn] = [this.turn, r.toTurn - 1];
          } else if (r.t === 'undo_rewind') {
            this.records.undo();
            this.turn = Math.max(this.turn, this.turnBeforeRewind);
          } else if (r.t === 'file_change' || r.t === 'file_review') this.records.push(r.root === undefined ? r : { ...r, root: this.rootOf(r.root) });
        },
        { start: this.offset, end: size, only: ['turn_begin', 'rewind', 'undo_rewind', 'file_change', 'file_review', 'forked'] },
      );
      this.offset = size;
    }
    return { records: this.records.items, turn: this.turn, version: this.version };
  }
}

/**
 * The files of `records` in `scope` (the last turn's records, or all) whose image differs from
 * their baseline, in the order first changed. A Keep makes the image its baseline; so does an
 * Undo in the turn's list (the user has dealt with the file), while in the session's list an
 * Undo is a change like any other, listed until the file is as the session found it. An undone
 * Undo lists the file again as it was listed before.
 */
export function pendingDeltas(records: readonly Kept[], scope: ChangeScope, turn: number): FileDelta[] {
  type Listed = { path: string; root?: string; baseline: string | null; current: string | null };
  const files = new Map<string, Listed>();
  /** In the turn's list, each file as it was before its Undo (null: not listed), for an undone Undo to put back. */
  const beforeUndo = new Map<string, Listed | null>();
  for (const r of records) {
    if (scope === 'turn' && r.turn !== turn) continue;
    const key = fileKey(r.root, r.path);
    const file = files.get(key);
    const undo = r.t === 'file_change' && r.toolCallId.startsWith(UNDO_CALL);
    const redo = r.t === 'file_change' && r.toolCallId.startsWith(REDO_CALL);
    if (r.t === 'file_review') {
      if (file) file.baseline = file.current;
    } else if (undo && scope === 'turn') {
      beforeUndo.set(key, file ? { ...file } : null);
      if (file) file.baseline = file.current = r.after;
    } else if (redo && scope === 'turn' && beforeUndo.has(key)) {
      const was = beforeUndo.get(key)!;
      beforeUndo.delete(key);
      if (was) files.set(key, { ...was, current: r.after });
      else files.delete(key);
    } else if (file) file.current = r.after;
    else files.set(key, { path: r.path, ...(r.root ? { root: r.root } : {}), baseline: r.before, current: r.after });
  }
  return [...files].filter(([, f]) => f.baseline !== f.current).map(([key, f]) => ({ key, ...f }));
}

/** Files larger than this are listed without line counts. */
const COUNTED_BYTES = 512 * 1024;

/** Line counts of a pair of images, computed once per pair. */
export class LineCounts {
  private readonly counted = new Map<string, { added: number; removed: number } | null>();

  constructor(private readonly blobs: BlobStore) {}

  of(baseline: string | null, current: string | null): { added: number; removed: number } | null {
    const pair = `${baseline}:${current}`;
    if (!this.counted.has(pair)) this.counted.set(pair, this.count(baseline, current));
    return this.counted.get(pair)!;
  }

  private count(baseline: string | null, current: string | null): { added: number; removed: number } | null {
    try {
      const [a, b] = [baseline, current].map((h) => (h ? this.blobs.get(h) : Buffer.alloc(0)));
      if (a!.length > COUNTED_BYTES || b!.length > COUNTED_BYTES || a!.includes(0) || b!.includes(0)) return null;
      return lineChanges(a!.toString('utf8'), b!.toString('utf8'));
    } catch {
      return null; // a blob gone missing: the file is still listed
    }
  }
}

/**
 * The Changes lists as the page shows them, derived again only when the log has grown (the page's
 * info is asked for at every status change of a turn).
 */
export class ChangesView {
  private shown: { version: number; info: ChangesInfo } | undefined;

  constructor(
    private readonly ledger: ChangeLedger,
    private readonly counts: LineCounts,
  ) {}

  info(): ChangesInfo {
    const { records, turn, version } = this.ledger.read();
    if (this.shown?.version !== version) {
      const listed = (scope: ChangeScope) => pendingDeltas(records, scope, turn).map((d) => this.file(d));
      this.shown = { version, info: { turn, thisTurn: listed('turn'), session: listed('session') } };
    }
    return this.shown.info;
  }

  private file(d: FileDelta): ChangedFile {
    const lines = this.counts.of(d.baseline, d.current);
    const status = d.baseline === null ? 'added' : d.current === null ? 'deleted' : 'modified';
    return { key: d.key, path: d.path, status, ...(lines ? lines : {}) };
  }
}

/** The records of Keep for these files: each file's image now becomes its baseline. */
export function keepRecords(deltas: readonly FileDelta[], turn: number): NewRecord[] {
  return deltas.map((d) => ({ t: 'file_review', turn, path: d.path, ...(d.root ? { root: d.root } : {}), decision: 'keep' }));
}

/** What an Undo did: the files undone, each as the change that undoes the Undo again; the files left alone, and why. */
export interface UndoneChanges {
  readonly undone: string[];
  readonly reverse: FileDelta[];
  readonly skipped: { path: string; why: string }[];
}

/**
 * Undo for these files: each gets its baseline image back, and a `file_change` of its own records
 * that (so a rewind and the lists see it like any change). Journaled like a rewind: a crash part
 * way is finished by the next process that opens the session. A file changed outside Braid since
 * its last recorded image, or outside the session's folders, is left alone and named. The caller
 * holds the session's writer; `fence` is its lease check. `call` names the records: an Undo's, or
 * (REDO_CALL) an undone Undo's, which puts `reverse` of an earlier Undo back.
 */
export async function undoDeltas(
  store: StoreContext,
  sessionId: string,
  deltas: readonly FileDelta[],
  turn: number,
  fence: () => void,
  call: typeof UNDO_CALL | typeof REDO_CALL = UNDO_CALL,
): Promise<UndoneChanges> {
  const state = store.get(sessionId);
  const located = new SessionFiles(state, store.layout);
  const blobs = new BlobStore(store.layout.blobsDir(store.locate(sessionId)));
  const files: PendingFile[] = [];
  const records: NewRecord[] = [];
  const skipped: { path: string; why: string }[] = [];
  const reverse: FileDelta[] = [];
  for (const d of deltas) {
    const at = located.locate(d.root, d.path);
    if ('refused' in at) {
      skipped.push({ path: d.path, why: at.refused });
      continue;
    }
    const bytes = currentBytes(at, d.path);
    if ((bytes ? sha256Hex(bytes) : null) !== d.current) {
      skipped.push({ path: d.path, why: `${d.path} changed outside Braid since its last change; it is left alone` });
      continue;
    }
    if (d.baseline !== null && !fs.existsSync(blobs.pathOf(d.baseline))) {
      skipped.push({ path: d.path, why: checkpointRemovedNote(d.path) });
      continue;
    }
    const root = d.root ? { root: d.root } : {};
    files.push({ path: d.path, ...root, from: d.current, to: d.baseline });
    records.push({ t: 'file_change', turn, toolCallId: `${call}${newMessageId()}`, path: d.path, before: d.current, after: d.baseline, ...root });
    reverse.push({ ...d, baseline: d.current, current: d.baseline });
  }
  if (files.length > 0) {
    await runPending(store, store.locate(sessionId), { op: 'undo of changes', workspaceDir: state.workspaceDir, records, files }, fence);
  }
  return { undone: files.map((f) => f.path), reverse, skipped };
}
