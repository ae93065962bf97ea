// Reads an SQLite database together with its write-ahead log, as SQLite itself would after a
// checkpoint, for sql.js (which reads only the main file). Format: sqlite.org/fileformat2.html,
// "The Write-Ahead Log": a 32-byte header, then frames of a 24-byte header and one page; a frame
// counts when its salts match the header's and its checksum continues the chain; the pages of a
// transaction count once its commit frame (one with the database's size in pages) is read.

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/** SQLite's WAL checksum over `data` (a multiple of 8 bytes), continuing from `s`. */
function checksum(data: Uint8Array, bigEndian: boolean, s: [number, number]): [number, number] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let [s0, s1] = s;
  for (let i = 0; i < data.byteLength; i += 8) {
    s0 = (s0 + view.getUint32(i, !bigEndian) + s1) >>> 0;
    s1 = (s1 + view.getUint32(i + 4, !bigEndian) + s0) >>> 0;
  }
  return [s0, s1];
}

/**
 * The database `db` with the transactions its WAL `wal` committed applied: the bytes a reader
 * sees. A WAL that is empty, torn or from another database adds nothing it cannot vouch for.
 */
export function withWalApplied(db: Uint8Array, wal: Uint8Array): Uint8Array {
  if (wal.byteLength < WAL_HEADER) return db;
  const header = new DataView(wal.buffer, wal.byteOffset, WAL_HEADER);
  const magic = header.getUint32(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return db;
  const bigEndian = magic === 0x377f0683;
  const pageSize = header.getUint32(8);
  const salts = [header.getUint32(16), header.getUint32(20)];
  let sum = checksum(wal.subarray(0, 24), bigEndian, [0, 0]);
  if (sum[0] !== header.getUint32(24) || sum[1] !== header.getUint32(28)) return db;
  const committed = new Map<number, Uint8Array>();
  let pending = new Map<number, Uint8Array>();
  let pages = Math.ceil(db.byteLength / pageSize);
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.byteLength; at += FRAME_HEADER + pageSize) {
    const frame = new DataView(wal.buffer, wal.byteOffset + at, FRAME_HEADER);
    if (frame.getUint32(8) !== salts[0] || frame.getUint32(12) !== salts[1]) break;
    const page = wal.subarray(at + FRAME_HEADER, at + FRAME_HEADER + pageSize);
    sum = checksum(page, bigEndian, checksum(wal.subarray(at, at + 8), bigEndian, sum));
    if (sum[0] !== frame.getUint32(16) || sum[1] !== frame.getUint32(20)) break;
    pending.set(frame.getUint32(0), page);
    const commitSize = frame.getUint32(4);
    if (commitSize > 0) {
      for (const [number, bytes] of pending) committed.set(number, bytes);
      pending = new Map();
      pages = commitSize;
    }
  }
  const out = new Uint8Array(pages * pageSize);
  out.set(db.subarray(0, Math.min(db.byteLength, out.byteLength)));
  for (const [number, bytes] of committed) if (number <= pages) out.set(bytes, (number - 1) * pageSize);
  return out;
}
