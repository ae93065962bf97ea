import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { forkSession } from '../../../src/core/store/fork';
import { ApprovalGate } from '../../../src/core/tools/approvals';
import { readNewestPage } from '../../../src/core/wire/newestPage';
import type { MessageRecord, TurnBeginRecord, WireRecord } from '../../../src/core/wire/records';
import type { TurnMode } from '../../../src/core/wire/turnMode';
import { readFileReply, ScriptedModelServer, type RecordedRequest } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';

// Modes over real HTTP: what each mode offers the model, what its gate lets through, and the mode
// recorded in turn_begin, read back by the transcript's pages, kept by a fork and a queue.
const server = new ScriptedModelServer();
let f: SessionFixture;
before(async () => {
  await server.start();
});
beforeEach(async () => {
  await f?.cleanup();
  f = await sessionFixture({ 'notes.md': 'original\n' });
  f.approvals.length = 0;
});
after(async () => {
  await f?.cleanup();
  await server.close();
});

const httpModel = () => server.modelChoice();
const toolNames = (r: RecordedRequest) => (r.body.tools as { function: { name: string } }[]).map((t) => t.function.name).sort();
const turnBegins = (records: WireRecord[]) => records.filter((r): r is TurnBeginRecord => r.t === 'turn_begin');
const toolResults = (records: WireRecord[]) =>
  records.flatMap((r) => {
    const message = r.t === 'message' ? (r as MessageRecord).message : undefined;
    return message?.role === 'toolResult' ? [message] : [];
  });
const notes = () => fs.readFileSync(path.join(f.workspace, 'notes.md'), 'utf8');

/** One turn in `mode` whose model reads notes.md (read before write), then makes `calls`, then answers. */
async function turn(mode: TurnMode | undefined, calls: { id: string; name: string; arguments: object }[]) {
  server.requests.length = 0;
  server.enqueue(
    readFileReply('notes.md'),
    { kind: 'toolCalls', calls: calls.map((c) => ({ ...c, arguments: JSON.stringify(c.arguments) })) },
    { kind: 'text', chunks: ['Done.'] },
  );
  const session = await f.open({ model: httpModel });
  await session.submit(`a prompt in ${mode ?? 'no'} mode`, mode ? { mode } : {});
  await session.waitForIdle();
  return { session, records: f.records(session.id), first: server.requests[0]! };
}

const write = { id: 'w', name: 'write_file', arguments: { path: 'notes.md', content: 'changed\n' } };
const bash = { id: 'b', name: 'bash', arguments: { command: 'echo hi > made.txt' } };

test('Ask is offered the same tools as Agent (the prompt keeps its beginning); a write the model names changes nothing', async () => {
  const { records, first } = await turn('ask', [write]);
  assert.deepEqual(toolNames(first), ['bash', 'edit_file', 'glob', 'grep', 'list_dir', 'read_file', 'task', 'todo_write', 'write_file']);
  assert.match(JSON.stringify(first.body.messages), /Ask mode/, 'the model is told its mode');
  assert.equal(notes(), 'original\n');
  assert.equal(toolResults(records)[1]!.isError, true);
  assert.equal(f.approvals.length, 0, 'nothing was put to the user');
  assert.equal(turnBegins(records)[0]!.mode, 'ask');
});

test('Plan reads only and says to end with a plan; a command is refused', async () => {
  const { records, first } = await turn('plan', [bash]);
  assert.match(JSON.stringify(first.body.messages), /Plan mode/);
  assert.equal(fs.existsSync(path.join(f.workspace, 'made.txt')), false);
  assert.equal(toolResults(records)[1]!.isError, true);
  assert.equal(turnBegins(records)[0]!.mode, 'plan');
});

test('Auto-accept edits writes without asking; a command still asks', async () => {
  f.decide = 'deny';
  const { records, first } = await turn('auto-edit', [write, bash]);
  assert.ok(toolNames(first).includes('bash'));
  assert.equal(notes(), 'changed\n', 'the write went ahead unasked');
  assert.deepEqual(
    f.approvals.map((a) => a.tool),
    ['bash'],
    'only the command was put to the user',
  );
  assert.equal(fs.existsSync(path.join(f.workspace, 'made.txt')), false, 'the denied command did not run');
  assert.equal(turnBegins(records)[0]!.mode, 'auto-edit');
});

