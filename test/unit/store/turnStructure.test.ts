import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { runDoctor, type Finding } from '../../../src/core/store/doctor';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import type { NewRecord } from '../../../src/core/wire/records';
import { assistantMessage, openStore, tempDir, userMessage } from '../../support/store';

// The doctor reads the turn structure of every main log: two writers appending to one session at
// once leave turns that begin or end twice, records of an older turn after a newer one began, or
// turn numbers going backwards without a rewind. A crash's recovery, compactions between turns,
// rewinds and their undo are all clean.
const root = tempDir('braid-turns-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

const begin = (turn: number): NewRecord => ({ t: 'turn_begin', turn, promptId: `p-${turn}`, model: null });
const end = (turn: number, outcome: 'completed' | 'interrupted' = 'completed'): NewRecord => ({ t: 'turn_end', turn, outcome });
const prompt = (turn: number, text = `prompt ${turn}`): NewRecord => ({ t: 'message', turn, id: `msg-u-${turn}-${text.length}`, message: userMessage(text) });
const answer = (turn: number, text = `answer ${turn}`): NewRecord => ({
  t: 'message',
  turn,
  id: `msg-a-${turn}-${text.length}`,
  message: assistantMessage(text),
});
const whole = (turn: number): NewRecord[] => [begin(turn), prompt(turn), answer(turn), end(turn)];

/** A session whose main log gets exactly `records` after its first line, and state.json `turnCount`. */
async function sessionWith(store: SessionStore, records: NewRecord[]): Promise<string> {
  const session = await store.create({ workspaceDir: '/turns' });
  const writer = await store.openWriter(session.id);
  await writer.append(records, true);
  await writer.close();
  return session.id;
}

const about = (findings: Finding[], id: string) => findings.filter((f) => f.where.includes(id));

test('clean logs: crash recovery tails, a compaction between turns, a rewind and its undo', async () => {
  const store = await openStore(root);
  const id = await sessionWith(store, [
    ...whole(1),
    begin(2),
    prompt(2),
    end(2, 'interrupted'),
    {
      t: 'message',
      turn: 2,
      id: 'msg-closing',
      message: { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text: 'unknown' }], isError: true, timestamp: 1 },
    },
    { t: 'compaction', turn: 2, summary: 's', firstKeptMessageId: 'msg-u-2-8', summarized: 2 },
    ...whole(3),
    { t: 'rewind', toTurn: 2, messageId: 'msg-u-2-8', files: false },
    ...whole(2),
    ...whole(3),
    { t: 'rewind', toTurn: 3, messageId: 'msg-u-3-8', files: false },
    ...whole(3),
  ]);
  assert.deepEqual(about((await runDoctor(store, { fix: false })).findings, id), []);
  await store.close();
});

test('doctor reports turns that begin or end twice, records of an older turn after a newer began, and numbers going backwards', async () => {
  const store = await openStore(root);
  // What a paused writer that went on after a takeover leaves: it ends "its" turn 2 after the new
  // writer's turn 3 began, then begins turn 3 again.
  const id = await sessionWith(store, [
    ...whole(1),
    begin(2),
    prompt(2),
    end(2, 'interrupted'),
    begin(3),
    prompt(3),
    answer(2, 'the paused writer'),
    end(2),
    answer(3),
    end(3),
    begin(3),
    prompt(3, 'again'),
    end(3),
    begin(1),
    end(1),
  ]);
  const findings = about((await runDoctor(store, { fix: false })).findings, id);
  const structure = findings.find((f) => /turn structure/.test(f.message));
  assert.ok(structure, JSON.stringify(findings));
  assert.equal(structure.fixable, false, 'the log is kept as it is');
  for (const part of [/turn 2 ends twice/, /turn 3 begins twice/, /turn 2 .*after turn 3 began/, /turn 1 begins after turn 3/])
    assert.match(structure.message, part);
  // The turn count is the fold's: turns 1 to 3 began, whatever order the log says it in.
  assert.equal(store.get(id).turnCount, 3);
  await runDoctor(store, { fix: true });
  const after = about((await runDoctor(store, { fix: false })).findings, id);
  assert.deepEqual(
    after.map((f) => f.fixable),
    [false],
    'only the structure, which cannot be repaired without rewriting the log, is left',
  );
  await store.close();
});
