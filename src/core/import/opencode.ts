import fs from 'node:fs';
import path from 'node:path';
import type { ImportTarget } from './importLog';
import { assistantMessage, callTokens, fileTime, isObject, text, timeOf, toolResult, userMessage, type AnswerBlock, type PromptBlock } from './messages';
import { mapToolCall } from './toolMap';
import { filesUnder } from './findFiles';
import { readSourceHead } from '../fs/sourceFile';
import type { SourceDatabases } from './sourceDatabase';
import { injectedBy, wrapperKind } from './injected';
import { databaseSession, databaseSessions, exportSession, storageOf, storageSession, type OpencodeSession, type StoredMessage } from './opencodeStores';
import { FileReport, type ScannedSession, type SourceFormat, type SourceRef } from './source';

type Rec = Record<string, unknown>;

/**
 * opencode: its database `opencode.db` in its data folder (`~/.local/share/opencode`;
 * `XDG_DATA_HOME` moves `~/.local/share`), read as a consistent copy with its WAL; the JSON
 * files of its storage folder before 1.2 (`storage/`, which the database's migration leaves
 * behind: a session in both is read from the database); and files `opencode export` wrote. A
 * tool part holds a call and its result; a child session (`parentID`) is a subagent.
 */
export const opencode: SourceFormat = {
  tool: 'opencode',
  defaultRoots(env, home) {
    return [path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'opencode')];
  },
  async find(root, databases) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(root);
    } catch {
      return [];
    }
    if (stat.isFile()) return findInFile(root, databases);
    if (!stat.isDirectory()) return [];
    const inDatabases = (await Promise.all(databaseFiles(root).map((db) => findInFile(db, databases)))).flat();
    const known = new Set(inDatabases.map((r) => r.key));
    // The storage folder given, or found in it, or in each folder it holds (a folder of copied storages).
    const direct = storageOf(root, false, fs.existsSync);
    const storages = direct ? [direct] : [...subfolders(root), ...subfolders(root).flatMap(subfolders)].map((d) => storageOf(d, false, fs.existsSync));
    const inStorages = [...new Set(storages.filter((s): s is string => s !== null))].flatMap((storage) =>
      filesUnder(path.join(storage, 'session'), (file) => file.endsWith('.json'), 2).map((ref) => ({ ...ref, root: storage })),
    );
    const exports = filesUnder(root, (f) => f.endsWith('.json') && isExportFile(f, root), 0);
    return [...inDatabases, ...inStorages.filter((ref) => !known.has(path.basename(ref.file, '.json'))), ...exports];
  },
  claims(file, _head, bytes) {
    return isDatabase(bytes) || (file.endsWith('.json') && (storageOf(file, true, fs.existsSync) !== null || /"messages"\s*:/.test(bytes.toString('utf8'))));
  },
  async identify(ref, databases) {
    const session = await sessionOf(ref, databases, new FileReport());
    const info = session?.info;
    if (!info || typeof info.id !== 'string') return null;
    return { sourceId: info.id, ...(typeof info.parentID === 'string' ? { parentSourceId: info.parentID } : {}) };
  },
  scan: scanOpencode,
};

/** Whether a file's first bytes are SQLite's. */
function isDatabase(head: Buffer): boolean {
  return head.subarray(0, 16).toString('latin1') === 'SQLite format 3\0';
}

