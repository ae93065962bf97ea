// The storage patterns of peer tools, written honestly so Braid is measured against them on the
// same data: the best plain implementation of each pattern, not a strawman.
import fs from 'node:fs';
import path from 'node:path';

/**
 * (a) A resume picker that lists sessions by reading every session's log to get its title and
 * time, then sorts and filters by workspace (as pickers that scan rollout or JSONL files do).
 */
export function listByReadingEveryLog(sessionsDir: string, workspaceDir: string, limit: number): Array<{ id: string; title: string; ts: number }> {
  const found: Array<{ id: string; title: string; ts: number; workspaceDir: string }> = [];
  for (const key of fs.readdirSync(sessionsDir)) {
    for (const id of fs.readdirSync(path.join(sessionsDir, key))) {
      const log = path.join(sessionsDir, key, id, 'agents', 'main', 'wire.jsonl');
      let text: string;
      try {
        text = fs.readFileSync(log, 'utf8');
      } catch {
        continue;
      }
      let title = '';
      let ts = 0;
      let dir = '';
      for (const line of text.split('\n')) {
        if (!line) continue;
        const r = JSON.parse(line) as { t: string; ts: number; workspaceDir?: string; message?: { role: string; content: unknown } };
        if (r.t === 'agent') dir = r.workspaceDir ?? '';
        if (!title && r.t === 'message' && r.message?.role === 'user' && typeof r.message.content === 'string') title = r.message.content.slice(0, 50);
        ts = Math.max(ts, r.ts);
      }
      found.push({ id, title, ts, workspaceDir: dir });
    }
  }
  return found
    .filter((s) => s.workspaceDir === workspaceDir)
    .sort((a, b) => b.ts - a.ts)
    .slice(0, limit);
}

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
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  let carry = '';
  let count = 0;
  try {
    for (let read; (read = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0;) {
      const text = carry + buffer.toString('utf8', 0, read);
      const lines = text.split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines)
        if (line) {
          JSON.parse(line);
          count++;
        }
    }
  } finally {
    fs.closeSync(fd);
  }
  return count;
}

/** (d) The floor of a fork: the first `bytes` of a file copied in-process in 1 MB chunks, then fsynced. */
export function copyWithFsync(from: string, to: string, bytes: number): void {
  const src = fs.openSync(from, 'r');
  const dst = fs.openSync(to, 'w');
  try {
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    for (let pos = 0; pos < bytes;) {
      const n = fs.readSync(src, buffer, 0, Math.min(buffer.length, bytes - pos), pos);
      if (n === 0) break;
      fs.writeSync(dst, buffer, 0, n);
      pos += n;
    }
    fs.fsyncSync(dst);
  } finally {
    fs.closeSync(src);
    fs.closeSync(dst);
    fs.rmSync(to, { force: true });
  }
}

/** (f) The floor of a rewind: the bytes of a file from `start` to its end, read in 1 MB chunks. */
export function readRange(file: string, start: number): number {
  const fd = fs.openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  let total = 0;
  try {
    for (let read; (read = fs.readSync(fd, buffer, 0, buffer.length, start + total)) > 0;) total += read;
  } finally {
    fs.closeSync(fd);
  }
  return total;
}

/**
 * (b) A whole-JSON history file rewritten on each message, plus a global history array file
 * updated with the task's summary (as extensions that keep `api_conversation_history.json` and a
 * task-history list do). Returns the ms of each append.
 */
export function rewriteWholeHistory(dir: string, messages: readonly object[]): number[] {
  fs.mkdirSync(dir, { recursive: true });
  const historyFile = path.join(dir, 'api_conversation_history.json');
  const globalFile = path.join(dir, 'taskHistory.json');
  fs.writeFileSync(
    globalFile,
    JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: `task-${i}`, ts: i, task: `an older task ${i}`, tokensIn: 1, tokensOut: 1 }))),
  );
  const history: object[] = [];
  const times: number[] = [];
  for (const message of messages) {
    const start = process.hrtime.bigint();
    history.push(message);
    fs.writeFileSync(historyFile, JSON.stringify(history));
    const global = JSON.parse(fs.readFileSync(globalFile, 'utf8')) as Array<{ id: string; ts: number; size?: number }>;
    const entry = global.find((t) => t.id === 'current') ?? (global.push({ id: 'current', ts: 0 }), global.at(-1)!);
    entry.ts = Date.now();
    entry.size = history.length;
    fs.writeFileSync(globalFile, JSON.stringify(global));
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times;
}
