import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { decodeTime } from 'ulid';
import { rowJson } from '../../../src/cli/commands/format';
import type { SessionRow } from '../../../src/core/index/indexRows';
import { implausibleFields, normalizeState } from '../../../src/core/format/sessionState';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { braidIn } from '../../support/cli';
import { addTurn, openStore, tempDir } from '../../support/store';

// A state.json that parses but holds values Braid never writes (createdAt: 1e308): one bad
// session never breaks a listing or an export, and the doctor names the field and repairs it.
const root = tempDir('braid-state-values-');
const workspace = '/projects/app';
const ids: string[] = [];
const braid = (args: string[]) => braidIn(['--data-dir', root, ...args], { cwd: workspace });

before(async () => {
  const store = await openStore(root);
  for (const prompt of ['first session', 'second session']) {
    const state = await store.create({ workspaceDir: workspace });
    const writer = await store.openWriter(state.id);
    await addTurn(writer, prompt, `answer to ${prompt}`);
    await writer.close();
    ids.push(state.id);
  }
  await store.close();
  const file = path.join(root, 'sessions', workspaceKey(workspace), ids[0]!, 'state.json');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), createdAt: 1e308, updatedAt: -5 }));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

test("list --json and export work with an absurd createdAt; the time reads as the session id's", async () => {
  const listed = await braid(['list', '--json']);
  assert.equal(listed.code, 0, listed.err);
  const rows = JSON.parse(listed.out) as Array<{ id: string; createdAt: string; updatedAt: string }>;
  assert.deepEqual(rows.map((r) => r.id).sort(), [...ids].sort());
  const bad = rows.find((r) => r.id === ids[0])!;
  assert.equal(bad.createdAt, new Date(decodeTime(ids[0]!.slice(4))).toISOString());
  // Its last change is its log's newest record: after its creation.
  assert.ok(Date.parse(bad.updatedAt) >= Date.parse(bad.createdAt), bad.updatedAt);
  assert.equal((await braid(['list'])).code, 0);
  const md = await braid(['export', ids[0]!, '--format', 'md']);
  assert.equal(md.code, 0, md.err);
  assert.match(md.out, /- Created: \d{4}-/);
});

test('the doctor names the field; --fix writes the stand-in and the next check is clean', async () => {
  const check = await braid(['doctor']);
  assert.equal(check.code, 1, check.out);
  assert.match(check.out, new RegExp(`${ids[0]}: state\\.json: createdAt is 1e\\+308, not a time; read with stand-in values`));
  assert.equal((await braid(['doctor', '--fix'])).code, 0);
  const again = await braid(['doctor']);
  assert.equal(again.code, 0, again.out);
  assert.match(again.out, /no problems found/);
});

test('normalizeState gives impossible times and multi-line titles stand-ins, and implausibleFields names them', () => {
  const id = 'ses_01J0000000000000000000000A';
  const raw = {
    id,
    workspaceKey: workspaceKey(workspace),
    title: 'two\nlines ',
    createdAt: 1e308,
    updatedAt: Number.MAX_SAFE_INTEGER,
    queue: [{ promptId: 'p', text: 'q', queuedAt: 'soon' }],
  };
  const state = normalizeState(raw);
  assert.equal(state.createdAt, decodeTime(id.slice(4)));
  assert.equal(state.title, 'two lines');
  assert.equal(state.queue[0]!.queuedAt, state.createdAt);
  // A version 1 updatedAt is dropped by the migration (the log says when the session changed).
  assert.equal(implausibleFields(raw).length, 3);
  assert.deepEqual(implausibleFields(normalizeState(raw)), []);
});

test('an index row with an impossible time still lists, the time as null', () => {
  const row = { id: 'ses_01J0000000000000000000000A', createdAt: 1e308, updatedAt: Number.NaN } as SessionRow;
  assert.deepEqual([rowJson(row).createdAt, rowJson(row).updatedAt], [null, null]);
});

test('a log record with an absurd time (ts: 1e308) leaves its session listed and its usage counted under an unknown day', async () => {
  const dataDir = tempDir('braid-record-time-');
  try {
    const store = await openStore(dataDir);
    const state = await store.create({ workspaceDir: workspace });
    const writer = await store.openWriter(state.id);
    await addTurn(writer, 'a turn', 'an answer');
    await writer.close();
    await store.close();
    const log = path.join(dataDir, 'sessions', workspaceKey(workspace), state.id, 'agents', 'main', 'wire.jsonl');
    fs.appendFileSync(
      log,
      `${JSON.stringify({ v: 1, t: 'usage', ts: 1e308, turn: 1, messageId: 'msg_absurd', provider: 'p', model: 'm', input: 5, output: 7, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0, latencyMs: 1, stopReason: 'stop' })}\n`,
    );
    const at = (args: string[]) => braidIn(['--data-dir', dataDir, ...args], { cwd: workspace });
    assert.equal((await at(['rebuild-index'])).code, 0);
    const listed = await at(['list', '--json']);
    assert.deepEqual(
      (JSON.parse(listed.out) as Array<{ id: string }>).map((r) => r.id),
      [state.id],
    );
    const byDay = await at(['usage', '--by', 'day', '--json']);
    assert.equal(byDay.code, 0, byDay.err);
    assert.match(byDay.out, /unknown/);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
