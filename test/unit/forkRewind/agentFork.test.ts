import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { MessageRecord } from '../../../src/core/wire/records';
import { fauxAssistantMessage, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';
import { braidIn } from '../../support/cli';

/** `braid` on the fixture's store, run from its workspace. */
const braid = (f: SessionFixture, args: string[]) => braidIn(['--data-dir', path.join(f.root, 'store'), ...args], { cwd: f.workspace });

/** A session whose one turn delegated a look at a.txt to a subagent; its id and the subagent's. */
async function sessionWithSubagent(f: SessionFixture): Promise<{ sessionId: string; agentId: string }> {
  f.faux.setResponses([
    fauxAssistantMessage(fauxToolCall('task', { description: 'Read a', prompt: 'What is in a.txt?' }, { id: 't1' }), { stopReason: 'toolUse' }),
    fauxAssistantMessage(fauxToolCall('read_file', { path: 'a.txt' }, { id: 'r1' }), { stopReason: 'toolUse' }),
    fauxAssistantMessage('a.txt holds apples'),
    fauxAssistantMessage('The subagent says apples.'),
  ]);
  const session = await f.open();
  await session.submit('Delegate a look at a.txt');
  await session.waitForIdle();
  const agentId = f.store.get(session.id).agents.find((a) => a.parentId === 'main')!.id;
  await session.close();
  return { sessionId: session.id, agentId };
}

const sessionFolders = (f: SessionFixture) =>
  fs.readdirSync(path.join(f.root, 'store', 'sessions'), { recursive: true }).filter((p) => /(^|\/)ses_[^/]+$/.test(String(p))).length;

test('braid fork --agent makes a session of the subagent conversation that resumes; forkedFrom and braid show name the agent', async () => {
  const f = await sessionFixture({ 'a.txt': 'apples' });
  try {
    const { sessionId, agentId } = await sessionWithSubagent(f);
    const source = await braid(f, ['show', sessionId]);
    assert.match(source.out, new RegExp(`subagents\\n  ${agentId}  Read a\\n`), 'show lists the subagent by the id fork --agent takes');
    const usageBefore = JSON.parse((await braid(f, ['usage', '--json'])).out) as { total: { calls: number } };

    const made = await braid(f, ['fork', sessionId, '--agent', agentId, '--json']);
    assert.equal(made.code, 0, made.err);
    const forked = JSON.parse(made.out) as { id: string; title: string; forkedFrom: unknown; turnCount: number };
    assert.deepEqual(forked.forkedFrom, { sessionId, turn: 1, agentId });
    assert.equal(forked.turnCount, 1);
    assert.equal(forked.title, 'Fork of agent "Read a" of Delegate a look at a.txt');
    const messages = f.store.history(forked.id).messages.map((m: MessageRecord) => [m.message.role, JSON.stringify(m.message.content)]);
    assert.deepEqual(
      messages.map(([role]) => role),
      ['user', 'assistant', 'toolResult', 'assistant'],
    );
    assert.match(messages[0]![1]!, /What is in a.txt\?/);
    assert.match(messages[2]![1]!, /apples/);
    assert.doesNotMatch(JSON.stringify(messages), /Delegate a look/, "the parent's conversation is not in it");
    const shown = await braid(f, ['show', forked.id]);
    assert.match(shown.out, new RegExp(`forked from agent ${agentId} of \\w+ at turn 1`));
    const usageAfter = JSON.parse((await braid(f, ['usage', '--json'])).out) as { total: { calls: number } };
    assert.equal(usageAfter.total.calls, usageBefore.total.calls, "the subagent's calls are counted once, under the source");

    // An ordinary session: resumed, its model sees the subagent's conversation and the new prompt.
    let seen = '';
    f.faux.setResponses([(context) => ((seen = JSON.stringify(context.messages)), fauxAssistantMessage('Still apples.'))]);
    const resumed = await f.open({}, forked.id);
    await resumed.submit('And b.txt?');
    await resumed.waitForIdle();
    assert.match(seen, /What is in a.txt\?.*a.txt holds apples.*And b.txt\?/s);
    assert.equal(f.store.get(forked.id).turnCount, 2);
  } finally {
    await f.cleanup();
  }
});

test('braid fork --agent with an unknown agent id fails with exit 1, says which agents there are, and creates nothing', async () => {
  const f = await sessionFixture({ 'a.txt': 'apples' });
  try {
    const { sessionId, agentId } = await sessionWithSubagent(f);
    const before = sessionFolders(f);
    const bad = await braid(f, ['fork', sessionId, '--agent', 'agt_nosuchagent']);
    assert.equal(bad.code, 1);
    assert.equal(bad.out, '');
    assert.match(bad.err, new RegExp(`has no subagent "agt_nosuchagent"; its subagents are ${agentId}`));
    assert.equal(sessionFolders(f), before);
    assert.deepEqual(
      fs.readdirSync(path.dirname(f.store.locate(sessionId))).filter((n) => n.startsWith('.partial-')),
      [],
    );
    const mixed = await braid(f, ['fork', sessionId, '--agent', agentId, '--turn', '1']);
    assert.equal(mixed.code, 2, 'usage error');
    assert.equal(sessionFolders(f), before);
  } finally {
    await f.cleanup();
  }
});
