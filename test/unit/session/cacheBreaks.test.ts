import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { streamSimple, type Api, type Context, type Message, type Model } from '@mariozechner/pi-ai';
import { CacheWatch } from '../../../src/core/session/cacheWatch';
import type { Session } from '../../../src/core/session/session';
import type { CacheBreakRecord, MessageRecord, TurnBeginRecord } from '../../../src/core/wire/records';
import { planGc } from '../../../src/core/store/gc';
import { resolveModel } from '../../../src/core/model/modelSettings';
import { ScriptedModelServer } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';
import { braidIn, TERMINAL_UNSAFE } from '../../support/cli';
import { parseRecordLine } from '../../../src/core/wire/records';
import { forkSession } from '../../../src/core/store/fork';
import type { SessionEvent } from '../../../src/core/session/events';
import { cacheBreakEntry, toEntries } from '../../../src/vscode/chat/transcript';
import { usageViewData } from '../../../src/vscode/usage/usageViewData';
import { readUsageLogs, UsageLogReader } from '../../../src/core/store/usageLogReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';

// The scripted server plays OpenAI's prompt cache: what it reports as cached follows from what
// Braid sends, as a provider's report does. A system prompt of about 1,700 tokens and prompts of
// about 2,000 make every conversation cacheable (1,024 tokens and more).
const SYSTEM = `You are a test agent.\n${'Follow the conventions of the project you work in.\n'.repeat(130)}`;
const long = (n: number) => `Request ${n}: read this log and say what failed.\n${`line ${n}: all is well\n`.repeat(400)}`;

let server: ScriptedModelServer;
let f: SessionFixture;

before(async () => {
  server = new ScriptedModelServer(() => ({ kind: 'text', chunks: ['Looked at it: nothing failed.'] }));
  await server.start();
});
beforeEach(async () => {
  await f?.cleanup();
  f = await sessionFixture();
  server.cachePrompts();
  server.now = () => Date.now();
});
after(async () => {
  await f?.cleanup();
  await server.close();
});

/** A model of the scripted server, priced as a metered one ($3 a million input tokens, $0.30 cached). */
const modelNamed = (id: string, reasoning = false): Model<Api> => ({
  ...resolveModel({ provider: 'openai-compatible', model: id, baseUrl: server.baseUrl, demo: false }),
  reasoning,
  cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
});

/** A session whose model the test can switch between turns. */
async function open(options: { model?: () => { model: Model<Api>; thinking: string }; systemPrompt?: string; cacheLifetimeMs?: number } = {}, id?: string) {
  return f.open(
    {
      model: options.model ?? (() => ({ model: modelNamed('scripted-model'), thinking: 'off' })),
      systemPrompt: options.systemPrompt ?? SYSTEM,
      ...(options.cacheLifetimeMs ? { cacheLifetimeMs: options.cacheLifetimeMs } : {}),
    },
    id,
  );
}

async function turn(session: Session, n: number): Promise<void> {
  await session.submit(long(n));
  await session.waitForIdle();
}

const breaks = (id: string) => f.records(id).filter((r): r is CacheBreakRecord => r.t === 'cache_break');

/** Two turns, so the second call read the first one's prompt from the cache. */
async function warmed(options: Parameters<typeof open>[0] = {}): Promise<Session> {
  const session = await open(options);
  await turn(session, 1);
  await turn(session, 2);
  assert.ok(
    server.replies.at(-1)!.kind === 'text' && (server.replies.at(-1) as { usage: { cached: number } }).usage.cached > 1024,
    'the second call hit the cache',
  );
  assert.deepEqual(breaks(session.id), [], 'no break while the prompt only grows');
  return session;
}

test('a steady session has no break; the blobs of its system prompt and tools are never proposed for removal', async () => {
  const session = await warmed();
  await turn(session, 3);
  assert.deepEqual(breaks(session.id), []);
  const prompt = (f.records(session.id).find((r) => r.t === 'turn_begin') as TurnBeginRecord).prompt!;
  assert.ok(fs.existsSync(path.join(f.store.locate(session.id), 'blobs', prompt.system.slice(0, 2), prompt.system)));
  const plan = planGc(f.store, { olderThanDays: 0, now: Date.now() + 400 * 86_400_000 });
  const proposed = plan.sessions.flatMap((s) => [...s.checkpoints.hashes, ...s.orphans.hashes]);
  assert.ok(!proposed.includes(prompt.system) && !proposed.includes(prompt.tools), 'gc keeps them');
});

