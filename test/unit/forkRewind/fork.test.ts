import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readSessionFolder } from '../../../src/core/format/summary';
import { rowDisagreement } from '../../../src/core/index/indexRows';
import { FORK_OPEN_CALL_TEXT, ForkError, forkSession, sweepPartials } from '../../../src/core/store/fork';
import type { MessageRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { fauxAssistantMessage, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';

/** A session of three turns; turn 2 runs two subagents. */
async function threeTurns(f: SessionFixture): Promise<string> {
  const sub = (name: string) => () => fauxAssistantMessage(`${name} done`);
  f.faux.setResponses([
    fauxAssistantMessage('turn one answer'),
    fauxAssistantMessage(
      [
        fauxToolCall('task', { description: 'sub A', prompt: 'do A' }, { id: 'ta' }),
        fauxToolCall('task', { description: 'sub B', prompt: 'do B' }, { id: 'tb' }),
      ],
      { stopReason: 'toolUse' },
    ),
    sub('A'),
    sub('B'),
    fauxAssistantMessage('turn two answer'),
    fauxAssistantMessage('turn three answer'),
  ]);
  const session = await f.open();
  for (const prompt of ['first prompt', 'second prompt', 'third prompt']) {
    await session.submit(prompt);
    await session.waitForIdle();
    await new Promise((resolve) => setTimeout(resolve, 5)); // distinct timestamps between turns
  }
  await session.close();
  return session.id;
}

const logOf = (f: SessionFixture, id: string, agent = 'main') => path.join(f.store.locate(id), 'agents', agent, 'wire.jsonl');

test('a fork at each turn keeps exactly the first N turns, byte for byte, and the subagents of those turns', async () => {
  const f = await sessionFixture();
  try {
    const source = await threeTurns(f);
    const sourceBytes = fs.readFileSync(logOf(f, source));
    const sourceMessages = f.store.history(source).messages;
    for (const turn of [1, 2, 3]) {
      const fork = await forkSession(f.store, source, { turn });
      assert.equal(fork.title, `Fork at turn ${turn} of first prompt`);
      assert.deepEqual(fork.forkedFrom, { sessionId: source, turn });
      assert.equal(fork.turnCount, turn);
      const forkMessages = f.store.history(fork.id).messages;
      assert.deepEqual(
        forkMessages.map((m) => m.id),
        sourceMessages.filter((m) => m.turn <= turn).map((m) => m.id),
        `turn ${turn}`,
      );
      const forkBytes = fs.readFileSync(logOf(f, fork.id));
      const { records } = readWireLog(logOf(f, fork.id));
      const forkedLine = JSON.stringify(records.at(-1));
      assert.equal(records.at(-1)!.t, 'forked');
      const prefix = forkBytes.subarray(0, forkBytes.length - Buffer.byteLength(forkedLine) - 1);
      assert.ok(sourceBytes.subarray(0, prefix.length).equals(prefix), "the kept part is the source's byte prefix");
      const subagents = fork.agents
        .filter((a) => a.id !== 'main')
        .map((a) => a.title)
        .sort();
      assert.deepEqual(subagents, turn >= 2 ? ['sub A', 'sub B'] : [], `subagents at turn ${turn}`);
      for (const a of fork.agents.filter((x) => x.id !== 'main')) assert.equal(readWireLog(logOf(f, fork.id, a.id)).records.at(-1)!.t, 'forked');
      assert.equal(f.store.index.get(fork.id)?.turnCount, turn);
    }
    const whole = await forkSession(f.store, source, { title: 'Everything' });
    assert.equal(whole.title, 'Everything');
    assert.equal(f.store.history(whole.id).messages.length, sourceMessages.length);
    assert.ok(fs.readFileSync(logOf(f, source)).equals(sourceBytes), 'the source is untouched');
    await assert.rejects(forkSession(f.store, source, { turn: 9 }), ForkError);
  } finally {
    await f.cleanup();
  }
});

test('forking a running session works at a finished turn and is refused at the turn in flight; open tool calls are closed', async () => {
  const f = await sessionFixture();
  try {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    f.faux.setResponses([fauxAssistantMessage('done'), async () => (await gate, fauxAssistantMessage('late'))]);
    const session = await f.open();
    await session.submit('one');
    await session.waitForIdle();
    await session.submit('two');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const atOne = await forkSession(f.store, session.id, { turn: 1 });
    assert.equal(f.store.history(atOne.id).messages.length, 2);
    await assert.rejects(forkSession(f.store, session.id, { turn: 2 }), /turn 2 of \S+ is still running; fork at turn 1/);
    release();
    await session.waitForIdle();

    // A turn that ended with a tool call and no result (cancelled mid-call) gets one in the fork.
    const state = await f.store.create({ workspaceDir: f.workspace });
    const writer = await f.store.openWriter(state.id);
    await writer.beginTurn('p', null);
    await writer.appendMessage({ role: 'user', content: 'go', timestamp: 1 });
    await writer.appendMessage(fauxAssistantMessage(fauxToolCall('bash', { command: 'make' }, { id: 'open-call' }), { stopReason: 'toolUse' }));
    await writer.endTurn('cancelled');
    await writer.close();
    const fork = await forkSession(f.store, state.id, { turn: 1 });
    const last = f.store.history(fork.id).messages.at(-1) as MessageRecord;
    assert.equal(last.message.role, 'toolResult');
    assert.match(JSON.stringify(last.message), new RegExp(FORK_OPEN_CALL_TEXT.slice(0, 40)));
  } finally {
    await f.cleanup();
  }
});

test('forks say what they are and of which session, and two forks of one session never read alike', async () => {
  const f = await sessionFixture();
  try {
    const source = await threeTurns(f);
    const titles: string[] = [];
    for (const turn of [undefined, undefined, 2, 2, 3]) titles.push((await forkSession(f.store, source, turn === undefined ? {} : { turn })).title);
    assert.deepEqual(titles, [
      'Fork of first prompt',
      'Fork 2 of first prompt',
      'Fork at turn 2 of first prompt',
      'Fork 2 at turn 2 of first prompt',
      'Fork at turn 3 of first prompt',
    ]);
    // A fork of a fork names the session the chain began with, never "Fork of Fork of …", and reads
    // like none of the chain's sessions and forks; a title given (the CLI's --title, a kept side question) is kept.
    const fork = f.store.index.list({ workspaceKey: f.store.get(source).workspaceKey }).find((r) => r.title === 'Fork of first prompt')!;
    assert.equal((await forkSession(f.store, fork.id, { turn: 1 })).title, 'Fork at turn 1 of first prompt');
    assert.equal((await forkSession(f.store, fork.id, { turn: 2 })).title, 'Fork 3 at turn 2 of first prompt', 'the source has two forks at turn 2');
    assert.equal((await forkSession(f.store, fork.id)).title, 'Fork 3 of first prompt');
    assert.equal((await forkSession(f.store, source, { title: 'My own name' })).title, 'My own name');
    // A deleted fork frees its title for the next one.
    const second = f.store.index.list({ workspaceKey: fork.workspaceKey }).find((r) => r.title === 'Fork 2 of first prompt')!;
    await f.store.delete(second.id);
    assert.equal((await forkSession(f.store, source)).title, 'Fork 2 of first prompt');
    // A long source title is cut at a word boundary inside the fork's title.
    await f.store.rename(source, 'Refactor the tokenizer so that every token keeps its source span and offsets');
    assert.equal((await forkSession(f.store, source, { turn: 1 })).title, 'Fork at turn 1 of Refactor the tokenizer so that every token keeps…');
  } finally {
    await f.cleanup();
  }
});

test('stale partial folders are swept; fresh ones (a fork in progress elsewhere) are left', async () => {
  const f = await sessionFixture();
  try {
    const s = await f.store.create({ workspaceDir: f.workspace });
    const ws = path.dirname(f.store.locate(s.id));
    fs.mkdirSync(path.join(ws, '.partial-ses_01ARZ3NDEKTSV4RRFFQ69G5FAV'));
    fs.mkdirSync(path.join(ws, '.partial-ses_01ARZ3NDEKTSV4RRFFQ69G5FAW'));
    const old = new Date(Date.now() - 60 * 60 * 1000);
    fs.utimesSync(path.join(ws, '.partial-ses_01ARZ3NDEKTSV4RRFFQ69G5FAV'), old, old);
    assert.equal(sweepPartials(f.store).length, 1);
    assert.ok(fs.existsSync(path.join(ws, '.partial-ses_01ARZ3NDEKTSV4RRFFQ69G5FAW')));
  } finally {
    await f.cleanup();
  }
});

test('a whole fork of a running session takes only the ended turns, says it left the running one out, and opens without an interrupted turn', async () => {
  const f = await sessionFixture();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  try {
    let subagentWaiting!: () => void;
    const waiting = new Promise<void>((resolve) => (subagentWaiting = resolve));
    f.faux.setResponses([
      fauxAssistantMessage(fauxToolCall('task', { description: 'sub one', prompt: 'do one' }, { id: 't1' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage('one done'),
      fauxAssistantMessage('turn one answer'),
      fauxAssistantMessage(fauxToolCall('task', { description: 'sub two', prompt: 'do two' }, { id: 't2' }), { stopReason: 'toolUse' }),
      async () => (subagentWaiting(), await gate, fauxAssistantMessage('two done')),
      fauxAssistantMessage('turn two answer'),
    ]);
    const session = await f.open();
    await session.submit('first prompt');
    await session.waitForIdle();
    await session.submit('second prompt');
    await waiting; // turn 2 runs, its subagent is waiting for the model
    const sourceState = f.store.get(session.id);
    assert.equal(sourceState.agents.filter((a) => a.id !== 'main').length, 2, "the running turn's subagent is registered");

    const fork = await forkSession(f.store, session.id);
    assert.equal(fork.leftOutTurn, 2);
    assert.deepEqual(fork.forkedFrom, { sessionId: session.id, turn: 1 });
    assert.equal(fork.turnCount, 1);
    const forkRecords = f.records(fork.id);
    assert.deepEqual(
      forkRecords.filter((r) => r.t === 'turn_begin').map((r) => (r as { turn: number }).turn),
      [1],
    );
    assert.deepEqual((forkRecords.at(-1) as { from: unknown }).from, { sessionId: session.id, turn: 1 });
    assert.ok(!JSON.stringify(forkRecords).includes('second prompt'), 'nothing of the running turn is copied');
    assert.deepEqual(
      fork.agents.filter((a) => a.id !== 'main').map((a) => a.title),
      ['sub one'],
    );
    assert.deepEqual(fs.readdirSync(path.join(f.store.locate(fork.id), 'agents')).length, 2, "main and the ended turn's subagent only");

    const opened = await f.open({}, fork.id);
    const ends = f.records(fork.id).filter((r) => r.t === 'turn_end') as Array<{ outcome: string }>;
    assert.deepEqual(
      ends.map((e) => e.outcome),
      ['completed'],
      'no turn was marked interrupted',
    );
    assert.equal(f.store.get(fork.id).status, 'idle');
    assert.deepEqual(
      opened.messages.map((m) => m.role),
      ['user', 'assistant', 'toolResult', 'assistant'],
    );
    release();
    await session.waitForIdle();

    // A fork of a session that is idle leaves nothing out.
    const whole = await forkSession(f.store, session.id);
    assert.equal(whole.leftOutTurn, null);
    assert.deepEqual(whole.forkedFrom, { sessionId: session.id, turn: null });
    assert.equal(whole.turnCount, 2);
  } finally {
    release(); // a failed assertion must not leave the turn waiting forever
    await f.cleanup();
  }
});

test('a whole fork of a session whose first turn is still running holds no turn and says so', async () => {
  const f = await sessionFixture();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  try {
    f.faux.setResponses([async () => (await gate, fauxAssistantMessage('late'))]);
    const session = await f.open();
    await session.submit('only prompt');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const fork = await forkSession(f.store, session.id);
    assert.equal(fork.leftOutTurn, 1);
    assert.deepEqual(fork.forkedFrom, { sessionId: session.id, turn: 0 });
    assert.equal(fork.turnCount, 0);
    assert.deepEqual(
      f.records(fork.id).map((r) => r.t),
      ['agent', 'forked'],
    );
  } finally {
    release();
    await f.cleanup();
  }
});

test('a fork at a turn between a rewind and its undo holds the turns the undo brought back, in its log, its row and its search text', async () => {
  const f = await sessionFixture();
  try {
    const long = (n: number) => 'word '.repeat(n);
    f.faux.setResponses([
      fauxAssistantMessage(long(30)),
      fauxAssistantMessage(long(30)),
      fauxAssistantMessage('turn three answer'),
      fauxAssistantMessage('the summary'),
    ]);
    const session = await f.open({ compaction: { threshold: 0.8, keepTokens: 20 } });
    for (const prompt of [`alpha ${long(30)}`, `beta ${long(30)}`, 'gamma third prompt']) {
      await session.submit(prompt);
      await session.waitForIdle();
    }
    const third = f.store.history(session.id).messages.find((m) => m.turn === 3 && m.message.role === 'user')!;
    // Turn 3 rewound, the rest compacted (a record of turn 2), then the rewind undone: the compaction lies after turn 3's records.
    await session.rewind(third.id, { files: false });
    assert.equal(await session.compact(), true);
    await session.undoRewind();
    await session.close();
    const source = f.store.history(session.id);
    assert.deepEqual(
      f.records(session.id).flatMap((r) => (['rewind', 'compaction', 'undo_rewind'].includes(r.t) ? [r.t] : [])),
      ['rewind', 'compaction', 'undo_rewind'],
    );
    assert.equal(source.compactions.length, 1);

    // Turn 3 ends before the rewind, turn 2 (its compaction) after it: a fork at turn 3 cuts before the undo, and undoes the rewind itself.
    const fork = await forkSession(f.store, session.id, { turn: 3 });
    const history = f.store.history(fork.id);
    assert.deepEqual(
      history.messages.map((m) => m.id),
      source.messages.map((m) => m.id),
    );
    assert.deepEqual(
      history.turnBegins.map((t) => t.turn),
      [1, 2, 3],
    );
    assert.equal(history.compactions.length, 1);
    assert.deepEqual(
      f
        .records(fork.id)
        .slice(-2)
        .map((r) => r.t),
      ['undo_rewind', 'forked'],
    );
    assert.equal(fork.turnCount, 3);
    // The row and the search text say what the fork's folder read back whole says.
    const reread = readSessionFolder(f.store.locate(fork.id)).summary;
    assert.equal(rowDisagreement(f.store.index.get(fork.id)!, reread), undefined);
    assert.match(f.store.index.summaryOf(fork.id)!.prompts, /gamma third prompt/);
    assert.equal(f.store.index.summaryOf(fork.id)!.prompts, reread.prompts);
    assert.deepEqual(f.store.index.summaryOf(fork.id)!.fold, JSON.parse(JSON.stringify(reread.fold)));

    // At turn 2 the same cut keeps turn 3 rewound, as it should be: no undo.
    const earlier = await forkSession(f.store, session.id, { turn: 2 });
    assert.deepEqual(
      f.store.history(earlier.id).messages.map((m) => m.id),
      source.messages.filter((m) => m.turn <= 2).map((m) => m.id),
    );
    assert.ok(!f.records(earlier.id).some((r) => r.t === 'undo_rewind'));
    assert.equal(earlier.turnCount, 2);
  } finally {
    await f.cleanup();
  }
});
