import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { storeShortForms } from '../../../src/core/format/sessionShortIds';
import { StoreLayout } from '../../../src/core/format/layout';
import { braidIn } from '../../support/cli';
import { ScriptedModelServer } from '../../support/modelServer';
import type { SessionFixture } from '../../support/session';
import { machineASession, pulledCopy, TEST_ORIGIN } from '../../support/sharedSession';
import { tempRoots } from '../../support/store';

// The CLI on a session pulled from a git remote: every command that would write it exits 1 with
// the one sentence saying where it came from and to fork it; `list` and `show` say it is shared.
const READ_ONLY = `braid: This session was pulled from ${TEST_ORIGIN.remote} (Ada on ada-laptop); it is read-only here. Fork it to continue.\n`;
const roots = tempRoots();
const server = new ScriptedModelServer();
let a: SessionFixture;
let id: string;
let env: NodeJS.ProcessEnv = {};

before(async () => {
  ({ a, id } = await machineASession());
  env = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: await server.start() };
});
after(async () => {
  await server.close();
  await a.cleanup();
  roots.cleanup();
});

/** Machine B's data folder holding the pulled copy, and its workspace; `braid` run there. */
function machineB(): { dataDir: string; workspace: string; braid: (...args: string[]) => ReturnType<typeof braidIn> } {
  const root = roots.root();
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const dataDir = path.join(root, 'data');
  pulledCopy(a.store, id, dataDir, workspace);
  return { dataDir, workspace, braid: (...args) => braidIn(['--data-dir', dataDir, '--workspace', workspace, ...args], { env }) };
}

test('exec --session and --resume on a pulled session exit 1 saying so; --continue passes it by; nothing is written', async () => {
  const b = machineB();
  const folder = fs.readdirSync(path.join(b.dataDir, 'sessions'), { withFileTypes: true })[0]!;
  const sessionFolder = path.join(folder.parentPath, folder.name, id);
  const filesBefore = fs.readdirSync(sessionFolder, { recursive: true }).sort();
  const logBefore = fs.readFileSync(path.join(sessionFolder, 'agents', 'main', 'wire.jsonl'));
  for (const pick of [['--session', id], ['--resume=edit']]) {
    const run = await b.braid('exec', ...pick, 'go on from there');
    assert.deepEqual([run.code, run.err], [1, READ_ONLY], pick.join(' '));
  }
  const continued = await b.braid('exec', '--continue', 'go on');
  assert.equal(continued.code, 1);
  assert.match(continued.err, /there is no session to continue in .*; run braid exec without --continue/, 'the latest session this machine writes: none');
  assert.equal(server.requests.length, 0, 'no model was asked');
  assert.deepEqual(fs.readdirSync(sessionFolder, { recursive: true }).sort(), filesBefore, 'no file was added to it (no lease left)');
  assert.deepEqual(fs.readFileSync(path.join(sessionFolder, 'agents', 'main', 'wire.jsonl')), logBefore, 'nothing was appended');
  assert.deepEqual(
    fs.readdirSync(path.dirname(sessionFolder)).filter((name) => name.startsWith('ses_')),
    [id],
    'no session was made',
  );
});

test('rewind, its preview and undo-rewind on a pulled session exit 1 saying so', async () => {
  const b = machineB();
  for (const args of [
    ['rewind', id, '--turn', '1', '--files'],
    ['rewind', id, '--turn', '1', '--preview'],
    ['undo-rewind', id],
  ]) {
    const run = await b.braid(...args);
    assert.deepEqual([run.code, run.err], [1, READ_ONLY], args.join(' '));
  }
});

test('list marks a pulled session with who shared it from where (the JSON carries its origin), show says where it came from', async () => {
  const b = machineB();
  const short = storeShortForms(new StoreLayout(b.dataDir))(id);
  const listed = await b.braid('list');
  assert.equal(listed.code, 0, listed.err);
  assert.match(listed.out, new RegExp(`^${short} .* create new\\.ts  \\[shared: Ada@ada-laptop\\]\n$`));
  const json = await b.braid('list', '--json');
  assert.deepEqual((JSON.parse(json.out) as Array<{ shared: unknown }>)[0]!.shared, TEST_ORIGIN);
  const shown = await b.braid('show', id);
  assert.equal(shown.code, 0, shown.err);
  assert.match(shown.out, /\nshared by Ada on ada-laptop, pulled from git@example\.com:team\/sessions\.git .*\nread-only here: braid fork \S+ makes a session/);
  assert.match(shown.out, /\nfork at a turn: braid fork \S+ --turn N\n/);
  assert.doesNotMatch(shown.out, /braid rewind/);
  const forked = await b.braid('fork', id);
  assert.equal(forked.code, 0, forked.err);
  const forkList = await b.braid('list', '--json');
  const rows = JSON.parse(forkList.out) as Array<{ id: string; shared: unknown; forkedFrom: { sessionId: string } | null }>;
  assert.deepEqual(rows.map((r) => [r.id === id ? 'pulled' : 'fork', r.shared === null, r.forkedFrom?.sessionId ?? null]).sort(), [
    ['fork', true, id],
    ['pulled', false, null],
  ]);
});