test('another model: the cause is the model, both named, the cost estimated', async () => {
  let id = 'scripted-model';
  const session = await warmed({ model: () => ({ model: modelNamed(id), thinking: 'off' }) });
  id = 'other-model';
  await turn(session, 3);
  const [b] = breaks(session.id);
  assert.equal(b?.cause, 'model');
  assert.match(b!.detail, /openai-compatible\/scripted-model → openai-compatible\/other-model/);
  assert.equal(b!.cacheRead, 0);
  assert.ok(b!.expected > 1024);
  assert.ok(Math.abs(b!.cost - (b!.expected * 2.7) / 1e6) < 1e-12, 'the lost tokens at the input price over the cached one');
  const answer = f
    .records(session.id)
    .filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'assistant')
    .at(-1)!;
  assert.equal(b!.messageId, answer.id, 'the break names the call that broke');
});

test('another thinking level: the cause is thinking', async () => {
  let thinking = 'low';
  const session = await warmed({ model: () => ({ model: modelNamed('scripted-model', true), thinking }) });
  thinking = 'high';
  await turn(session, 3);
  assert.equal(breaks(session.id)[0]?.cause, 'thinking');
  assert.match(breaks(session.id)[0]!.detail, /low → high/);
});

test('a system prompt changed between two runs of the session: the cause names its line', async () => {
  const first = await warmed();
  await first.close();
  const changed = SYSTEM.replace('You are a test agent.', 'You are a test agent in /moved/folder.');
  const again = await open({ systemPrompt: changed }, first.id);
  await turn(again, 3);
  const [b] = breaks(again.id);
  assert.equal(b?.cause, 'system-prompt');
  assert.match(b!.detail, /line 1 of the system prompt \("You are a test agent in \/moved\/folder\."\)/);
});

test('a compaction: the cause is the compaction', async () => {
  const session = await warmed();
  await turn(session, 3);
  assert.equal(await session.compact(), true);
  await turn(session, 4);
  assert.deepEqual(
    breaks(session.id).map((b) => b.cause),
    ['compaction'],
  );
});

test('a rewind takes turns out of the prompt: what it took is no loss; a loss in what it kept is the provider\u2019s', async () => {
  const session = await warmed();
  await turn(session, 3);
  const prompts = () => f.records(session.id).filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'user');
  await session.rewind(prompts()[1]!.id, { files: false });
  await turn(session, 5);
  assert.deepEqual(breaks(session.id), [], 'the beginning it kept was read from the cache');
  server.cachePrompts(); // the provider dropped everything it held
  await session.rewind(prompts().at(-1)!.id, { files: false });
  await turn(session, 6);
  const [b] = breaks(session.id);
  assert.equal(b?.cause, 'unknown');
  assert.equal(b!.cacheRead, 0);
  assert.ok(b!.expected < 6000, `only what the rewind kept is expected (${b!.expected} tokens)`);
});

test('a rewind by another process, then a turn: no break when the prompt it kept is read from the cache', async () => {
  const session = await warmed();
  await turn(session, 3);
  await session.close();
  // What `braid rewind` does, then `braid exec`: each its own opening of the session.
  const rewinder = await open({}, session.id);
  const prompts = f.records(session.id).filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'user');
  await rewinder.rewind(prompts[1]!.id, { files: false });
  await rewinder.close();
  const again = await open({}, session.id);
  await again.submit('And what about the first log?');
  await again.waitForIdle();
  const last = server.replies.at(-1) as { usage: { prompt: number; cached: number } };
  assert.ok(last.usage.cached > last.usage.prompt * 0.5, 'the provider read most of the prompt from its cache');
  assert.deepEqual(breaks(session.id), []);
});

/**
 * A provider whose cache lives 300 ms: its clock stands still while the session warms up (so a
 * slow machine never lets the cache expire between the first turns), and `pause` waits longer
 * than the lifetime and moves the provider's clock past it.
 */
function shortLivedCache(): { pause: () => Promise<void> } {
  server.cachePrompts({ lifetimeMs: 300 });
  const start = Date.now();
  server.now = () => start;
  return {
    pause: async () => {
      await new Promise((resolve) => setTimeout(resolve, 450));
      server.now = () => start + 10_000;
    },
  };
}