test('Agent (the default) asks before a write, as before modes', async () => {
  f.decide = 'deny';
  const { records } = await turn(undefined, [write]);
  assert.deepEqual(
    f.approvals.map((a) => a.tool),
    ['write_file'],
  );
  assert.equal(notes(), 'original\n');
  assert.equal(turnBegins(records)[0]!.mode, 'agent');
});

test('the gate refuses changes in Ask and Plan even where the policy allows them', async () => {
  const gate = new ApprovalGate({ request: async () => 'allow' }, { writes: 'allow', shell: 'allow' });
  for (const mode of ['ask', 'plan'] as const) {
    gate.mode = mode;
    await assert.rejects(gate.check({ tool: 'write_file', summary: 'notes.md' }), /may not change files or run commands/);
    await assert.rejects(gate.check({ tool: 'bash', summary: 'ls' }), /may not change files or run commands/);
  }
  gate.mode = 'auto-edit';
  await gate.check({ tool: 'write_file', summary: 'notes.md' });
});

test('a write that can run programs (a git hook) still asks in Auto-accept edits', async () => {
  const gate = new ApprovalGate({ request: async () => 'deny' });
  gate.mode = 'auto-edit';
  await assert.rejects(gate.check({ tool: 'write_file', summary: '.git/hooks/pre-commit', commandRisk: 'a git hook runs on commit' }), /denied/);
});

test('pages read each prompt’s mode back, also when a full page ends at a prompt; a fork keeps the modes', async () => {
  const session = await f.open({ model: httpModel });
  const modes: TurnMode[] = ['ask', 'plan', 'agent', 'auto-edit'];
  for (const mode of modes) {
    server.enqueue({ kind: 'text', chunks: [`answer in ${mode}`] });
    await session.submit(`prompt in ${mode}`, { mode });
    await session.waitForIdle();
  }
  const log = f.store.layout.agentLog(f.store.locate(session.id));
  const all = readNewestPage(log, 100);
  assert.deepEqual(
    [...all.modes.entries()].sort(),
    modes.map((m, i) => [i + 1, m]),
  );
  // Eight messages, a prompt and an answer a turn: a page of six starts at turn 2's prompt, so the
  // scan reads on past it to turn 2's turn_begin for the mode.
  const six = readNewestPage(log, 6);
  assert.equal(six.messages[0]!.message.role, 'user');
  assert.equal(six.modes.get(six.messages[0]!.turn), 'plan');
  const older = readNewestPage(log, 2, six.before);
  assert.equal(older.modes.get(1), 'ask', 'the older page finds its own turn_begin');

  const fork = await forkSession(f.store, session.id, { turn: 2 });
  const forked = readNewestPage(f.store.layout.agentLog(f.store.locate(fork.id)), 100);
  assert.deepEqual([...forked.modes.entries()].sort(), [
    [1, 'ask'],
    [2, 'plan'],
  ]);
});

test('a queued prompt keeps its mode in state.json and runs in it after a reopen', async () => {
  server.enqueue({ kind: 'stall', chunks: ['Working'] });
  const session = await f.open({ model: httpModel });
  const streaming = new Promise<void>((resolve) => session.onEvent((e) => e.type === 'text-delta' && resolve()));
  await session.submit('the running one');
  await session.submit('queued, in Ask', { mode: 'ask' });
  await streaming; // the stalled reply is taken: the queued prompt gets the next one
  assert.equal(f.store.get(session.id).queue[0]!.mode, 'ask');
  await session.close();
  const reopened = await f.open({ model: httpModel }, session.id);
  server.enqueue({ kind: 'text', chunks: ['Answered.'] });
  await reopened.resume();
  await reopened.waitForIdle();
  assert.deepEqual(
    turnBegins(f.records(session.id)).map((r) => r.mode),
    ['agent', 'ask'],
  );
});
