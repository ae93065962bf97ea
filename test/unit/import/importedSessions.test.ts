import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, beforeEach, test } from 'node:test';
import { importSessions } from '../../../src/core/import/importer';
import { forkSession } from '../../../src/core/store/fork';
import { previewRewind } from '../../../src/core/store/rewind';
import type { MessageRecord } from '../../../src/core/wire/records';
import { importedTurnsNote } from '../../../src/vscode/rewindNotes';
import { importSources } from '../../support/importFixtures';
import { ScriptedModelServer } from '../../support/modelServer';
import { sessionFixture, type SessionFixture } from '../../support/session';

// Imported sessions are Braid sessions: continued over real HTTP with their history, forked,
// rewound (the conversation; the files of imported turns were never checkpointed), searched.
const server = new ScriptedModelServer();
let f: SessionFixture;
let src: ReturnType<typeof importSources>;
before(() => server.start());
beforeEach(async () => {
  f = await sessionFixture();
  src = importSources(f.workspace);
});
afterEach(async () => {
  await f.cleanup();
  src.cleanup();
});
after(() => server.close());

async function importClaude(): Promise<string> {
  const [outcome] = await importSessions(f.store, { from: 'claude-code', paths: [path.join(src.sources, 'claude-code')], dryRun: false });
  assert.equal(outcome?.action, 'imported');
  return outcome.sessionId!;
}

const prompts = (id: string) =>
  f
    .records(id)
    .filter(
      (r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'user' && typeof (r as MessageRecord).message.content === 'string',
    )
    .map((r) => r.message.content as string);

test('continuing an imported session sends its history to the model and writes the next turn after it', async () => {
  const id = await importClaude();
  const session = await f.open({ model: () => server.modelChoice() }, id);
  server.enqueue({ kind: 'text', chunks: ['Carrying on.'] });
  await session.submit('What did we do so far?');
  await session.waitForIdle();
  const sent = JSON.stringify(server.requests.at(-1)!.body.messages);
  // The compaction's summary, then what came after it; not the summarized turns themselves.
  assert.match(sent, /it now says three/);
  assert.match(sent, /Ask a subagent to list the TODOs/);
  assert.match(sent, /The subagent found one TODO/);
  assert.doesNotMatch(sent, /Read notes.md and count its lines/);
  assert.match(sent, /What did we do so far\?/);
  const state = f.store.get(id);
  assert.equal(state.turnCount, 4);
  assert.equal(state.status, 'idle');
  // A re-import now leaves the continued session alone and says why.
  const [again] = await importSessions(f.store, { from: 'claude-code', paths: [path.join(src.sources, 'claude-code')], dryRun: false });
  assert.equal(again?.action, 'unchanged');
});

test('an imported session forks at a turn like any other', async () => {
  const id = await importClaude();
  const fork = await forkSession(f.store, id, { turn: 2 });
  assert.equal(fork.turnCount, 2);
  assert.deepEqual(prompts(fork.id).slice(-1), ['Instead, edit notes.md to say three']);
  assert.ok(!prompts(fork.id).includes('Ask a subagent to list the TODOs'));
});

test('a rewind into imported turns rewinds the conversation and says their files have no checkpoints', async () => {
  const id = await importClaude();
  const target = f
    .records(id)
    .find((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.content === 'Instead, edit notes.md to say three')!;
  const preview = previewRewind(f.store, id, target.id);
  assert.equal(preview.turnsDropped, 2);
  assert.equal(preview.importedTurns, 2);
  assert.deepEqual(preview.files, [], 'no file checkpoints of imported turns');
  assert.match(importedTurnsNote(preview)!, /2 turns of these were imported from another agent: Braid has no checkpoints/);
  const before = fs.readFileSync(path.join(f.workspace, 'notes.md'), 'utf8');
  const session = await f.open({ model: () => server.modelChoice() }, id);
  const result = await session.rewind(target.id, { files: true });
  assert.equal(result.toTurn, 2);
  assert.equal(f.store.get(id).turnCount, 1);
  assert.equal(fs.readFileSync(path.join(f.workspace, 'notes.md'), 'utf8'), before, 'no file touched');
});

test('imported sessions are found by search, by their prompts and titles', async () => {
  const id = await importClaude();
  await importSessions(f.store, { from: 'pi', paths: [path.join(src.sources, 'pi')], dryRun: false });
  const key = f.store.get(id).workspaceKey;
  assert.ok(f.store.index.search('subagent TODOs', { workspaceKey: key }).some((r) => r.id === id));
  const haiku = f.store.index.search('haiku', { workspaceKey: key });
  assert.equal(haiku.length, 1, 'the pi branch with the haiku prompt');
  assert.equal(f.store.index.search('Notes in pi', { workspaceKey: key }).length >= 1, true);
});