test('a pause longer than the provider keeps its cache: the cause is its expiry', async () => {
  const cache = shortLivedCache();
  const session = await warmed({ cacheLifetimeMs: 300 });
  await cache.pause();
  await turn(session, 3);
  const [b] = breaks(session.id);
  assert.equal(b?.cause, 'expired');
  assert.equal(b!.cacheRead, 0);
});

test('a pause across two runs of the session is compared with the last call in the log', async () => {
  const cache = shortLivedCache();
  const first = await warmed({ cacheLifetimeMs: 300 });
  await first.close();
  await cache.pause();
  const again = await open({ cacheLifetimeMs: 300 }, first.id);
  await turn(again, 3);
  assert.equal(breaks(again.id)[0]?.cause, 'expired');
});

/** Calls the scripted server as a session does, and tells the watch what was sent and what came back. */
async function call(watch: CacheWatch, context: Context): Promise<ReturnType<CacheWatch['answered']>> {
  const model = modelNamed('scripted-model');
  watch.sending(model, context, 'off');
  const answer = await (await streamSimple(model, context, { apiKey: 'k' })).result();
  return watch.answered(answer.usage, model);
}

const tool = (name: string, description: string) => ({ name, description, parameters: { type: 'object', properties: {} } as never });
const user = (text: string): Message => ({ role: 'user', content: text, timestamp: 0 });

test('tools changed, history rewritten, or nothing Braid can see: each is named', async () => {
  const watch = new CacheWatch();
  const tools = [tool('read_file', 'Reads a file.'), tool('write_file', 'Writes a file.')];
  const history = [user(long(1))];
  assert.equal(await call(watch, { systemPrompt: SYSTEM, tools, messages: history }), undefined);
  assert.equal(await call(watch, { systemPrompt: SYSTEM, tools, messages: [...history, user('and now?')] }), undefined);
  const changedTools = [tool('read_file', 'Reads a file, or part of one.'), tool('write_file', 'Writes a file.'), tool('grep', 'Searches.')];
  const toolsBreak = await call(watch, { systemPrompt: SYSTEM, tools: changedTools, messages: [...history, user('and now?')] });
  assert.equal(toolsBreak?.cause, 'tools');
  assert.equal(toolsBreak?.detail, 'added grep; changed read_file');
  await call(watch, { systemPrompt: SYSTEM, tools: changedTools, messages: [...history, user('and now?'), user('more')] });
  const rewritten = await call(watch, { systemPrompt: SYSTEM, tools: changedTools, messages: [user(`reminder\n${long(1)}`), user('and now?'), user('more')] });
  assert.equal(rewritten?.cause, 'history-rewritten');
  assert.match(rewritten!.detail, /from message 1 of 3/);
  server.cachePrompts(); // the provider dropped everything it held
  const unknown = await call(watch, {
    systemPrompt: SYSTEM,
    tools: changedTools,
    messages: [user(`reminder\n${long(1)}`), user('and now?'), user('more'), user('again')],
  });
  assert.equal(unknown?.cause, 'unknown');
});

test('braid usage --breaks lists each session with its cache-hit ratio and its breaks; a fork does not repeat its source’s', async () => {
  let id = 'scripted-model';
  const session = await warmed({ model: () => ({ model: modelNamed(id), thinking: 'off' }) });
  id = 'other-model';
  await turn(session, 3);
  await session.close();
  const fork = await forkSession(f.store, session.id, {});
  const run = async (args: string[]) => braidIn(['--data-dir', path.join(f.root, 'store'), ...args], { cwd: f.workspace });
  const text = await run(['usage', '--breaks']);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /^Prompt cache breaks in /);
  assert.match(text.out, new RegExp(`^${session.id.slice(-6)} .*cache hits \\d+\\.\\d%, 1 break`, 'm'));
  assert.match(
    text.out,
    /turn +3 +model +openai-compatible\/scripted-model → openai-compatible\/other-model: [\d,]+ tokens not read from the cache, about \$0\.\d+/,
  );
  assert.match(text.out, new RegExp(`^${fork.id.slice(-6)} .*0 breaks`, 'm'), 'the fork inherited the break; it is counted under its source');
  const json = await run(['usage', '--breaks', '--json']);
  const value = JSON.parse(json.out) as { sessions: { id: string; hitRatio: number; breaks: CacheBreakRecord[] }[] };
  const own = value.sessions.find((s) => s.id === session.id)!;
  assert.equal(own.breaks[0]!.cause, 'model');
  assert.ok(own.hitRatio > 0 && own.hitRatio < 1);
  assert.equal((await run(['usage', '--breaks', '--by', 'day'])).code, 2, '--breaks takes no --by');
});

