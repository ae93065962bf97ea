import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Api, Model } from '@mariozechner/pi-ai';
import { runCli } from '../../../src/cli/run';
import type { UsageFigures } from '../../../src/core/index/usageRows';
import { resolveModel } from '../../../src/core/model/modelSettings';
import { dayOf } from '../../../src/core/format/usage';
import { forkSession, keepSideQuestion } from '../../../src/core/store/fork';
import { ScriptedModelServer, type ScriptedReply, type ScriptedUsage } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';
import { wasmPath } from '../../support/store';

// Real sessions against two scripted OpenAI-compatible servers (two models), then `braid usage`
// compared with what the servers really served: each call once, whatever forks, rewinds and undos
// copied, with a subagent, a compaction and a side question among the calls.
const main = new ScriptedModelServer();
const other = new ScriptedModelServer(undefined, 'other-model');
const scripts = new Map<ScriptedModelServer, ScriptedReply[]>([
  [main, []],
  [other, []],
]);
let f: SessionFixture;
let mainModel: Model<Api>;
let otherModel: Model<Api>;
let current: Model<Api>;
before(async () => {
  mainModel = resolveModel({ provider: 'openai-compatible', model: 'scripted-model', baseUrl: await main.start(), demo: false });
  otherModel = resolveModel({ provider: 'openai-compatible', model: 'other-model', baseUrl: await other.start(), demo: false });
  current = mainModel;
  f = await sessionFixture({ 'notes.md': 'Ship on Friday.\n' });
});
after(async () => {
  await f.cleanup();
  await main.close();
  await other.close();
});

let tokens = 100;
/** Queues replies on a server, each with its own usage, and remembers them to know what each served request cost. */
function enqueue(server: ScriptedModelServer, ...replies: ScriptedReply[]): void {
  for (const r of replies) {
    const usage: ScriptedUsage = { prompt: tokens, completion: (tokens % 7) + 1, cached: tokens % 3 };
    tokens += 13;
    const reply = { ...r, usage } as ScriptedReply;
    server.enqueue(reply);
    scripts.get(server)!.push(reply);
  }
}

/** What the servers served, per request: which session asked, with which model, at what cost. */
const served: Array<{ session: string; model: string; usage: ScriptedUsage }> = [];
async function as(session: string, run: () => Promise<unknown>): Promise<void> {
  const before = [main.requests.length, other.requests.length];
  await run();
  [main, other].forEach((server, i) => {
    for (let k = before[i]!; k < server.requests.length; k++) {
      const reply = scripts.get(server)![k]!;
      served.push({ session, model: `openai-compatible/${server === main ? mainModel.id : otherModel.id}`, usage: (reply as { usage: ScriptedUsage }).usage });
    }
  });
}

/** The figures the scripted usage adds up to (pi-ai reports cached prompt tokens apart from the rest of the input). */
function expected(rows: typeof served): Pick<UsageFigures, 'calls' | 'input' | 'output' | 'cacheRead'> {
  const sum = { calls: 0, input: 0, output: 0, cacheRead: 0 };
  for (const { usage } of rows) {
    sum.calls++;
    sum.input += usage.prompt - (usage.cached ?? 0);
    sum.output += usage.completion;
    sum.cacheRead += usage.cached ?? 0;
  }
  return sum;
}
const figures = (u: UsageFigures) => ({ calls: u.calls, input: u.input, output: u.output, cacheRead: u.cacheRead });

interface Report {
  workspace: string | null;
  total: UsageFigures;
  bySession?: Array<UsageFigures & { key: string; title: string | null }>;
  byModel?: Array<UsageFigures & { key: string }>;
  byDay?: Array<UsageFigures & { key: string }>;
}

async function braid(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--data-dir', path.join(f.root, 'store'), '--workspace', f.workspace, ...args], {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env: {},
    wasmPath,
  });
  return { code, out, err };
}

async function usageJson(...args: string[]): Promise<Report> {
  const r = await braid('usage', '--json', ...args);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as Report;
}

const prompts = (id: string) => f.store.history(id).messages.filter((m) => m.message.role === 'user');

