import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { cacheRoot } from '../../../scripts/toolchain.mjs';
import { startProfileDataDir } from '../../../src/cli/dataDir';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { braidIn } from '../../support/cli';
import { PUBLISHER_ID } from '../../support/codeServer';
import { addTurn, openStore, tempRoots } from '../../support/store';

// Which data folder the CLI reads, how it says so, and that commands which only read create
// nothing: each test has its own HOME, so VS Code's folder and npm start's are the test's.
const roots = tempRoots();
after(roots.cleanup);

/** A machine of its own: HOME, with VS Code's folder for Braid and npm start's under it. */
function machine(): { home: string; env: NodeJS.ProcessEnv; vscode: string; start: string; workspace: string } {
  const home = roots.root();
  const workspace = path.join(home, 'project');
  fs.mkdirSync(workspace);
  return {
    home,
    workspace,
    env: { HOME: home },
    vscode: path.join(home, '.config', 'Code', 'User', 'globalStorage', PUBLISHER_ID),
    start: path.join(home, '.cache', 'braid', 'start-profile', 'user-data', 'User', 'globalStorage', PUBLISHER_ID),
  };
}

/** A store at `dir` with one session in `workspace`; returns its id. */
async function storeWithSession(dir: string, workspace: string, prompt = 'hello'): Promise<string> {
  const store = await openStore(dir);
  const s = await store.create({ workspaceDir: workspace });
  const w = await store.openWriter(s.id);
  await addTurn(w, prompt, `answer to ${prompt}`);
  await w.close();
  await store.close();
  return s.id;
}

/** Every path under `dir`, for "nothing was created". */
function tree(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

test('on a machine without any store, commands that only read (or find no session) create nothing and name the folder they read', async () => {
  const m = machine();
  const before = tree(m.home);
  const run = (...args: string[]) => braidIn(args, { env: m.env, cwd: m.workspace });
  const list = await run('list');
  assert.equal(list.code, 0, list.err);
  assert.equal(
    list.out,
    `No sessions: there is no Braid data in ${m.vscode} (VS Code's folder for Braid); --data-dir or BRAID_HOME picks another (braid where says how it was chosen).\n`,
  );
  assert.deepEqual(JSON.parse((await run('list', '--all', '--json')).out), []);
  assert.match((await run('search', 'anything')).out, /^No matching sessions: there is no Braid data in /);
  const usage = await run('usage', '--json');
  assert.equal(usage.code, 0, usage.err);
  assert.equal(JSON.parse(usage.out).total.calls, 0);
  assert.match(usage.err, /there is no Braid data in /);
  for (const args of [['doctor'], ['doctor', '--fix'], ['rebuild-index']]) {
    const r = await run(...args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
    assert.ok(r.out.includes(m.vscode), `${args.join(' ')} names the folder: ${r.out}`);
  }
  assert.deepEqual(JSON.parse((await run('doctor', '--json')).out), { sessions: 0, logs: 0, records: 0, findings: [] });
  for (const args of [
    ['show', 'ses_01M8QS'],
    ['export', 'ses_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['rename', '01M8QS', 'x'],
    ['archive', '01M8QS'],
    ['restore', '01M8QS'],
    ['delete', '01M8QS'],
    ['undelete', '01M8QS'],
    ['fork', '01M8QS'],
    ['rewind', '01M8QS', '--turn', '1'],
    ['undo-rewind', '01M8QS'],
  ]) {
    const r = await run(...args);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.err}`);
    assert.equal(
      r.err,
      `braid: there is no Braid data in ${m.vscode} (VS Code's folder for Braid); pick the folder with --data-dir or BRAID_HOME (braid where shows how it is chosen)\n`,
    );
  }
  const model = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'm', BRAID_BASE_URL: 'http://127.0.0.1:9/v1' };
  for (const args of [
    ['exec', '--continue', 'go on'],
    ['exec', '--session', '01M8QS', 'go on'],
  ]) {
    const r = await braidIn(args, { env: { ...m.env, ...model }, cwd: m.workspace });
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /there is no Braid data in /);
  }
  for (const args of [['where'], ['where', '--json'], ['model'], ['help'], ['help', 'list'], ['list', '--help'], ['version']]) await run(...args);
  assert.deepEqual(tree(m.home), before, 'nothing was created');
});