/** Whether a JSON file begins as `opencode export` writes one (`{"info": …`). */
function isExportFile(file: string, root: string): boolean {
  const head = readSourceHead(file, root, 256);
  return head !== null && /^\s*\{\s*"info"\s*:/.test(head.toString('utf8'));
}

/** opencode's databases in a folder: `opencode.db`, and a channel's `opencode-<channel>.db`. */
function databaseFiles(folder: string): string[] {
  return filesUnder(folder, (f) => /^opencode(-[\w.-]+)?\.db$/.test(path.basename(f)), 0).map((r) => r.file);
}

/** The sessions of one file: each session of a database, an export's session, or a storage folder's session file. */
async function findInFile(file: string, databases: SourceDatabases): Promise<SourceRef[]> {
  const root = path.dirname(file);
  const head = readSourceHead(file, root, 16);
  if (head && isDatabase(head)) return (await databaseSessions(databases, file)).map((s) => ({ file, root, key: s.id }));
  if (!file.endsWith('.json')) return [];
  const storage = storageOf(file, true, fs.existsSync);
  return [{ file, root: storage ?? root }];
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

/** The session a reference names, from whichever store holds it. */
async function sessionOf(ref: SourceRef, databases: SourceDatabases, report: FileReport): Promise<OpencodeSession | null> {
  if (ref.key !== undefined) return databaseSession(databases, ref.file, ref.key);
  const exported = exportSession(ref.file, ref.root, report);
  if (exported) return exported;
  return storageOf(ref.file, true, fs.existsSync) ? storageSession(ref.file, ref.root, report) : null;
}

async function scanOpencode(ref: SourceRef, report: FileReport, databases: SourceDatabases): Promise<ScannedSession | null> {
  const session = await sessionOf(ref, databases, report);
  if (!session || typeof session.info.id !== 'string') {
    report.skip("not an opencode session (a database, an export, or a storage folder's session file)");
    return null;
  }
  const { info } = session;
  const messages = await session.messages(report);
  if (!messages.length) {
    report.skip('no messages stored for the session');
    return null;
  }
  const created = isObject(info.time) ? info.time.created : undefined;
  return {
    tool: 'opencode',
    file: ref.file,
    root: ref.root,
    sourceId: String(info.id),
    cwd: text(info.directory),
    title: text(info.title) || null,
    startedAt: timeOf(created, fileTime(ref.file)),
    digest: session.digest,
    branches: ['linear'],
    // Its messages and parts are added to, a part's state updated as it runs: a session that changed grew (the import checks its earlier turns).
    grewFrom: async () => true,
    convert: async (_branch, target, rep) => convertMessages(messages, text(info.directory), target, rep),
  };
}

function convertMessages(messages: StoredMessage[], cwd: string, target: ImportTarget, report: FileReport): void {
  let inTurn = false;
  for (const { info, parts } of messages) {
    const ts = timeOf(isObject(info.time) ? info.time.created : 0, 0);
    const model = isObject(info.model) ? info.model : info;
    const snapshot = { provider: text(model.providerID) || 'unknown', id: text(model.modelID) || 'unknown', thinking: text(info.variant) || 'off' };
    if (info.role === 'user') {
      const typed = parts.flatMap(promptParts);
      const summary = isObject(info.summary) ? text(info.summary.body) || text(info.summary.title) : '';
      const prompt = typed.length ? typed : summary;
      const kind = wrapperKind(typeof prompt === 'string' ? prompt : (prompt.find((b) => b.type === 'text')?.text ?? ''));
      if (prompt.length && kind === null) {
        if (inTurn) target.endTurn();
        target.beginTurn(ts, snapshot);
        inTurn = true;
        target.message({ sourceId: text(info.id), ts, message: userMessage(prompt, ts) });
      } else if (prompt.length) {
        target.message({ sourceId: text(info.id), ts, message: userMessage(prompt, ts), injected: injectedBy('opencode', kind!) });
        inTurn = true; // the turn open, or one the log began for it
      }
      // Text opencode added to the prompt (a file's content it read, a note): context in the turn.
      const added = parts.filter((p) => p.type === 'text' && p.synthetic === true).map((p) => text(p.text));
      if (added.length) {
        target.message({
          sourceId: `${text(info.id)}:synthetic`,
          ts,
          message: userMessage(added.join('\n\n'), ts),
          injected: injectedBy('opencode', 'synthetic'),
        });
        inTurn = true;
      }
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
    // Braid records an answer when it is finished: at its completion, when opencode says it.
    answer(info, parts, snapshot, cwd, timeOf(isObject(info.time) ? info.time.completed : 0, ts), target, report);
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
