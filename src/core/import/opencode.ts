import fs from 'node:fs';
import path from 'node:path';
import type { ImportTarget } from './importLog';
import { assistantMessage, callTokens, isObject, text, timeOf, toolResult, userMessage, type AnswerBlock, type PromptBlock } from './messages';
import { DigestSink } from './sourceLines';
import { mapToolCall } from './toolMap';
import { filesUnder } from './findFiles';
import { FileReport, type ScannedSession, type SourceFormat } from './source';

type Rec = Record<string, unknown>;

/**
 * opencode (up to 1.1): JSON files under `~/.local/share/opencode/storage/` (`XDG_DATA_HOME`
 * moves `~/.local/share`): `session/<project>/<session>.json`, `message/<session>/<message>.json`,
 * `part/<message>/<part>.json` (older versions: every part in `part/`, naming its message).
 * A tool part holds a call and its result; a child session (`parentID`) is a subagent.
 */
export const opencode: SourceFormat = {
  tool: 'opencode',
  defaultRoots(env, home) {
    return [path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'opencode', 'storage')];
  },
  findFiles(root) {
    if (root.endsWith('.json')) return storageOf(root) ? [root] : [];
    // The storage folder given, or found in it, or in each folder it holds (a folder of copied storages).
    const direct = storageOf(root);
    const storages = direct ? [direct] : [...subfolders(root), ...subfolders(root).flatMap(subfolders)].map(storageOf).filter((s): s is string => s !== null);
    return storages.flatMap((storage) => filesUnder(path.join(storage, 'session'), (file) => file.endsWith('.json'), 2));
  },
  identify(file) {
    const info = readJson(file, null, new FileReport());
    if (!info || typeof info.id !== 'string') return null;
    return { sourceId: info.id, ...(typeof info.parentID === 'string' ? { parentSourceId: info.parentID } : {}) };
  },
  scan: scanOpencode,
};

/** The storage folder a path names: itself, its `storage/`, or the one a session file lies in. */
function storageOf(p: string): string | null {
  const start = p.endsWith('.json') ? path.dirname(p) : p;
  // A session file lies two folders below its storage (session/<project>/); a folder given is the storage or holds it.
  for (let dir = start, i = 0; i < (start === p ? 1 : 3); i++, dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'session')) && fs.existsSync(path.join(dir, 'message'))) return dir;
    if (fs.existsSync(path.join(dir, 'storage', 'session'))) return path.join(dir, 'storage');
  }
  return null;
}

function subfolders(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(dir, e.name));
  } catch {
    return [];
  }
}

function readJson(file: string, digest: DigestSink | null, report: FileReport): Rec | null {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    report.skip('files that could not be read');
    return null;
  }
  digest?.update(bytes);
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    if (isObject(value)) return value;
  } catch {
    // reported below
  }
  report.skip('files that are not JSON objects');
  return null;
}

const jsonFiles = (dir: string): string[] => filesUnder(dir, (f) => f.endsWith('.json'), 0);

interface StoredMessage {
  info: Rec;
  parts: Rec[];
}

/** A session's messages in order, each with its parts (both sorted by file name: their ids sort by time). */
function readMessages(storage: string, sessionId: string, digest: DigestSink | null, report: FileReport): StoredMessage[] {
  const infos = jsonFiles(path.join(storage, 'message', sessionId))
    .map((f) => readJson(f, digest, report))
    .filter((m): m is Rec => m !== null)
    .sort((a, b) => timeOf(isObject(a.time) ? a.time.created : 0, 0) - timeOf(isObject(b.time) ? b.time.created : 0, 0));
  let flat: Rec[] | null = null;
  return infos.map((info) => {
    const id = text(info.id);
    let parts = jsonFiles(path.join(storage, 'part', id))
      .map((f) => readJson(f, digest, report))
      .filter((p): p is Rec => p !== null);
    if (!parts.length) {
      flat ??= jsonFiles(path.join(storage, 'part'))
        .map((f) => readJson(f, digest, report))
        .filter((p): p is Rec => p !== null);
      parts = flat.filter((p) => p.messageID === id);
    }
    return { info, parts };
  });
}

async function scanOpencode(file: string, report: FileReport): Promise<ScannedSession | null> {
  const storage = storageOf(file);
  const digest = new DigestSink();
  const info = storage ? readJson(file, digest, report) : null;
  if (!storage || !info || typeof info.id !== 'string') {
    report.skip('not an opencode session file');
    return null;
  }
  const sessionId = info.id;
  const messages = readMessages(storage, sessionId, digest, report);
  if (!messages.length) {
    report.skip('no messages stored for the session');
    return null;
  }
  const created = isObject(info.time) ? info.time.created : undefined;
  return {
    tool: 'opencode',
    file,
    sourceId: sessionId,
    cwd: text(info.directory),
    title: text(info.title) || null,
    startedAt: timeOf(created, fs.statSync(file).mtimeMs),
    digest: digest.finish(),
    branches: ['linear'],
    // Its files are written once each and added to: a session that changed grew (the import checks its earlier turns).
    grewFrom: async () => true,
    convert: async (_branch, target, rep) => convertMessages(readMessages(storage, sessionId, null, rep), text(info.directory), target, rep),
  };
}

