import fs from 'node:fs';

// A consistent copy of an SQLite database another program is using, read without writing a
// byte of it: its file, with the committed frames of its write-ahead log (`<file>-wal`) laid over
// it, as SQLite itself would read it. Only the documented file formats are relied on (the
// database header, and the WAL's header, frames and checksums).

const WAL_MAGIC = 0x377f0682; // its low bit: the checksums' byte order (1: big-endian)
const WAL_HEADER = 32;
const FRAME_HEADER = 24;
const ATTEMPTS = 5;

/** A database could not be read consistently or is not an SQLite database: the sentence a person reads. */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

/**
 * The bytes of database `file` as its last committed transaction left it, WAL included. The WAL
 * is read before and after the database file; when it changed in between (a writer committed, or
 * a checkpoint restarted it) the read is tried again. The copy is marked as a rollback-journal
 * database, so that it opens on its own.
 */
export function readSnapshot(file: string, maxBytes: number): Uint8Array {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const walBefore = readIfPresent(`${file}-wal`, maxBytes);
    const main = readIfPresent(file, maxBytes);
    if (!main) throw new SnapshotError('the database file is missing');
    if (fs.existsSync(`${file}-journal`) && attempt < ATTEMPTS - 1) continue; // a rollback-journal writer is mid-transaction
    const walAfter = readIfPresent(`${file}-wal`, maxBytes);
    if (!sameBytes(walBefore, walAfter)) continue;
    return withWal(main, walAfter);
  }
  throw new SnapshotError('it changed at every read (the tool was writing it all the time); try again when it is idle');
}

function readIfPresent(file: string, maxBytes: number): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SnapshotError(`${file} cannot be opened (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new SnapshotError(`${file} is not a regular file`);
    if (stat.size > maxBytes) throw new SnapshotError(`${file} is larger than ${Math.round(maxBytes / 1048576)} MB`);
    const bytes = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = fs.readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

/** The database's page size from its header (a stored 1 means 65,536). */
function pageSizeOf(main: Buffer): number {
  if (main.length < 100 || main.toString('latin1', 0, 16) !== 'SQLite format 3\0') throw new SnapshotError('not an SQLite database');
  const stored = main.readUInt16BE(16);
  return stored === 1 ? 65536 : stored;
}

/** The database with the WAL's committed frames laid over it, marked as a rollback-journal database unless `keepMode` (then as its header says). */
export function withWal(main: Buffer, wal: Buffer | null, { keepMode = false } = {}): Uint8Array {
  const pageSize = pageSizeOf(main);
  const pages = wal ? committedFrames(wal, pageSize) : null;
  let image: Buffer;
  if (!pages) image = Buffer.from(main);
  else {
    image = Buffer.alloc(pages.pageCount * pageSize);
    main.copy(image, 0, 0, Math.min(main.length, image.length));
    for (const [page, offset] of pages.frames) if (page >= 1 && page <= pages.pageCount) wal!.copy(image, (page - 1) * pageSize, offset, offset + pageSize);
  }
  if (keepMode) return image;
  // Read and write versions 1: a rollback-journal database, which opens without its WAL or shared memory.
  image[18] = 1;
  image[19] = 1;
  return image;
}

/**
 * The frames of the WAL's last committed transaction and those before it, as page -> offset of
 * the newest copy of that page; the database's size in pages after that commit. Null when the
 * WAL holds no valid committed frame (an empty or restarted WAL: the database file is it all).
 */
function committedFrames(wal: Buffer, pageSize: number): { frames: Map<number, number>; pageCount: number } | null {
  if (wal.length < WAL_HEADER) return null;
  const magic = wal.readUInt32BE(0);
  if ((magic & ~1) >>> 0 !== WAL_MAGIC || wal.readUInt32BE(8) !== pageSize) return null;
  const bigEndian = (magic & 1) === 1;
  const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  let sum = checksum(wal, 0, 24, [0, 0], bigEndian);
  if (sum[0] !== wal.readUInt32BE(24) || sum[1] !== wal.readUInt32BE(28)) return null;
  const frames: Array<[number, number]> = []; // page, offset of its bytes, in WAL order
  let committed = 0;
  let pageCount = 0;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
    // A frame belongs to this WAL when its salts are the header's and its checksum continues the chain.
    if (wal.readUInt32BE(at + 8) !== salts[0] || wal.readUInt32BE(at + 12) !== salts[1]) break;
    sum = checksum(wal, at, 8, sum, bigEndian);
    sum = checksum(wal, at + FRAME_HEADER, pageSize, sum, bigEndian);
    if (sum[0] !== wal.readUInt32BE(at + 16) || sum[1] !== wal.readUInt32BE(at + 20)) break;
    frames.push([wal.readUInt32BE(at), at + FRAME_HEADER]);
    const size = wal.readUInt32BE(at + 4); // non-zero on a transaction's last frame: the database's size in pages
    if (size > 0) {
      committed = frames.length;
      pageCount = size;
    }
  }
  // Later copies of a page replace earlier ones; frames after the last commit are a transaction still open.
  return committed ? { frames: new Map(frames.slice(0, committed)), pageCount } : null;
}

/** SQLite's WAL checksum over `length` bytes (a multiple of 8) from `at`, continuing from `[s0, s1]`. */
function checksum(bytes: Buffer, at: number, length: number, [s0, s1]: number[], bigEndian: boolean): [number, number] {
  let a = s0!;
  let b = s1!;
  for (let i = at; i < at + length; i += 8) {
    const x0 = bigEndian ? bytes.readUInt32BE(i) : bytes.readUInt32LE(i);
    const x1 = bigEndian ? bytes.readUInt32BE(i + 4) : bytes.readUInt32LE(i + 4);
    a = (a + x0 + b) >>> 0;
    b = (b + x1 + a) >>> 0;
  }
  return [a, b];
}