test('the transcript marks the answer whose call broke the cache, live and from the log; the Usage view lists the break and the side calls', async () => {
  let id = 'scripted-model';
  const session = await warmed({ model: () => ({ model: modelNamed(id), thinking: 'off' }) });
  id = 'other-model';
  const live: SessionEvent[] = [];
  session.onEvent((e) => live.push(e));
  await turn(session, 3);
  await session.ask('what was that about?');
  const event = live.find((e): e is Extract<SessionEvent, { type: 'cache-break' }> => e.type === 'cache-break');
  assert.equal(event?.record.cause, 'model', 'the UI is told as it happens');

  const page = f.store.newestPage(session.id);
  const entries = toEntries(page.messages, page);
  const marker = entries.findIndex((e) => e.kind === 'cacheBreak');
  assert.ok(marker > 0, 'a marker in the transcript');
  assert.equal(entries[marker - 1]!.kind, 'assistant', 'right under the answer whose call broke');
  assert.deepEqual(entries[marker], cacheBreakEntry(event!.record), 'the same entry live and from the log');
  assert.match((entries[marker] as { text: string }).text, /scripted-model → .*other-model: [\d,]+ tokens not read from the cache, about \$/);

  const key = workspaceKey(f.workspace);
  const data = usageViewData(
    f.store.index.usageReport(key),
    (s) => f.store.index.get(s),
    { scope: 'workspace', workspaceName: 'w', now: Date.now() },
    readUsageLogs(f.store, key),
  );
  assert.deepEqual(
    data.breaks.map((b) => [b.sessionId, b.turn, b.cause]),
    [[session.id, 3, 'model']],
  );
  assert.deepEqual(
    data.sideCalls.map((l) => [l.key, l.calls]),
    [['Side questions (/btw)', 1]],
  );
});

test("a subagent's calls are compared with its own calls before, and its break names it", async () => {
  const session = await open();
  const readme = { id: 'r', name: 'read_file', arguments: JSON.stringify({ path: 'README.md' }) };
  server.enqueue(
    { kind: 'toolCalls', calls: [{ id: 't', name: 'task', arguments: JSON.stringify({ description: 'read the readme', prompt: long(9) }) }] },
    { kind: 'toolCalls', calls: [readme] },
    { kind: 'toolCalls', calls: [{ ...readme, id: 'r2' }] },
    { kind: 'text', chunks: ['The readme says hello.'] },
    { kind: 'text', chunks: ['Done.'] },
  );
  // The provider drops what it cached before the subagent's third call (the turn's fourth).
  const before = server.requests.length;
  server.now = () => Date.now() + (server.requests.length - before >= 4 ? 10 * 60_000 : 0);
  await session.submit('Ask a subagent to read the readme');
  await session.waitForIdle();
  const [b] = breaks(session.id);
  assert.ok(b?.agentId, 'the break is the subagent’s');
  assert.equal(b!.cause, 'unknown', 'its prompt began as its call before began: the provider dropped its cache');
  const usage = f.records(session.id).find((r) => r.t === 'usage' && (r as { messageId: string }).messageId === b!.messageId) as { purpose?: string };
  assert.equal(usage.purpose, `subagent:${b!.agentId}`, 'it names the subagent call that broke');
  assert.match(cacheBreakEntry(b!).kind === 'cacheBreak' ? (cacheBreakEntry(b!) as { text: string }).text : '', /^a subagent: /);
});

