import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { AssistantMessage } from '@mariozechner/pi-ai';
import { importSessions, type ImportOutcome } from '../../../src/core/import/importer';
import type { SourceTool } from '../../../src/core/import/source';
import { injectedOf, type MessageRecord } from '../../../src/core/wire/records';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { runDoctor } from '../../../src/core/store/doctor';
import { realImportSources, type ImportSources } from '../../support/importFixtures';
import { openStore, tempDir, wasmPath } from '../../support/store';

// The sessions the current releases of Claude Code, Codex, pi and opencode wrote themselves
// (test/fixtures/import/real/, `npm run fixtures:import`) imported: each with the person's first
// prompt as its title (or the tool's own title), the source's own times, the tools' injected
// context marked as context, every call of a parallel answer, subagents, usage.
let src: ImportSources;
let root: string;
let store: SessionStore;
const started = Date.now();
before(async () => {
  src = await realImportSources();
  root = tempDir('braid-import-real-');
  store = await openStore(root);
});
after(async () => {
  await store.close();
  src.cleanup();
  fs.rmSync(root, { recursive: true, force: true });
});

const FIRST_PROMPT = 'Look around this project, run the word count, write TODO.md and add a third line to notes.md. [fixture turn 1]';

async function importOne(from: SourceTool, sub: string): Promise<{ outcome: ImportOutcome; messages: MessageRecord[] }> {
  const outcomes = await importSessions(store, { from, paths: [path.join(src.sources, sub)], dryRun: false, wasmPath });
  const imported = outcomes.filter((o) => o.action === 'imported');
  assert.equal(imported.length, 1, JSON.stringify(outcomes));
  return { outcome: imported[0]!, messages: store.history(imported[0]!.sessionId!).messages };
}

/** The times of a JSONL source's records (their `timestamp` fields), first and last, in ms. */
function sourceTimes(file: string, keep: (r: Record<string, unknown>) => boolean): { first: number; last: number } {
  const times = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter(keep)
    .map((r) => Date.parse(String(r.timestamp)));
  return { first: Math.min(...times), last: Math.max(...times) };
}

const kinds = (messages: readonly MessageRecord[]) => messages.filter((m) => m.message.role === 'user').map((m) => injectedOf(m)?.kind ?? 'prompt');
const calls = (messages: readonly MessageRecord[], turn: number) =>
  messages
    .filter((m) => m.turn === turn && m.message.role === 'assistant')
    .flatMap((m) => (m.message as AssistantMessage).content.filter((b) => b.type === 'toolCall').map((b) => b.name));

test('Claude Code 2.1: the prompt is the title; its command, notification, local commands and interruption are context; both parallel calls are kept', async () => {
  const { outcome, messages } = await importOne('claude-code', 'claude-code');
  const state = store.get(outcome.sessionId!);
  assert.equal(state.title, 'Look around this project, run the word count…');
  assert.equal(store.index.get(state.id)?.firstPrompt, FIRST_PROMPT);
  const file = outcome.file;
  const times = sourceTimes(file, (r) => typeof r.uuid === 'string' && (r.type === 'user' || r.type === 'assistant' || r.type === 'system'));
  assert.equal(state.createdAt, times.first);
  assert.equal(state.updatedAt, times.last);
  assert.ok(state.updatedAt < started, 'dated by the source, not by the import');
  assert.deepEqual(calls(messages, 1), ['bash', 'read_file', 'bash', 'write_file', 'edit_file'], 'the list and the read of one answer, then the rest');
  assert.equal(messages.filter((m) => m.message.role === 'toolResult' && m.turn === 1).length, 5, 'every call has its result');
  const context = kinds(messages);
  for (const kind of ['command-message', 'meta', 'task-notification', 'local-command-caveat', 'command-name', 'local-command-stdout', 'interrupted'])
    assert.ok(context.includes(kind), `${kind} is context: ${context.join(', ')}`);
  assert.deepEqual(
    context.filter((k) => k === 'prompt'),
    ['prompt', 'prompt'],
    'two things the person typed: the first prompt and the interrupted one',
  );
  assert.equal(state.turnCount, 3, 'the prompt, the slash command the model answered, the interrupted prompt');
  assert.equal(store.history(state.id).turnEnds.at(-1)?.outcome, 'cancelled');
  assert.equal(state.agents.filter((a) => a.id !== 'main').length, 1, 'the subagent');
});

