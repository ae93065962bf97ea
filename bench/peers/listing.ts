// How peer tools list and search sessions without an index, written as the best plain version of
// each pattern and run on Braid's own folders (sessions/<workspace>/<id>/agents/main/wire.jsonl),
// so Braid is measured against what they really do on the same bytes:
//   (a1) Claude Code: reads every log in the current workspace's folder whole, then sorts.
//   (a2) Kimi: reads each log of the workspace's folder only up to its first turn, plus a stat
//        for its time.
//   (a3) Codex: walks the logs newest first by name (its names start with the creation time, as
//        Braid's ULIDs do), reads each one's head, and stops after 100 files.
//   (s)  a search without an index: reads every log of the folder and keeps the sessions whose
//        prompts hold every word.
import fs from 'node:fs';
import path from 'node:path';

/** A session as a picker lists it. */
export interface Listed {
  readonly id: string;
  readonly title: string;
  /** When it was last used (ms). */
  readonly ts: number;
}

interface LogLine {
  t: string;
  ts: number;
  message?: { role: string; content: unknown };
}

const logOf = (sessionDir: string) => path.join(sessionDir, 'agents', 'main', 'wire.jsonl');

/** The session folders of the given workspace folders. */
function sessionDirs(workspaceFolders: readonly string[]): Array<{ id: string; dir: string }> {
  return workspaceFolders.flatMap((folder) =>
    fs
      .readdirSync(folder)
      .filter((name) => name.startsWith('ses_'))
      .map((id) => ({ id, dir: path.join(folder, id) })),
  );
}

const newestFirst = (a: Listed, b: Listed) => b.ts - a.ts;

function promptText(r: LogLine): string | undefined {
  if (r.t !== 'message' || r.message?.role !== 'user') return undefined;
  return typeof r.message.content === 'string' ? r.message.content : JSON.stringify(r.message.content);
}

/** A session's whole log, or undefined when it cannot be read. */
function readLog(dir: string): string | undefined {
  try {
    return fs.readFileSync(logOf(dir), 'utf8');
  } catch {
    return undefined;
  }
}

/** (a1) Every log read and parsed whole: title from the first prompt, time from the last record. */
export function listReadingEveryLog(workspaceFolders: readonly string[], limit: number): Listed[] {
  const found: Listed[] = [];
  for (const { id, dir } of sessionDirs(workspaceFolders)) {
    const text = readLog(dir);
    if (text === undefined) continue;
    let title = '';
    let ts = 0;
    for (const line of text.split('\n')) {
      if (!line) continue;
      const r = JSON.parse(line) as LogLine;
      title ||= promptText(r)?.slice(0, 80) ?? '';
      ts = Math.max(ts, r.ts);
    }
    found.push({ id, title, ts });
  }
  return found.sort(newestFirst).slice(0, limit);
}

/** The lines of a log up to the end of its first turn (or its first 10 lines with `maxLines`), read in 16 KB pieces. */
export function readHead(file: string, maxLines = Number.POSITIVE_INFINITY): LogLine[] {
  const fd = fs.openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(16 * 1024);
  const lines: LogLine[] = [];
  let carry = '';
  try {
    for (let read; (read = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0;) {
      const parts = (carry + buffer.toString('utf8', 0, read)).split('\n');
      carry = parts.pop() ?? '';
      for (const part of parts) {
        if (!part) continue;
        const r = JSON.parse(part) as LogLine;
        lines.push(r);
        if (r.t === 'turn_end' || lines.length >= maxLines) return lines;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return lines;
}

/** (a2) Each log read to its first turn (the title) and stat-ed (the time: its mtime). */
export function listByHeadAndStat(workspaceFolders: readonly string[], limit: number): Listed[] {
  const found: Listed[] = [];
  for (const { id, dir } of sessionDirs(workspaceFolders)) {
    const file = logOf(dir);
    let ts: number;
    try {
      ts = fs.statSync(file).mtimeMs;
    } catch {
      continue;
    }
    const title = readHead(file).map(promptText).find(Boolean) ?? '';
    found.push({ id, title: title.slice(0, 80), ts });
  }
  return found.sort(newestFirst).slice(0, limit);
}

/**
 * (a3) The logs newest first by name (creation time), each one's first 10 lines read, stopping
 * after `maxFiles` files or a full page. The page is in creation order, not last use.
 */
export function listNewestFirst(workspaceFolders: readonly string[], limit: number, maxFiles = 100): Listed[] {
  const dirs = sessionDirs(workspaceFolders).sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const found: Listed[] = [];
  for (const { id, dir } of dirs.slice(0, maxFiles)) {
    let head: LogLine[];
    try {
      head = readHead(logOf(dir), 10);
    } catch {
      continue;
    }
    const title = head.map(promptText).find(Boolean) ?? '';
    found.push({ id, title: title.slice(0, 80), ts: head.at(-1)?.ts ?? 0 });
    if (found.length >= limit) break;
  }
  return found;
}

/**
 * (s) Every log read; a session matches when what its messages say (prompts, answers, tool calls
 * and results) holds every word, each as the start of a word (lower-cased), as Braid's search matches.
 */
export function searchByScanning(workspaceFolders: readonly string[], query: string, limit: number): Listed[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const starts = words.map((w) => new RegExp(`(?<![\\p{L}\\p{N}])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'u'));
  const found: Listed[] = [];
  for (const { id, dir } of sessionDirs(workspaceFolders)) {
    const text = readLog(dir);
    if (text === undefined) continue;
    let said = '';
    let ts = 0;
    for (const line of text.split('\n')) {
      if (!line.includes('"t":"message"')) continue;
      const r = JSON.parse(line) as LogLine;
      said += ` ${textsOf(r.message?.content).join(' ').toLowerCase()}`;
      ts = Math.max(ts, r.ts);
    }
    if (starts.every((w) => w.test(said))) found.push({ id, title: said.slice(0, 80), ts });
  }
  return found.sort(newestFirst).slice(0, limit);
}

/** The strings a message's content holds: its text, thinking, a tool call's argument values, a result's text. */
function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (Array.isArray(content)) return content.flatMap(textsOf);
  if (typeof content !== 'object' || content === null) return [];
  const block = content as Record<string, unknown>;
  if (block.type === 'toolCall') return textsOf(Object.values((block.arguments as Record<string, unknown>) ?? {}));
  return [block.text, block.thinking].flatMap(textsOf);
}

/** How many of `page` are among the `truth` page (the sessions most recently used). */
export function sameAsTruth(page: readonly Listed[], truth: readonly Listed[]): number {
  const wanted = new Set(truth.map((s) => s.id));
  return page.filter((s) => wanted.has(s.id)).length;
}
