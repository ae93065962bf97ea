// The storage patterns of peer tools, written honestly so Braid is measured against them on the
// same data: the best plain implementation of each pattern, not a strawman.
import fs from 'node:fs';
import path from 'node:path';

/** (c) Opening a session by reading and parsing its whole log, then taking the last messages. */
export function openByParsingWholeLog(file: string, limit: number): unknown[] {
  const records = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { t: string });
  return records.filter((r) => r.t === 'message').slice(-limit);
}

/** (e) The physical floor of replay: read the file in chunks and JSON.parse every line. */
export function parseEveryLine(file: string): number {
  const fd = fs.openSync(file, 'r');
  let carry: Buffer | null = null;
  let count = 0;
  try {
    for (let read; (read = fs.readSync(fd, CHUNK, 0, CHUNK.length, null)) > 0;) {
      const bytes: Buffer = carry ? Buffer.concat([carry, CHUNK.subarray(0, read)]) : CHUNK.subarray(0, read);
      let start = 0;
      // Each line decoded on its own (a flat string, JSON.parse's fast case), none kept.
      for (let end = bytes.indexOf(10, start); end !== -1; start = end + 1, end = bytes.indexOf(10, start)) {
        if (end > start) {
          JSON.parse(bytes.toString('utf8', start, end));
          count++;
        }
      }
      carry = start < bytes.length ? Buffer.from(bytes.subarray(start)) : null;
    }
    if (carry?.length) {
      JSON.parse(carry.toString('utf8'));
      count++;
    }
  } finally {
    fs.closeSync(fd);
  }
  return count;
}

/** The floor's one read buffer (1 MB), shared by every file it reads. */
const CHUNK = Buffer.allocUnsafe(1024 * 1024);

/** Opens `file` with `flags`, runs `fn` on its descriptor, and closes it. */
function withFile<T>(file: string, flags: string, fn: (fd: number) => T): T {
  const fd = fs.openSync(file, flags);
  try {
    return fn(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `data` over `file` and fsyncs it: the peer's write, made durable as Braid's are. */
function writeDurably(file: string, data: string | Buffer): void {
  withFile(file, 'w', (fd) => {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  });
}

/**
 * (b) A whole-JSON history file rewritten on each message, and a global list of every session
 * (its summary updated each time), as extensions that keep `api_conversation_history.json` and
 * a task-history list do; each write fsynced here, so both sides are durable.
 */
export class WholeHistoryPeer {
  private readonly historyFile: string;
  private readonly globalFile: string;
  private readonly history: object[] = [];

  /** A session with `earlier` messages, in a global list of `sessions` sessions. */
  constructor(dir: string, sessions: number, earlier: readonly object[]) {
    fs.mkdirSync(dir, { recursive: true });
    this.historyFile = path.join(dir, 'api_conversation_history.json');
    this.globalFile = path.join(dir, 'taskHistory.json');
    const list = Array.from({ length: sessions }, (_, i) => ({
      id: `task-${i}`,
      ts: i,
      task: `an older task ${i}: refactor the parser`,
      tokensIn: 1200,
      tokensOut: 300,
      totalCost: 0.002,
      size: 90_000,
    }));
    writeDurably(this.globalFile, JSON.stringify(list));
    this.history.push(...earlier);
    writeDurably(this.historyFile, JSON.stringify(this.history));
  }

  /** One whole turn: per message, the history rewritten and the global list read, updated and rewritten. */
  turn(messages: readonly object[]): void {
    for (const message of messages) {
      this.history.push(message);
      writeDurably(this.historyFile, JSON.stringify(this.history));
      const global = JSON.parse(fs.readFileSync(this.globalFile, 'utf8')) as Array<{ id: string; ts: number; size?: number }>;
      const entry = global.find((t) => t.id === 'current') ?? (global.push({ id: 'current', ts: 0 }), global.at(-1)!);
      entry.ts = Date.now();
      entry.size = this.history.length;
      writeDurably(this.globalFile, JSON.stringify(global));
    }
  }
}

/** The floor of a fork: the log's first `bytes` copied in this process into a new file, fsynced with its folder. */
export function copyWithFsync(source: string, target: string, bytes: number): void {
  const buffer = Buffer.allocUnsafe(bytes);
  withFile(source, 'r', (fd) => fs.readSync(fd, buffer, 0, bytes, 0));
  writeDurably(target, buffer);
  withFile(path.dirname(target), 'r', (fd) => fs.fsyncSync(fd));
}

/** The floor of a rewind: reading the part of the log it drops (from `offset` to the end). */
export function readTail(file: string, offset: number): number {
  return withFile(file, 'r', (fd) => {
    const buffer = Buffer.allocUnsafe(Math.max(0, fs.fstatSync(fd).size - offset));
    return fs.readSync(fd, buffer, 0, buffer.length, offset);
  });
}
