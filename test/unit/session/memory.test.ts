import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { memoryText, MemoryTextError, parseMemoryText } from '../../../src/core/session/memory';
import type { SessionEvent } from '../../../src/core/session/events';
import { forkSession } from '../../../src/core/store/fork';
import type { MemoryRecord, UsageRecord, WireRecord } from '../../../src/core/wire/records';
import { ScriptedModelServer, type RecordedRequest } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';

// The session memory over real HTTP: the session's calls go to the scripted OpenAI-compatible server.
const server = new ScriptedModelServer();
let f: SessionFixture;
before(async () => {
  await server.start();
  f = await sessionFixture();
});
after(async () => {
  await f.cleanup();
  await server.close();
});

const long = (n: number) => 'word '.repeat(n);
const text = (t: string) => ({ kind: 'text' as const, chunks: [t] });
const memories = (records: WireRecord[]) => records.filter((r): r is MemoryRecord => r.t === 'memory');
const memoryCalls = (records: WireRecord[]) => records.filter((r) => r.t === 'usage' && (r as UsageRecord).purpose === 'memory');
const sent = (r: RecordedRequest | undefined) => JSON.stringify(r?.body.messages ?? []);

/** A session over the scripted server with two turns behind it, ready to compact. */
async function twoTurns() {
  const session = await f.open({ model: () => server.modelChoice(), compaction: { threshold: 0.8, keepTokens: 20 } });
  server.enqueue(text(long(30)), text(long(30)));
  for (const q of ['we use sql.js for the index', 'keep files under 300 lines']) {
    await session.submit(`${q} ${long(30)}`);
    await session.waitForIdle();
  }
  return session;
}

test('the memory text: one fact a line, kinds kept, comments and fences left out, too long says which line', () => {
  const facts = parseMemoryText('# heading\n```\n- decision: use sql.js\n* file: src/a.ts is the entry\n- plain words\nPREFERENCE: tabs\n\n```');
  assert.deepEqual(facts, [
    { kind: 'decision', text: 'use sql.js' },
    { kind: 'file', text: 'src/a.ts is the entry' },
    { kind: 'note', text: 'plain words' },
    { kind: 'preference', text: 'tabs' },
  ]);
  assert.equal(memoryText(facts), '- decision: use sql.js\n- file: src/a.ts is the entry\n- preference: tabs\n- note: plain words');
  assert.deepEqual(parseMemoryText(memoryText(facts)), [facts[0], facts[1], facts[3], facts[2]], 'the text reads back');
  assert.throws(
    () => parseMemoryText(`- note: ok\n- note: ${'x'.repeat(700)}`),
    (e: unknown) => e instanceof MemoryTextError && /line 2 is 700 characters/.test(e.message),
  );
});

