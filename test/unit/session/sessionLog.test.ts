import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Logger } from '../../../src/core/logger';
import { resolveModel } from '../../../src/core/model/modelSettings';
import { REDACTED } from '../../../src/core/session/secrets';
import { toolTarget } from '../../../src/core/session/sessionLog';
import { ScriptedModelServer } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';
import { openStore, recordingLogger, tempDir } from '../../support/store';

// What Show Log holds after a turn: one line per session open and close, turn start and end,
// model call, tool call; durations and outcomes, never prompt text, file contents or the key.
const server = new ScriptedModelServer();
const KEY = 'sk-test-9f8e7d6c5b4a39281706';
const PROMPT = 'Please look at notes.txt, my passphrase is tangerine-obelisk-42';
let f: SessionFixture;
let baseUrl = '';
before(async () => {
  baseUrl = await server.start();
  f = await sessionFixture({ 'notes.txt': 'The secret recipe: two eggs.\n' });
});
after(async () => {
  await f.cleanup();
  await server.close();
});

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (m: string) => void lines.push(`${level} ${m}`);
  return { lines, logger: { trace: at('trace'), info: at('info'), warn: at('warn'), error: at('error') } };
}

test('a turn with a tool call and a model error leaves one line per step, with ids and durations, and no prompt, content or key', async () => {
  server.enqueue(
    {
      kind: 'toolCalls',
      text: 'Reading it.',
      calls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"notes.txt"}' }],
      usage: { prompt: 120, completion: 8 },
    },
    // The server echoes the key in its error, as some proxies do.
    { kind: 'httpError', status: 401, message: `upstream refused key ${KEY}` },
  );
  const { logger, lines } = capture();
  const model = resolveModel({ provider: 'openai-compatible', model: 'scripted-model', baseUrl, demo: false });
  const session = await f.open({ model: () => ({ model, thinking: 'off' }), apiKey: () => KEY, logger });
  const id = session.id;
  await session.submit(PROMPT);
  await session.waitForIdle();
  await session.close();

  const expected = [
    new RegExp(`^info session ${id} created$`),
    new RegExp(`^info session ${id} turn 1 started: model openai-compatible/scripted-model, thinking off, context window 128000 tokens, answers up to 8192$`),
    new RegExp(
      `^info session ${id} turn 1: model call openai-compatible/scripted-model answered in \\d+(\\.\\d)? m?s \\(stop: toolUse; 120 tokens in, 8 out\\)$`,
    ),
    new RegExp(`^info session ${id} turn 1: tool read_file "notes\\.txt" done in \\d+(\\.\\d)? m?s$`),
    new RegExp(
      `^info session ${id} turn 1: model call openai-compatible/scripted-model failed after \\d+(\\.\\d)? m?s: .*401.*upstream refused key \\[API key removed\\]`,
    ),
    new RegExp(`^info session ${id} turn 1 failed after \\d+(\\.\\d)? m?s \\(2 model calls, 1 tool call\\): .*upstream refused key \\[API key removed\\]`),
    new RegExp(`^info session ${id} closed$`),
  ];
  assert.equal(lines.length, expected.length, lines.join('\n'));
  expected.forEach((pattern, i) => assert.match(lines[i]!, pattern));
  const all = lines.join('\n');
  assert.ok(!all.includes(KEY), 'no key');
  assert.ok(all.includes(REDACTED));
  for (const secret of ['tangerine-obelisk-42', 'passphrase', 'secret recipe', 'Reading it.']) assert.ok(!all.includes(secret), `no "${secret}" in the log`);
});

test('a reopened session says what it holds; tool lines name a file or a program, never arguments or patterns', async () => {
  server.enqueue({ kind: 'text', chunks: ['Done.'], usage: { prompt: 10, completion: 1 } });
  const model = resolveModel({ provider: 'openai-compatible', model: 'scripted-model', baseUrl, demo: false });
  const first = await f.open({ model: () => ({ model, thinking: 'off' }) });
  await first.submit('hello');
  await first.waitForIdle();
  await first.close();
  const { logger, lines } = capture();
  const again = await f.open({ model: () => ({ model, thinking: 'off' }), logger }, first.id);
  await again.close();
  assert.deepEqual(lines, [`info session ${first.id} opened (1 turn so far)`, `info session ${first.id} closed`]);

  assert.equal(toolTarget('bash', { command: 'curl -H "Authorization: Bearer abc" https://x' }, '/w'), '(curl)');
  assert.equal(toolTarget('bash', { command: 'TOKEN=abc npm test' }, '/w'), '');
  assert.equal(toolTarget('bash', { command: '/usr/bin/git status' }, '/w'), '(git)');
  assert.equal(toolTarget('grep', { pattern: 'password=.*' }, '/w'), '');
  assert.equal(toolTarget('edit_file', { path: '/w/src/a.ts', old_text: 'x', new_text: 'y' }, '/w'), '"src/a.ts"');
});

test('a lease taken over and an index rebuilt say so in one line each', async () => {
  const root = tempDir('braid-log-lease-');
  const logger = recordingLogger();
  const store = await openStore(root, { logger });
  try {
    const state = await store.create({ workspaceDir: '/log-lease' });
    // A writer whose process is gone left its lease behind.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const lock = path.join(store.locate(state.id), 'writer.lock');
    fs.writeFileSync(lock, JSON.stringify({ pid: Number(gone.stdout), host: os.hostname(), token: 'old', acquiredAt: Date.now() - 60_000 }));
    const writer = await store.openWriter(state.id);
    await writer.close();
    assert.ok(
      logger.infos.includes(`session ${state.id}: took over the writer lease from process ${gone.stdout} on ${os.hostname()} (its process is gone)`),
      logger.infos.join('\n'),
    );
    await store.index.rebuildFromFolders();
    assert.match(logger.infos.at(-1)!, /^index of \S+ rebuilt from 1 session folder in \d+(\.\d)? m?s$/);
  } finally {
    await store.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