test('braid where names the data folder, how it was chosen, whether it holds a store, the other folder and the workspace', async () => {
  const m = machine();
  const id = await storeWithSession(m.vscode, m.workspace);
  const r = await braidIn(['where'], { env: m.env, cwd: m.workspace });
  assert.equal(r.code, 0, r.err);
  assert.equal(
    r.out,
    [
      `data folder    ${m.vscode}`,
      "chosen by      VS Code's folder for Braid (the default: no --data-dir, no BRAID_HOME)",
      'store          1 session',
      `workspace      ${m.workspace}`,
      `workspace key  ${workspaceKey(m.workspace)}`,
      'sessions here  1',
      `other folder   npm start's folder for Braid: ${m.start} (no Braid data)`,
      '',
    ].join('\n'),
  );
  const json = JSON.parse((await braidIn(['--data-dir', path.join(m.home, 'elsewhere'), 'where', '--json'], { env: m.env, cwd: m.workspace })).out) as Record<
    string,
    unknown
  >;
  assert.deepEqual(
    [json.dataDir, json.source, json.storeExists, json.sessions, json.workspaceKey],
    [path.join(m.home, 'elsewhere'), 'option', false, 0, workspaceKey(m.workspace)],
  );
  assert.deepEqual(
    (json.others as Array<{ source: string; sessions: number }>).map((o) => [o.source, o.sessions]),
    [
      ['vscode', 1],
      ['start-profile', 0],
    ],
  );
  const viaEnv = await braidIn(['where'], { env: { ...m.env, BRAID_HOME: 'data' }, cwd: m.workspace });
  assert.match(viaEnv.out, new RegExp(`^data folder    ${path.join(m.workspace, 'data')}\nchosen by      BRAID_HOME\nstore          none yet`));
  assert.ok(id);
});

test("npm start's store is used when it is the only one with sessions: braid where says so, other commands only with --verbose", async () => {
  const m = machine();
  const id = await storeWithSession(m.start, m.workspace, 'made in npm start');
  fs.mkdirSync(m.vscode, { recursive: true }); // VS Code made Braid's folder, but no session is in it
  for (const args of [['list'], ['show', id], ['usage'], ['search', 'npm']]) {
    const r = await braidIn(args, { env: m.env, cwd: m.workspace });
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '', `${args.join(' ')} says nothing of the data folder on stderr`);
  }
  const list = await braidIn(['list'], { env: m.env, cwd: m.workspace });
  assert.match(list.out, new RegExp(`^${id.slice(-6)} `));
  const verbose = await braidIn(['--verbose', 'list'], { env: m.env, cwd: m.workspace });
  assert.equal(
    verbose.err,
    `braid: using npm start's data folder ${m.start} (VS Code's folder for Braid holds no Braid data); --data-dir or BRAID_HOME picks another\n`,
  );
  const where = await braidIn(['where'], { env: m.env, cwd: m.workspace });
  assert.match(
    where.out,
    new RegExp(
      `^data folder    ${m.start}\nchosen by      npm start's folder for Braid \\(VS Code's folder for Braid holds no sessions\\)\nstore          1 session`,
    ),
  );
  // An empty store in VS Code's folder does not hide npm start's sessions either.
  await (await openStore(m.vscode)).close();
  const again = await braidIn(['--verbose', 'list'], { env: m.env, cwd: m.workspace });
  assert.match(again.out, new RegExp(`^${id.slice(-6)} `));
  assert.match(again.err, /VS Code's folder for Braid holds no sessions/);
  // XDG_CACHE_HOME moves the cache, as it does for npm start.
  const moved = machine();
  const cache = path.join(moved.home, 'xdg-cache');
  const movedId = await storeWithSession(path.join(cache, 'braid', 'start-profile', 'user-data', 'User', 'globalStorage', PUBLISHER_ID), moved.workspace);
  assert.match((await braidIn(['list'], { env: { ...moved.env, XDG_CACHE_HOME: cache }, cwd: moved.workspace })).out, new RegExp(`^${movedId.slice(-6)} `));
});