test('hostile records: a cache_break missing its figures is a bad line, a detail with terminal controls prints safely, a damaged prompt blob leaves the next turn working', async () => {
  const line = (fields: object) => JSON.stringify({ v: 1, t: 'cache_break', turn: 1, messageId: 'msg_x', cause: 'tools', ts: 1, ...fields });
  assert.deepEqual(parseRecordLine(line({ detail: 'x', cacheRead: 0, expected: 5000 })), { bad: 'missing-fields' }, 'no cost');
  assert.deepEqual(parseRecordLine(line({ detail: 'x', cacheRead: 0, expected: 'lots', cost: 0 })), { bad: 'missing-fields' });

  const first = await warmed();
  await first.close();
  const dir = f.store.locate(first.id);
  const log = path.join(dir, 'agents', 'main', 'wire.jsonl');
  fs.appendFileSync(log, `${line({ turn: 2, detail: 'added \u001b]0;owned\u0007 grep', cacheRead: 0, expected: 5000, cost: 0 })}\n`);
  const prompt = (f.records(first.id).find((r) => r.t === 'turn_begin') as TurnBeginRecord).prompt!;
  fs.writeFileSync(path.join(dir, 'blobs', prompt.tools.slice(0, 2), prompt.tools), '{"not": "pairs"}');
  const listed = await braidIn(['--data-dir', path.join(f.root, 'store'), 'usage', '--breaks'], { cwd: f.workspace });
  assert.equal(listed.code, 0, listed.err);
  assert.match(listed.out, /added .*grep/);
  assert.doesNotMatch(listed.out, TERMINAL_UNSAFE, 'no control character reaches the terminal');

  const again = await open({}, first.id);
  await turn(again, 3);
  assert.equal(
    (
      f
        .records(again.id)
        .filter((r) => r.t === 'turn_end')
        .at(-1) as { outcome: string }
    ).outcome,
    'completed',
  );
});

test('a provider that reports nonsense counts (negative, not a number) writes no break and no unreadable record', () => {
  const watch = new CacheWatch();
  const model = modelNamed('scripted-model');
  const context = { systemPrompt: SYSTEM, tools: [], messages: [user('hello')] };
  const answer = (cacheRead: number, cacheWrite = 0, input = 10) => {
    watch.sending(model, context, 'off');
    return watch.answered({ input, cacheRead, cacheWrite }, model);
  };
  assert.equal(answer(Number.NaN, 5000), undefined);
  const note = answer(-3, 0, 5000);
  assert.equal(note?.cacheRead, 0, 'a negative count is none');
  assert.equal(note?.expected, 5000);
  assert.ok(Number.isFinite(note!.cost));
  assert.equal(answer(Number.POSITIVE_INFINITY), undefined, 'nothing expected after a call that cached nothing countable');
});

test('the Usage view’s reader reads a log once, then only what was appended, a line cut short when it is whole', async () => {
  let id = 'scripted-model';
  const session = await warmed({ model: () => ({ model: modelNamed(id), thinking: 'off' }) });
  id = 'other-model';
  await turn(session, 3);
  const key = workspaceKey(f.workspace);
  const reader = new UsageLogReader(f.store);
  const log = path.join(f.store.locate(session.id), 'agents', 'main', 'wire.jsonl');
  const first = reader.logs(key);
  assert.equal(reader.lastBytesRead, fs.statSync(log).size, 'read whole once');
  assert.equal(first.sessions[0]!.breaks.length, 1);
  assert.deepEqual(reader.logs(key), first);
  assert.equal(reader.lastBytesRead, 0, 'nothing read again');

  const before = fs.statSync(log).size;
  await session.ask('and the side question?');
  const grown = reader.logs(key);
  assert.equal(reader.lastBytesRead, fs.statSync(log).size - before, 'only the appended lines');
  assert.deepEqual(grown, readUsageLogs(f.store, key), 'the same as reading it all');
  assert.equal(grown.sessions[0]!.sideCalls['side-question']?.calls, 1);

  // A line a writer has not ended yet waits until it is whole.
  const line = JSON.stringify({
    v: 1,
    t: 'usage',
    turn: 3,
    messageId: 'msg_x',
    purpose: 'side-question',
    input: 5,
    output: 1,
    cacheRead: 0,
    cacheWrite: 0,
    cost: 0,
    ts: 1,
  });
  fs.appendFileSync(log, line.slice(0, 40));
  assert.equal(reader.logs(key).sessions[0]!.sideCalls['side-question']?.calls, 1);
  fs.appendFileSync(log, `${line.slice(40)}\n`);
  assert.equal(reader.logs(key).sessions[0]!.sideCalls['side-question']?.calls, 2);
});
