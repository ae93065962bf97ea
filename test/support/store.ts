import fs from 'node:fs';
import { after, before } from 'node:test';
import os from 'node:os';
import path from 'node:path';
import type { Message } from '@mariozechner/pi-ai';
import { silentLogger, type Logger } from '../../src/core/logger';
import { SessionStore } from '../../src/core/store/sessionStore';
import type { SessionWriter } from '../../src/core/store/sessionWriter';
import { isSessionId } from '../../src/core/ids';

export const repoRoot = process.env.BRAID_REPO_ROOT ?? process.cwd();
/** The wasm of the sql.js Braid bundles (scripts/sqlJsBuild.mjs: its unminified build, whose JavaScript goes with this file). */
export const SQL_JS_WASM = 'sql-wasm-debug.wasm';

/** sql.js's wasm in a checkout of the repository at `root`. */
export function wasmPathIn(root: string): string {
  return path.join(root, 'node_modules', 'sql.js', 'dist', SQL_JS_WASM);
}

export const wasmPath = wasmPathIn(repoRoot);

/** A fresh temp folder; the caller removes it. */
export function tempDir(prefix = 'braid-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Fresh temp folders that are all removed when `cleanup` runs (pass it to `after`). */
export function tempRoots(): { root: () => string; cleanup: () => void } {
  const made: string[] = [];
  return {
    root: () => {
      const r = tempDir();
      made.push(r);
      return r;
    },
    cleanup: () => made.forEach((r) => fs.rmSync(r, { recursive: true, force: true })),
  };
}

export function openStore(
  root: string,
  options: { logger?: Logger; watch?: boolean; saveDelayMs?: number; workspaceKey?: string } = {},
): Promise<SessionStore> {
  const { logger = silentLogger, watch, saveDelayMs = 0, workspaceKey } = options;
  return SessionStore.open({ root, wasmPath, logger, watch, saveDelayMs, workspaceKey });
}

/** A logger that remembers warnings, for asserting that bad input was reported. */
export function recordingLogger(): Logger & { warnings: string[]; infos: string[] } {
  const warnings: string[] = [];
  const infos: string[] = [];
  return { warnings, infos, trace() {}, info: (m) => infos.push(m), warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
}

export function userMessage(text: string): Message {
  return { role: 'user', content: text, timestamp: Date.now() };
}

export function assistantMessage(text: string): Message {
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    api: 'openai-completions',
    provider: 'test',
    model: 'test-model',
    usage: { input: 10, output: 5, cacheRead: 2, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 } },
    stopReason: 'stop',
    timestamp: Date.now(),
  };
}

/** Appends one whole turn: prompt, answer, usage, turn_end. Returns the turn number. */
export async function addTurn(writer: SessionWriter, prompt: string, answer: string): Promise<number> {
  const turn = await writer.beginTurn(`p-${prompt.slice(0, 8)}`, { provider: 'test', id: 'test-model', thinking: 'off' });
  await writer.appendMessage(userMessage(prompt));
  const reply = await writer.appendMessage(assistantMessage(answer));
  await writer.appendUsage({
    messageId: reply.id,
    provider: 'test',
    model: 'test-model',
    input: 10,
    output: 5,
    cacheRead: 2,
    cacheWrite: 0,
    reasoning: 0,
    cost: 0.001,
    latencyMs: 5,
    stopReason: 'stop',
  });
  await writer.endTurn('completed');
  return turn;
}

/** The session folders' names in a workspace folder (its index.sqlite and lock left out); none when it is missing. */
export function sessionIdsIn(workspaceFolder: string): string[] {
  if (!fs.existsSync(workspaceFolder)) return [];
  return fs.readdirSync(workspaceFolder).filter(isSessionId).sort();
}

/**
 * A store opened before a file's tests and closed after them, with one session per prompt (a
 * first turn, then the prompt's); `nameOf` is the name of the prompt a session id was made for.
 */
export function promptStore(prompts: Record<string, string>): { store: () => SessionStore; ids: Record<string, string>; nameOf: (id: string) => string } {
  const { root, cleanup } = tempRoots();
  let store: SessionStore | undefined;
  const ids: Record<string, string> = {};
  before(async () => {
    store = await openStore(root());
    for (const [name, prompt] of Object.entries(prompts)) {
      const s = await store.create({ workspaceDir: '/w' });
      const w = await store.openWriter(s.id);
      await addTurn(w, 'first question', 'answer');
      await addTurn(w, prompt, 'answer');
      await w.close();
      ids[name] = s.id;
    }
  });
  after(async () => {
    await store?.close();
    cleanup();
  });
  const nameOf = (id: string) => Object.entries(ids).find(([, i]) => i === id)![0];
  return { store: () => store!, ids, nameOf };
}