test('a compaction extracts the memory with its own call; the next call after it gives the model the memory; reopening keeps it', async () => {
  const session = await twoTurns();
  const events: SessionEvent[] = [];
  session.onEvent((e) => events.push(e));
  server.enqueue(text('They talked about the index.'), text('- decision: the index uses sql.js\n- constraint: files stay under 300 lines'));
  const before = server.requests.length;
  assert.equal(await session.compact(), true);
  const memoryRequest = server.requests[before + 1];
  assert.match(JSON.stringify(memoryRequest?.body), /You keep the memory of a coding session/);
  assert.match(sent(memoryRequest), /we use sql\.js for the index/, 'the extraction sees what is summarized');

  const records = f.records(session.id);
  const [memory] = memories(records);
  assert.equal(memory?.by, 'model');
  assert.deepEqual(memory?.facts, [
    { kind: 'decision', text: 'the index uses sql.js' },
    { kind: 'constraint', text: 'files stay under 300 lines' },
  ]);
  assert.equal(records.indexOf(memory!), records.findIndex((r) => r.t === 'compaction') + 2, 'written with the compaction, after its usage');
  assert.equal(memoryCalls(records).length, 1, "the extraction's usage is recorded as purpose memory");
  assert.deepEqual(session.memoryRecord?.facts, memory?.facts);
  assert.ok(events.some((e) => e.type === 'memory' && e.record?.by === 'model'));

  server.enqueue(text('third answer'));
  await session.submit('and now?');
  await session.waitForIdle();
  assert.match(sent(server.requests.at(-1)), /Summary:\\n\\nThey talked about the index\.\\n\\nSession memory[^"]*- decision: the index uses sql\.js/);

  await session.close();
  const reopened = await f.open({ model: () => server.modelChoice() }, session.id);
  assert.deepEqual(reopened.memoryRecord?.facts, memory?.facts, 'read back from the end of the log');
  server.enqueue(text('fourth answer'));
  await reopened.submit('again');
  await reopened.waitForIdle();
  assert.match(sent(server.requests.at(-1)), /Session memory[^"]*files stay under 300 lines/, 'the reopened context carries it too');
  await reopened.close();
});

test('a fork carries the memory as of its turn; a rewind before the memory drops it', async () => {
  const session = await twoTurns();
  server.enqueue(text(long(30)));
  await session.submit('third');
  await session.waitForIdle();
  server.enqueue(text('- file: src/core/index.ts holds the index'));
  const record = await session.updateMemory();
  assert.equal(record.turn, 3, 'between turns it belongs to the last turn');

  const whole = await forkSession(f.store, session.id);
  assert.deepEqual(f.store.history(whole.id).memory?.facts, record.facts);
  const forked = await f.open({ model: () => server.modelChoice() }, whole.id);
  assert.deepEqual(forked.memoryRecord?.facts, record.facts, 'the forked session holds it');
  await forked.close();
  const before = await forkSession(f.store, session.id, { turn: 2 });
  assert.equal(f.store.history(before.id).memory, undefined, 'a fork of an earlier turn has the memory of then: none');

  const third = f.store.history(session.id).messages.filter((r) => r.message.role === 'user')[2]!;
  await session.rewind(third.id, { files: false });
  assert.equal(session.memoryRecord, undefined, 'the memory of turn 3 went with it');
  await session.close();
});

test("the user's edit replaces the memory and the next prompt tells the model", async () => {
  const session = await twoTurns();
  server.enqueue(text('- decision: the index uses sql.js'));
  await session.updateMemory();
  const edited = await session.setMemory(parseMemoryText('- preference: answer in French\n- decision: the index uses sql.js and WAL'));
  assert.equal(edited.by, 'user');
  assert.deepEqual(f.store.history(session.id).memory, edited, 'the newest record is the memory');
  server.enqueue(text('bien'));
  await session.submit('next');
  await session.waitForIdle();
  const last = sent(server.requests.at(-1));
  assert.match(last, /The user edited the session memory[^"]*- decision: the index uses sql\.js and WAL[^"]*- preference: answer in French/);
  server.enqueue(text('encore'));
  await session.submit('after');
  await session.waitForIdle();
  assert.equal(sent(server.requests.at(-1)).match(/The user edited the session memory/g)?.length, 1, 'told once');
  await session.close();
});

test('a failed extraction loses nothing and says so: /remember throws, a compaction carries the memory as it was', async () => {
  const session = await twoTurns();
  server.enqueue(text('- constraint: never touch main'));
  const kept = await session.updateMemory();
  const errors: string[] = [];
  session.onEvent((e) => {
    if (e.type === 'memory' && e.error) errors.push(e.error);
  });

  server.enqueue(text('   '));
  await assert.rejects(session.updateMemory(), /the model returned no fact/);
  server.enqueue({ kind: 'httpError', status: 400, message: 'the memory server exploded' });
  await assert.rejects(session.updateMemory(), /exploded/);
  assert.deepEqual(session.memoryRecord, kept, 'the memory stays as it was');
  assert.equal(memories(f.records(session.id)).length, 1, 'no record was written');

  server.enqueue(text('Summary of it all.'), { kind: 'httpError', status: 400, message: 'the memory server exploded again' });
  assert.equal(await session.compact(), true, 'the compaction itself goes on');
  assert.match(errors.join('\n'), /The session memory was not updated \(.*exploded again.*\); it stays as it was\./);
  const records = f.records(session.id);
  const carried = memories(records).at(-1)!;
  assert.deepEqual(carried.facts, kept.facts, 'the memory as it was is carried after the compaction');
  assert.ok(records.indexOf(carried) > records.findIndex((r) => r.t === 'compaction'));
  assert.ok(memoryCalls(records).length >= 3, 'every call that answered is counted');

  server.enqueue(text('ok'));
  await session.submit('go on');
  await session.waitForIdle();
  assert.match(sent(server.requests.at(-1)), /Summary of it all\.\\n\\nSession memory[^"]*never touch main/);
  await session.close();
});