test("VS Code's store is used when it holds sessions; two stores with sessions are not guessed between: both are named, and how to pick", async () => {
  const m = machine();
  const desktop = await storeWithSession(m.vscode, m.workspace, 'made in VS Code');
  await (await openStore(m.start)).close(); // npm start ran, but no session was made there
  const one = await braidIn(['list'], { env: m.env, cwd: m.workspace });
  assert.match(one.out, new RegExp(`^${desktop.slice(-6)} `));
  assert.equal(one.err, '');
  const started = await storeWithSession(m.start, m.workspace, 'made in npm start');
  const both = await braidIn(['list'], { env: m.env, cwd: m.workspace });
  assert.equal(both.code, 1);
  assert.equal(both.out, '');
  assert.equal(
    both.err,
    [
      'braid: two data folders hold Braid sessions; pick one with --data-dir DIR or BRAID_HOME=DIR:',
      `  VS Code's folder for Braid: ${m.vscode}`,
      `  npm start's folder for Braid: ${m.start}`,
      '',
    ].join('\n'),
  );
  const where = await braidIn(['where'], { env: m.env, cwd: m.workspace });
  assert.equal(where.code, 1);
  // eslint-disable-next-line no-regex-spaces -- the columns exactly as `braid where` prints them
  assert.match(where.out, /^data folder    none chosen: two folders hold Braid sessions; pick one with --data-dir DIR or BRAID_HOME=DIR\n/);
  assert.match(where.out, new RegExp(`candidate      npm start's folder for Braid: ${m.start} \\(1 session\\)`));
  assert.match((await braidIn(['--data-dir', m.start, 'list'], { env: m.env, cwd: m.workspace })).out, new RegExp(`^${started.slice(-6)} `));
  assert.match((await braidIn(['list'], { env: { ...m.env, BRAID_HOME: m.vscode }, cwd: m.workspace })).out, new RegExp(`^${desktop.slice(-6)} `));
});

test('an empty listing names the data folder it read and the sessions of other workspaces', async () => {
  const m = machine();
  await storeWithSession(m.vscode, path.join(m.home, 'other'));
  const r = await braidIn(['list'], { env: m.env, cwd: m.workspace });
  assert.equal(r.out, `No sessions for ${m.workspace} in ${m.vscode} (VS Code's folder for Braid). Other workspaces hold 1 session: braid list --all\n`);
  assert.equal(
    (await braidIn(['list', '--all', '--archived'], { env: m.env, cwd: m.workspace })).out,
    `No archived sessions in ${m.vscode} (VS Code's folder for Braid).\n`,
  );
  // Reading a workspace the store has nothing of makes no folder or index for it.
  assert.equal((await braidIn(['list', '--json'], { env: m.env, cwd: m.workspace })).out, '[]\n');
  assert.equal((await braidIn(['search', 'anything'], { env: m.env, cwd: m.workspace })).out, 'No matching sessions.\n');
  assert.equal((await braidIn(['search', 'anything', '--json'], { env: m.env, cwd: m.workspace })).out, '[]\n');
  assert.ok(!fs.existsSync(path.join(m.vscode, 'sessions', workspaceKey(m.workspace))), 'no folder for the workspace listed');
  assert.equal(fs.readdirSync(path.join(m.vscode, 'sessions')).filter((name) => name.startsWith('wd_')).length, 1, "only the other workspace's folder");
});

test("the CLI finds npm start's profile where scripts/toolchain.mjs and scripts/start.ts put it", () => {
  const saved = { ...process.env };
  try {
    for (const env of [{ BRAID_CACHE_DIR: '/cache/braid-x' }, { XDG_CACHE_HOME: '/xdg' }, {}]) {
      delete process.env.BRAID_CACHE_DIR;
      delete process.env.XDG_CACHE_HOME;
      delete process.env.BRAID_ORIGINAL_XDG_CACHE_HOME;
      Object.assign(process.env, env);
      const expected = path.join(cacheRoot(), 'start-profile', 'user-data', 'User', 'globalStorage', PUBLISHER_ID);
      assert.equal(startProfileDataDir({ ...env }, '/cwd', process.env.HOME), expected, JSON.stringify(env));
    }
    assert.equal(startProfileDataDir({ BRAID_START_PROFILE: 'p' }, '/cwd'), path.join('/cwd', 'p', 'user-data', 'User', 'globalStorage', PUBLISHER_ID));
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
});
