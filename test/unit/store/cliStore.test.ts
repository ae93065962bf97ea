import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../../src/cli/run';
import { defaultDataDir } from '../../../src/cli/dataDir';
import { chooseDataDir } from '../../../src/cli/dataDirChoice';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { addTurn, openStore, tempDir, wasmPath } from '../../support/store';

const root = tempDir('braid-cli-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

async function braid(args: string[], cwd = '/projects/app'): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--data-dir', root, ...args], {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env: {},
    cwd,
    wasmPath,
  });
  return { code, out, err };
}

let first = '';
let second = '';

test('setup: two sessions in /projects/app, one elsewhere', async () => {
  const store = await openStore(root);
  for (const [dir, prompt] of [
    ['/projects/app', 'explain the build script'],
    ['/projects/app', 'add a search box'],
    ['/projects/other', 'unrelated work'],
  ] as const) {
    const s = await store.create({ workspaceDir: dir });
    const w = await store.openWriter(s.id);
    await addTurn(w, prompt, `answer to ${prompt}`);
    await w.close();
    if (!first) first = s.id;
    else if (!second) second = s.id;
  }
  await store.close();
});

test('list --json gives the documented fields, newest first, for the current workspace', async () => {
  const r = await braid(['list', '--json']);
  assert.equal(r.code, 0, r.err);
  const rows = JSON.parse(r.out) as Array<Record<string, unknown>>;
  assert.deepEqual(
    rows.map((x) => x.id),
    [second, first],
  );
  for (const key of ['id', 'title', 'status', 'workspaceDir', 'workspaceKey', 'createdAt', 'updatedAt', 'turnCount', 'archived', 'forkedFrom'])
    assert.ok(key in rows[0]!, key);
  assert.equal(rows[0]!.workspaceKey, workspaceKey('/projects/app'));
  const all = JSON.parse((await braid(['list', '--all', '--json'])).out) as unknown[];
  assert.equal(all.length, 3);
  assert.match((await braid(['list'], '/nowhere')).out, /No sessions for \/nowhere/);
});

test('search, show, rename, archive, restore, delete, undelete and export work by id', async () => {
  assert.match((await braid(['search', 'build'])).out, new RegExp(`^${first.slice(-6)} `));
  assert.equal((await braid(['search', 'build', '--json'])).out.includes(second), false);
  const shown = await braid(['show', first]);
  assert.match(shown.out, /> explain the build script/);
  assert.equal(JSON.parse((await braid(['show', first, '--json'])).out).state.id, first);
  assert.equal((await braid(['rename', first, 'Build', 'notes'])).code, 0);
  assert.equal(JSON.parse((await braid(['show', first, '--json'])).out).state.title, 'Build notes');
  assert.equal((await braid(['archive', first])).code, 0);
  assert.deepEqual(
    (JSON.parse((await braid(['list', '--archived', '--json'])).out) as Array<{ id: string }>).map((x) => x.id),
    [first],
  );
  assert.equal((await braid(['restore', first])).code, 0);
  assert.equal((await braid(['delete', second])).code, 0);
  assert.equal((JSON.parse((await braid(['list', '--json'])).out) as unknown[]).length, 1);
  assert.equal((await braid(['undelete', second])).code, 0);
  assert.equal((JSON.parse((await braid(['list', '--json'])).out) as unknown[]).length, 2);
  assert.match((await braid(['export', first, '--format', 'md'])).out, /^# Build notes/);
  assert.equal(JSON.parse((await braid(['export', first, '--format', 'jsonl'])).out.split('\n')[0]!).t, 'agent');
});

test('errors are one line with exit 1; bad usage exits 2', async () => {
  const missing = await braid(['show', 'ses_01ARZ3NDEKTSV4RRFFQ69G5FAV']);
  assert.equal(missing.code, 1);
  assert.equal(missing.err.trim().split('\n').length, 1);
  assert.match(missing.err, /does not exist/);
  assert.equal((await braid(['show', 'not-an-id'])).code, 1);
  assert.equal((await braid(['show'])).code, 2);
  assert.equal((await braid(['export', first, '--format', 'pdf'])).code, 2);
  assert.equal((await braid(['list', '--bogus'])).code, 2);
  assert.equal((await braid(['frobnicate'])).code, 2);
});

test('doctor reports torn tails, broken state, orphan partials and index drift; --fix repairs them', async () => {
  const dir = path.join(root, 'sessions', workspaceKey('/projects/app'), first);
  fs.appendFileSync(path.join(dir, 'agents', 'main', 'wire.jsonl'), '{"v":1,"t":"message","tu');
  fs.writeFileSync(path.join(dir, 'state.json'), '{"v":1,"id":');
  fs.mkdirSync(path.join(root, 'sessions', workspaceKey('/projects/app'), '.partial-ses_01ARZ3NDEKTSV4RRFFQ69G5FAV'));
  fs.rmSync(path.join(root, 'sessions', workspaceKey('/projects/other')), { recursive: true });
  const check = await braid(['doctor']);
  assert.equal(check.code, 1);
  assert.match(check.out, /torn/);
  assert.match(check.out, /state\.json is not valid JSON/);
  assert.match(check.out, /orphan partial/);
  assert.match(check.out, /index disagrees with disk/);
  const fix = await braid(['doctor', '--fix']);
  assert.equal(fix.code, 0, fix.out);
  const again = await braid(['doctor']);
  assert.equal(again.code, 0, again.out);
  assert.match(again.out, /no problems found|unreadable line/);
  assert.equal(JSON.parse((await braid(['show', first, '--json'])).out).state.turnCount, 1);
  assert.equal((JSON.parse((await braid(['list', '--all', '--json'])).out) as unknown[]).length, 2);
});

test('rebuild-index rebuilds and lists the same sessions', async () => {
  const before = (await braid(['list', '--all', '--json'])).out;
  for (const key of fs.readdirSync(path.join(root, 'sessions'))) fs.rmSync(path.join(root, 'sessions', key, 'index.sqlite'));
  const r = await braid(['rebuild-index']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /rebuilt the index: 2 session/);
  assert.deepEqual(
    JSON.parse((await braid(['list', '--all', '--json'])).out).map((x: { id: string }) => x.id),
    JSON.parse(before).map((x: { id: string }) => x.id),
  );
});

test("the data folder is --data-dir, else BRAID_HOME, else VS Code's globalStorage for Braid", () => {
  assert.deepEqual(chooseDataDir('rel', {}, '/cwd'), { dir: '/cwd/rel', source: 'option' });
  assert.deepEqual(chooseDataDir(undefined, { BRAID_HOME: '/braid' }, '/cwd'), { dir: '/braid', source: 'env' });
  assert.equal(defaultDataDir({}, 'linux', '/home/u'), '/home/u/.config/Code/User/globalStorage/braid-dev.braid');
  assert.equal(defaultDataDir({}, 'darwin', '/Users/u'), '/Users/u/Library/Application Support/Code/User/globalStorage/braid-dev.braid');
  assert.equal(
    defaultDataDir({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', 'C:\\Users\\u'),
    'C:\\Users\\u\\AppData\\Roaming\\Code\\User\\globalStorage\\braid-dev.braid',
  );
});
