import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { migrate, normalizeState, readState } from '../../../src/core/format/sessionState';
import { addTurn, openStore, tempRoots } from '../../support/store';

// state.json version 1 kept copies of what the log says; version 2 keeps what the user owns.
// Every version 1 file Braid ever wrote must keep reading, with the log's facts winning.

const { root, cleanup } = tempRoots();
after(cleanup);

const V2_KEYS = [
  'archived',
  'createdAt',
  'forkedFrom',
  'id',
  'kind',
  'paused',
  'queue',
  'title',
  'titleSource',
  'v',
  'visibility',
  'workspaceDir',
  'workspaceKey',
];

/** A state.json as version 1 wrote it, its derived fields out of step with the log on purpose. */
function v1State(id: string, workspaceKey: string, workspaceDir: string): Record<string, unknown> {
  return {
    v: 1,
    id,
    title: 'Named in version 1',
    titleSource: 'user',
    workspaceDir,
    workspaceKey,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_500_000,
    status: 'running',
    error: { message: 'stale', source: 'turn' },
    kind: 'conversation',
    visibility: 'visible',
    archived: false,
    forkedFrom: null,
    agents: [{ id: 'main', parentId: null, title: 'main' }],
    model: { provider: 'old', id: 'old-model', thinking: 'off' },
    queue: [{ promptId: 'p1', text: 'waiting', messageKey: 'k1' }],
    paused: { reason: 'window-closed' },
    turnCount: 9,
    usage: { input: 999, output: 999, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 99 },
  };
}

test('migrate drops what version 1 copied from the log and keeps what the user owns', () => {
  const v1 = v1State('ses_01J0000000000000000000000A', 'wd_app_000000000000', '/app');
  const v2 = migrate(v1);
  assert.equal(v2.v, 2);
  for (const gone of ['status', 'error', 'turnCount', 'usage', 'model', 'updatedAt', 'agents']) assert.equal(gone in v2, false, gone);
  assert.deepEqual([v2.title, v2.titleSource, v2.archived, v2.paused], ['Named in version 1', 'user', false, { reason: 'window-closed' }]);
  // A queued prompt without its own time takes the last time version 1 wrote the file.
  assert.deepEqual(v2.queue, [{ promptId: 'p1', text: 'waiting', messageKey: 'k1', queuedAt: 1_700_000_500_000 }]);
  assert.deepEqual(Object.keys(normalizeState(v1)).sort(), V2_KEYS);
  // A file from before versions were written reads as version 1; a newer version reads as far as this one knows it.
  assert.equal(normalizeState({ ...v1, v: undefined }).title, 'Named in version 1');
  assert.equal(normalizeState({ ...migrate(v1), v: 3, somethingNew: true }).title, 'Named in version 1');
});

test("a version 1 session opens with the log's facts, and its next write is version 2", async () => {
  const store = await openStore(root());
  const created = await store.create({ workspaceDir: '/app' });
  const writer = await store.openWriter(created.id);
  await addTurn(writer, 'first prompt', 'first answer');
  await addTurn(writer, 'second prompt', 'second answer');
  await writer.close();
  const dir = store.locate(created.id);
  const file = path.join(dir, 'state.json');
  fs.writeFileSync(file, JSON.stringify(v1State(created.id, created.workspaceKey, '/app'), null, 2));
  store.index.rereadFolder(dir);

  const state = store.get(created.id);
  assert.deepEqual([state.status, state.error, state.turnCount, state.usage.input, state.model?.id], ['idle', null, 2, 20, 'test-model'], 'the log wins');
  assert.deepEqual([state.title, state.queue.length, state.paused?.reason], ['Named in version 1', 1, 'window-closed'], 'what the user owns is kept');
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).v, 1, 'reading never rewrites the file');

  await store.rename(created.id, 'Renamed');
  const written = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.deepEqual(Object.keys(written).sort(), V2_KEYS);
  assert.deepEqual([written.v, written.title, written.paused], [2, 'Renamed', { reason: 'window-closed' }]);
  assert.equal(readState(file).title, 'Renamed');
  assert.equal(store.index.get(created.id)?.turnCount, 2);
  await store.close();
});
