import fs from 'node:fs';

/** The bytes of `file` past `from`: what this machine wrote after its sync point (empty when the file is gone). */
export function localTail(file: string, from: number): Buffer {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return Buffer.alloc(0);
  }
  if (size <= from) return Buffer.alloc(0);
  const buf = Buffer.alloc(size - from);
  const fd = fs.openSync(file, 'r');
  try {
    for (let at = 0; at < buf.length;) {
      const n = fs.readSync(fd, buf, at, buf.length - at, from + at);
      if (n === 0) return buf.subarray(0, at);
      at += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return buf;
}

/**
 * Whether a local log's tail past its sync point holds nothing of this machine's own: once the
 * `synced` lines at its end are set aside (a sync writes one after what it took in), what is left
 * must be the start of what the remote adds (a sync cut short after it wrote the log and before
 * it kept the new sync point), or nothing.
 */
export function tailFits(tail: Buffer, remoteNew: Buffer): boolean {
  const own = withoutTrailingSynced(tail);
  return own.length <= remoteNew.length && remoteNew.subarray(0, own.length).equals(own);
}

function withoutTrailingSynced(tail: Buffer): Buffer {
  let end = tail.length;
  while (end > 0) {
    const lineEnd = tail[end - 1] === 10 ? end - 1 : end;
    const start = tail.lastIndexOf(10, lineEnd - 1) + 1;
    if (!isSyncedLine(tail.toString('utf8', start, lineEnd))) break;
    end = start;
  }
  return tail.subarray(0, end);
}

function isSyncedLine(line: string): boolean {
  try {
    const r = JSON.parse(line) as { t?: unknown };
    return r?.t === 'synced';
  } catch {
    return false;
  }
}