test('Codex 0.17: the AGENTS.md and environment blocks and the subagent notification are context; usage is each response’s', async () => {
  const { outcome, messages } = await importOne('codex', 'codex');
  const state = store.get(outcome.sessionId!);
  assert.equal(state.title, 'Look around this project, run the word count…');
  assert.deepEqual(kinds(messages), ['agents-md', 'prompt', 'prompt', 'subagent_notification']);
  const times = sourceTimes(outcome.file, () => true);
  const meta = JSON.parse(fs.readFileSync(outcome.file, 'utf8').split('\n')[0]!) as { payload: { timestamp: string } };
  assert.equal(state.createdAt, Date.parse(meta.payload.timestamp), 'when Codex says the thread began');
  assert.ok(state.updatedAt <= times.last && state.updatedAt > state.createdAt);
  // Every usage record Codex wrote for this thread and its subagent's is counted once.
  const recorded = [
    outcome.file,
    ...fs
      .readdirSync(path.dirname(outcome.file))
      .map((f) => path.join(path.dirname(outcome.file), f))
      .filter((f) => f !== outcome.file),
  ]
    .flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean))
    .map((l) => JSON.parse(l) as { type: string; payload: { usage?: { input_tokens: number; cached_input_tokens: number; output_tokens: number } } })
    .filter((r) => r.type === 'token_usage_record')
    .map((r) => r.payload.usage!);
  const sum = (f: (u: (typeof recorded)[number]) => number) => recorded.reduce((n, u) => n + f(u), 0);
  assert.equal(
    state.usage.cacheRead,
    sum((u) => u.cached_input_tokens),
  );
  assert.equal(
    state.usage.input,
    sum((u) => u.input_tokens - u.cached_input_tokens),
  );
  assert.equal(
    state.usage.output,
    sum((u) => u.output_tokens),
  );
  assert.equal(state.agents.filter((a) => a.id !== 'main').length, 1, 'the subagent thread');
});

test('pi 0.73: the session and its times as pi wrote them', async () => {
  const { outcome, messages } = await importOne('pi', 'pi');
  const state = store.get(outcome.sessionId!);
  assert.equal(state.title, 'Look around this project, run the word count…');
  assert.deepEqual(kinds(messages), ['prompt', 'prompt']);
  const times = sourceTimes(outcome.file, (r) => r.type !== 'session');
  assert.equal(state.updatedAt, times.last);
});

test('opencode 1.18: its database, the live copy whose WAL holds the second turn and the subagent, and its export', async () => {
  const { outcome } = await importOne('opencode', 'opencode');
  const state = store.get(outcome.sessionId!);
  assert.equal(state.title, 'Project check', "opencode's own title");
  assert.equal(state.turnCount, 2);
  assert.equal(store.index.get(state.id)?.firstPrompt, `"${FIRST_PROMPT}"`, 'opencode run quotes the prompt it was given');
  assert.equal(state.agents.filter((a) => a.id !== 'main').length, 1);
  assert.ok(state.createdAt < started && state.updatedAt < started);
  // The live copy was taken while opencode answered the second prompt: that turn lives in the WAL alone.
  const live = await importSessions(store, { from: 'opencode', paths: [path.join(src.sources, 'opencode-live')], dryRun: false, wasmPath });
  assert.deepEqual(
    live.map((o) => o.action),
    ['skipped', 'skipped'],
  );
  assert.match(live[0]!.reason!, /an earlier copy of the imported session/);
  assert.deepEqual(live[0]!.forks, [], 'an earlier copy is no branch of its own');
  const exported = await importSessions(store, { from: 'auto', paths: [path.join(src.sources, 'opencode-export')], dryRun: false, wasmPath });
  assert.equal(exported[0]?.sessionId, state.id, 'the export is the same session');
});

test('after importing every real fixture, braid doctor finds nothing to repair', async () => {
  const report = await runDoctor(store, { fix: false });
  assert.deepEqual(
    report.findings.filter((f) => f.severity !== 'info').map((f) => `${f.where}: ${f.message}`),
    [],
  );
});
