import fs from 'node:fs';
import path from 'node:path';
import { sessionFolderLayout } from '../format/layout';
import { scanWireLog } from '../wire/wireReader';

/** One agent log's bytes not pushed yet: from where the remote's chunks end to what may be sent now. */
export interface NewBytes {
  readonly agent: string;
  readonly from: number;
  readonly to: number;
  readonly turns: number;
}

/** The agents of a session folder that have a log: `main` first, then its subagents by id. */
export function agentsWithLogs(sessionDir: string): string[] {
  const dir = sessionFolderLayout.agentsDir(sessionDir);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const withLog = names.filter((n) => fs.existsSync(path.join(dir, n, 'wire.jsonl')));
  return withLog.sort((a, b) => (a === 'main' ? -1 : b === 'main' ? 1 : a < b ? -1 : a > b ? 1 : 0));
}

/**
 * What of `agent`'s log is new since byte `from` (where the remote's copy of it ends). The main log is sent up
 * to the end of its last ended turn, so a turn still running is sent whole by a later push; a
 * subagent's log up to its last complete line; neither past `limit`. Throws when the log is shorter than what was pushed
 * (the remote's session is not this one's log).
 */
export function newBytesOf(sessionDir: string, agent: string, from: number, limit?: number): NewBytes {
  const file = sessionFolderLayout.agentLog(sessionDir, agent);
  const size = Math.min(fs.statSync(file).size, Math.max(limit ?? Infinity, from));
  if (size < from) throw new Error(`its ${agent} log has ${size} bytes, fewer than the ${from} the remote holds: the remote's copy is not of this log`);
  if (agent !== 'main') return { agent, from, to: lastLineEnd(file, from, size), turns: 0 };
  let to = from;
  let turns = 0;
  scanWireLog(
    file,
    (_record, offset, length) => {
      if (offset + length < size) {
        to = offset + length + 1; // through the newline; an unterminated last line waits for the next push
        turns++;
      }
    },
    { start: from, end: size, only: ['turn_end'] },
  );
  return { agent, from, to, turns };
}

/** The end (after its newline) of the last complete line between `from` and `size`; `from` when none. */
function lastLineEnd(file: string, from: number, size: number): number {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    for (let end = size; end > from;) {
      const start = Math.max(from, end - buf.length);
      fs.readSync(fd, buf, 0, end - start, start);
      const nl = buf.subarray(0, end - start).lastIndexOf(10);
      if (nl >= 0) return start + nl + 1;
      end = start;
    }
    return from;
  } finally {
    fs.closeSync(fd);
  }
}

/** Bytes `from`..`to` of `agent`'s log. */
export function readBytes(sessionDir: string, agent: string, from: number, to: number): Buffer {
  const fd = fs.openSync(sessionFolderLayout.agentLog(sessionDir, agent), 'r');
  try {
    const buf = Buffer.alloc(to - from);
    let read = 0;
    while (read < buf.length) {
      const n = fs.readSync(fd, buf, read, buf.length - read, from + read);
      if (n === 0) break;
      read += n;
    }
    return buf.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}
