import { isChangeUndo, type FileChangeRecord, type NewRecord } from '../wire/records';
import { scanWireLog } from '../wire/wireReader';
import { ChangeLedger, fileKey } from './changes';
/**
 * The source's Undos from its Changes list (and their own undos) that a fork cut at a turn would leave out: they were
 * recorded after that turn ended, yet the files they put back are back on disk for the fork too.
 * An Undo is carried when it undoes the image the fork's copy last recorded for its file (a later
 * turn of the source that changed the file again makes its Undos that turn's, not the fork's).
 * They are recorded in the fork's last turn, so both of its Changes lists leave those files out.
 */
export function carriedUndos(sourceLog: string, from: number, to: number, forkLog: string, turn: number): NewRecord[] {
  const current = new Map<string, string | null>();
  for (const r of new ChangeLedger(forkLog).read().records) if (r.t === 'file_change') current.set(fileKey(r.root, r.path), r.after);
  const carried: NewRecord[] = [];
  scanWireLog(
    sourceLog,
    (r) => {
      if ('unknown' in r || r.t !== 'file_change') return;
      const key = fileKey(r.root, r.path);
      // An Undo, or an undone Undo: what the user did from the Changes list.
      if (!isChangeUndo(r)) {
        current.delete(key); // a later turn's change: the fork's image is no longer the one undone
        return;
      }
      if (!current.has(key) || current.get(key) !== r.before) return;
      current.set(key, r.after);
      const { v: _v, ts: _ts, ...record }: FileChangeRecord = r;
      carried.push({ ...record, turn });
    },
    { start: from, end: to, only: ['file_change'] },
  );
  return carried;
}
