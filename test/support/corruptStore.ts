import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../../src/cli/run';
import { newAgentId } from '../../src/core/ids';
import { forkSession } from '../../src/core/store/fork';
import { WireLogWriter } from '../../src/core/wire/wireLog';
import { listSessionFolders } from '../../src/core/format/layout';
import { StoreLayout } from '../../src/core/format/layout';
import { workspaceKey } from '../../src/core/workspace/workspaceKey';
import { addTurn, assistantMessage, openStore, userMessage, wasmPath } from './store';

// The fixture and the tools of the corruption suite (test/faults/corruption.test.ts): a store of
// several sessions (turns, a fork, a compaction, a subagent, two workspaces) built once and copied
// for each trial, a seeded random source, and the CLI run in-process.

/** mulberry32: a small seeded generator, so a failing trial can be replayed from its seed. */
export function seededRandom(seed: number): { next: () => number; int: (n: number) => number; pick: <T>(xs: readonly T[]) => T; bytes: (n: number) => Buffer } {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (xs) => xs[int(xs.length)]!, bytes: (n) => Buffer.from(Array.from({ length: n }, () => int(256))) };
}

/** A message as `braid show --json` prints it. */
export interface ShownMessage {
  id: string;
  turn: number;
  role: string;
  text: string;
}

/** What the fixture holds, as written. */
export interface Fixture {
  readonly root: string;
  /** Session ids: a (3 turns, a subagent), b (2 turns, a compaction), fork (of a at turn 2), other (another workspace). */
  readonly ids: { a: string; b: string; fork: string; other: string };
  readonly workspaces: { app: string; other: string };
  /** Every session's messages as `show --json` printed them from the intact store. */
  readonly messages: Map<string, ShownMessage[]>;
  /** The subagent's id in session a. */
  readonly subagent: string;
}

export const APP_DIR = '/corrupt/app';
export const OTHER_DIR = '/corrupt/other';

/** The index file of one of the fixture's two workspaces. */
export function indexFileOf(root: string, workspaceDir: string): string {
  return new StoreLayout(root).indexFile(workspaceKey(workspaceDir));
}

/** Builds the fixture store under `root`. */
export async function buildFixture(root: string): Promise<Fixture> {
  const store = await openStore(root);
  const a = await store.create({ workspaceDir: APP_DIR });
  let w = await store.openWriter(a.id);
  for (let i = 1; i <= 3; i++) await addTurn(w, `prompt ${i} of a: ${'é'.repeat(i)} explain the parser`, `answer ${i} of a, in detail`);
  await w.close();
  // A subagent's own log, as the task tool writes it.
  const subagent = newAgentId();
  const subLog = WireLogWriter.open(store.layout.agentLog(store.locate(a.id), subagent));
  await subLog.append(
    [
      { t: 'agent', agentId: subagent, parentAgentId: 'main', purpose: 'look around' },
      { t: 'message', turn: 3, id: 'msg_sub_1', message: userMessage('look at the parser') },
      { t: 'message', turn: 3, id: 'msg_sub_2', message: assistantMessage('the parser is fine') },
    ],
    { durable: true },
  );
  await subLog.close();

  const b = await store.create({ workspaceDir: APP_DIR, title: 'Named by the user' });
  w = await store.openWriter(b.id);
  await addTurn(w, 'first prompt of b', 'first answer of b');
  const kept = await w.beginTurn('p-b2', { provider: 'test', id: 'test-model', thinking: 'off' });
  const prompt = await w.appendMessage(userMessage('second prompt of b'));
  await w.appendMessage(assistantMessage('second answer of b'));
  await w.appendCompaction(
    { summary: 'b talked about two prompts', firstKeptMessageId: prompt.id, summarized: 2 },
    {
      messageId: 'msg_summary',
      provider: 'test',
      model: 'test-model',
      input: 3,
      output: 2,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
      cost: 0,
      latencyMs: 1,
      stopReason: 'stop',
    },
  );
  await w.endTurn('completed');
  await w.close();
  void kept;

  const fork = await forkSession(store, a.id, { turn: 2 });
  const other = await store.create({ workspaceDir: OTHER_DIR });
  w = await store.openWriter(other.id);
  await addTurn(w, 'prompt of the other workspace', 'answer elsewhere');
  await addTurn(w, 'second prompt elsewhere', 'second answer elsewhere');
  await w.close();
  await store.close();

  // Whole-second mtimes survive a copy exactly (the index compares them), so each trial's copy
  // starts with an index that agrees with its folders.
  for (const { dir } of listSessionFolders(new StoreLayout(root))) {
    const stateFile = path.join(dir, 'state.json');
    const seconds = Math.floor(fs.statSync(stateFile).mtimeMs / 1000);
    fs.utimesSync(stateFile, seconds, seconds);
  }
  const rebuilt = await braid(root, ['rebuild-index']);
  if (rebuilt.code !== 0) throw new Error(`fixture: rebuild-index failed: ${rebuilt.err}`);
  const ids = { a: a.id, b: b.id, fork: fork.id, other: other.id };
  const messages = new Map<string, ShownMessage[]>();
  for (const id of Object.values(ids)) {
    const shown = await braid(root, ['show', id, '--json']);
    if (shown.code !== 0) throw new Error(`fixture: show ${id} failed: ${shown.err}`);
    messages.set(id, (JSON.parse(shown.out) as { messages: ShownMessage[] }).messages);
  }
  return { root, ids, workspaces: { app: APP_DIR, other: OTHER_DIR }, messages, subagent };
}

/** Runs the CLI in-process against a data folder. */
export async function braid(root: string, args: readonly string[], cwd = APP_DIR): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--data-dir', root, ...args], {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env: {},
    cwd,
    wasmPath,
  });
  return { code, out, err };
}

/** The session folders on disk, by id. */
export function foldersOf(root: string): Map<string, string> {
  return new Map(listSessionFolders(new StoreLayout(root)).map((f) => [f.id, f.dir]));
}

/** The byte range of every line of a file (newline included), with its text. */
export function linesOf(data: Buffer): Array<{ start: number; end: number; text: string }> {
  const lines: Array<{ start: number; end: number; text: string }> = [];
  let start = 0;
  while (start < data.length) {
    const nl = data.indexOf(10, start);
    const end = nl < 0 ? data.length : nl + 1;
    lines.push({ start, end, text: data.subarray(start, nl < 0 ? end : nl).toString('utf8') });
    start = end;
  }
  return lines;
}

/** Every file under a folder, relative, with its bytes. */
export function snapshotFiles(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files.set(path.relative(dir, full), fs.readFileSync(full));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return files;
}