test('braid usage counts each call the model servers served once, across forks, rewinds, undos, a subagent, a compaction and a side question', async () => {
  const startDay = dayOf(Date.now());
  const a = await f.open({ model: () => ({ model: current, thinking: 'off' }) });
  const turn = async (session: typeof a, text: string) => {
    await session.submit(text);
    await session.waitForIdle();
    assert.equal(f.store.get(session.id).status, 'idle', f.store.get(session.id).error?.message);
  };
  // A tool call and its answer; a subagent (its own call) and the answer after it.
  enqueue(
    main,
    { kind: 'toolCalls', calls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"notes.md"}' }] },
    { kind: 'text', chunks: ['It says ship on Friday.'] },
  );
  await as(a.id, () => turn(a, 'What do the notes say?'));
  enqueue(
    main,
    { kind: 'toolCalls', calls: [{ id: 'c2', name: 'task', arguments: '{"description":"check the date","prompt":"Is Friday a good day to ship?"}' }] },
    { kind: 'text', chunks: ['Friday works.'] },
    { kind: 'text', chunks: ['The subagent says Friday works.'] },
  );
  await as(a.id, () => turn(a, 'Ask a subagent whether Friday is fine.'));
  // A side question and a compaction: calls outside the conversation.
  enqueue(main, { kind: 'text', chunks: ['We talked about shipping.'] });
  let side: Awaited<ReturnType<typeof a.ask>> | undefined;
  await as(a.id, async () => (side = await a.ask('btw, what was this about?')));
  // The compaction's summary, then the session memory it extracts (a call of its own).
  enqueue(
    main,
    { kind: 'text', chunks: ['Summary: the notes say ship on Friday; a subagent agreed.'] },
    { kind: 'text', chunks: ['- decision: ship on Friday'] },
  );
  await as(a.id, async () => assert.equal(await a.compact(), true));
  // A turn with the other model, rewound and undone (its records appended again), then both turns
  // 2 and 3 rewound and undone, then turn 3 rewound for good and answered again.
  current = otherModel;
  enqueue(other, { kind: 'text', chunks: ['Noted.'] });
  await as(a.id, () => turn(a, 'Note that.'));
  current = mainModel;
  await a.rewind(prompts(a.id)[2]!.id, { files: false });
  await a.undoRewind();
  await a.rewind(prompts(a.id)[1]!.id, { files: false });
  await a.undoRewind();
  await a.rewind(prompts(a.id)[2]!.id, { files: false });
  enqueue(main, { kind: 'text', chunks: ['Noted again.'] });
  await as(a.id, () => turn(a, 'Note that, again.'));

  // Forks: whole, then a fork of it at turn 1 and a whole fork of it; the side question kept as a peek.
  const f1 = await forkSession(f.store, a.id);
  const s1 = await f.open({ model: () => ({ model: current, thinking: 'off' }) }, f1.id);
  enqueue(main, { kind: 'text', chunks: ['From the fork.'] });
  await as(f1.id, () => turn(s1, 'Anything else?'));
  const f2 = await forkSession(f.store, f1.id, { turn: 1 });
  const s2 = await f.open({ model: () => ({ model: current, thinking: 'off' }) }, f2.id);
  enqueue(main, { kind: 'text', chunks: ['From the fork of the fork.'] });
  await as(f2.id, () => turn(s2, 'And here?'));
  const f3 = await forkSession(f.store, f1.id);
  const peek = await keepSideQuestion(f.store, a.id, 'btw, what was this about?', side!.message);
  assert.equal(main.pending + other.pending, 0, 'every scripted reply was served');
  assert.equal(served.length, main.requests.length + other.requests.length);
  assert.equal(served.length, 12);

  const check = async (label: string, report: Report) => {
    assert.deepEqual(figures(report.total), expected(served), `${label}: the total is what the servers served`);
    for (const model of new Set(served.map((s) => s.model))) {
      assert.deepEqual(figures(report.byModel!.find((l) => l.key === model)!), expected(served.filter((s) => s.model === model)), `${label}: ${model}`);
    }
    assert.equal(report.byModel!.length, 2);
    const endDay = dayOf(Date.now());
    assert.ok(
      report.byDay!.every((d) => d.key === startDay || d.key === endDay),
      `${label}: calls fall on the days they were made`,
    );
    assert.equal(
      report.byDay!.reduce((n, d) => n + d.calls, 0),
      served.length,
    );
    for (const id of new Set(served.map((s) => s.session))) {
      assert.deepEqual(figures(report.bySession!.find((l) => l.key === id)!), expected(served.filter((s) => s.session === id)), `${label}: session ${id}`);
    }
    assert.equal(report.bySession!.length, 3, `${label}: forks that made no call of their own are not listed`);
  };
  const live = await usageJson('--all');
  await check('live', live);
  assert.deepEqual(await usageJson(), { ...live, workspace: f.workspace }, 'this workspace is the only one');
  const byModel = await usageJson('--by', 'model');
  assert.deepEqual(Object.keys(byModel).sort(), ['byModel', 'sharedLeftOut', 'total', 'workspace']);

  // Each session's own line agrees with its row; a fork's line also shows its history, inherited calls included.
  for (const id of [a.id, f1.id, f2.id]) assert.deepEqual(figures(f.store.index.sessionUsage(id).own), figures(live.bySession!.find((l) => l.key === id)!));
  const inherited = f.store.index.sessionUsage(f3.id);
  assert.equal(inherited.own.calls, 0);
  assert.deepEqual(
    figures(inherited.history),
    expected(served.filter((s) => s.session === a.id || s.session === f1.id)),
    "a fork's history: its source's calls, each once",
  );
  assert.equal(f.store.get(f3.id).usage.input, inherited.history.input, 'state.json of a fork counts the copied history once');
  assert.equal(f.store.index.sessionUsage(peek.id).inherited.calls, expected(served.filter((s) => s.session === a.id)).calls);
  assert.equal(f.store.index.sessionUsage(f2.id).inherited.calls, 2, "a fork at turn 1 inherits turn 1's two calls");
  const shown = await braid('show', f3.id);
  assert.match(shown.out, /^usage 0 calls, 0 in.*\n {2}with inherited history: 11 calls, /m, "braid show labels a fork's inherited history");

  // Rebuilt from the folders alone, the index counts the same.
  assert.equal((await braid('rebuild-index')).code, 0);
  await check('rebuilt', await usageJson('--all'));

  // The fork whose source is deleted: its calls still count once, kept by the whole fork of it.
  await s1.close();
  await f.store.delete(f1.id);
  const afterDelete = await usageJson('--all');
  await check('source deleted', afterDelete);
  assert.equal(afterDelete.bySession!.find((l) => l.key === f1.id)!.title, null, 'listed as a deleted session');
  const text = await braid('usage', '--all');
  assert.match(text.out, new RegExp(`^\\s+${served.length}\\s`, 'm'), 'the text total shows the calls');
  assert.match(text.out, /deleted; its calls are kept in forks/);
});

test('braid usage refuses a grouping it does not know (exit 2)', async () => {
  const r = await braid('usage', '--by', 'week');
  assert.equal(r.code, 2);
  assert.match(r.err, /--by is session, model, day or agent/);
});