function convertMessages(messages: StoredMessage[], cwd: string, target: ImportTarget, report: FileReport): void {
  let inTurn = false;
  for (const { info, parts } of messages) {
    const ts = timeOf(isObject(info.time) ? info.time.created : 0, 0);
    const model = isObject(info.model) ? info.model : info;
    const snapshot = { provider: text(model.providerID) || 'unknown', id: text(model.modelID) || 'unknown', thinking: text(info.variant) || 'off' };
    if (info.role === 'user') {
      if (inTurn) target.endTurn();
      target.beginTurn(ts, snapshot);
      inTurn = true;
      const blocks = parts.flatMap(promptParts);
      const summary = isObject(info.summary) ? text(info.summary.body) || text(info.summary.title) : '';
      target.message({ sourceId: text(info.id), ts, message: userMessage(blocks.length ? blocks : summary, ts) });
      continue;
    }
    if (info.role !== 'assistant') {
      report.skip(`messages of role ${text(info.role) || 'none'}`);
      continue;
    }
    if (!inTurn) {
      target.beginTurn(ts, snapshot);
      inTurn = true;
    }
    answer(info, parts, snapshot, cwd, ts, target, report);
  }
  if (inTurn) target.endTurn();
}

function promptParts(p: Rec): PromptBlock[] {
  if (p.type === 'text' && p.synthetic !== true) return [{ type: 'text', text: text(p.text) }];
  if (p.type === 'file') return [{ type: 'text', text: `[file: ${text(p.filename) || text(p.url)}]` }];
  return [];
}

/** One assistant message: its answer (text, reasoning, the tool calls), then each tool part's result. */
function answer(info: Rec, parts: Rec[], model: { provider: string; id: string }, cwd: string, ts: number, target: ImportTarget, report: FileReport): void {
  const blocks: AnswerBlock[] = [];
  const results: Array<{ sourceId: string; message: ReturnType<typeof toolResult> }> = [];
  for (const p of parts) {
    if (p.type === 'text') blocks.push({ type: 'text', text: text(p.text) });
    else if (p.type === 'reasoning') blocks.push({ type: 'thinking', thinking: text(p.text) });
    else if (p.type === 'file') blocks.push({ type: 'text', text: `[file: ${text(p.filename) || text(p.url)}]` });
    else if (p.type === 'tool') {
      const state = isObject(p.state) ? p.state : {};
      const call = mapToolCall('opencode', text(p.tool), isObject(state.input) ? state.input : {}, cwd);
      const id = text(p.callID) || text(p.id);
      blocks.push({ type: 'toolCall', id, name: call.name, arguments: call.arguments });
      const failed = state.status === 'error' || (isObject(state.metadata) && typeof state.metadata.exit === 'number' && state.metadata.exit !== 0);
      const output = text(state.output) || text(state.error) || `(the tool ${text(state.status) || 'did not finish'})`;
      results.push({
        sourceId: `${text(p.id)}:result`,
        message: toolResult(id, call.name, [{ type: 'text', text: output }], failed, timeOf(isObject(state.time) ? state.time.end : 0, ts)),
      });
    } else if (!['step-start', 'step-finish', 'snapshot', 'patch'].includes(text(p.type))) report.skip(`${text(p.type) || 'untyped'} parts`);
  }
  const tokens = isObject(info.tokens) ? info.tokens : {};
  const cache = isObject(tokens.cache) ? tokens.cache : {};
  const error = isObject(info.error) ? text(isObject(info.error.data) ? info.error.data.message : '') || text(info.error.name) : '';
  const cost = typeof info.cost === 'number' ? info.cost : undefined;
  const message = assistantMessage({
    provider: model.provider,
    api: 'unknown',
    model: model.id,
    content: blocks,
    tokens: callTokens(tokens.input, tokens.output, cache.read, cache.write),
    stopReason: error
      ? text(isObject(info.error) ? info.error.name : '') === 'MessageAbortedError'
        ? 'aborted'
        : 'error'
      : results.length
        ? 'toolUse'
        : 'stop',
    ts,
    ...(cost !== undefined ? { cost } : {}),
    ...(error ? { errorMessage: error } : {}),
  });
  target.message({ sourceId: text(info.id), ts, message });
  for (const r of results) target.message({ sourceId: r.sourceId, ts: r.message.timestamp, message: r.message });
}
