import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { braidIn, braidProcess, cliWithScriptedModel } from '../../support/cli';
import { sessionFixture } from '../../support/session';
import { snapshotFiles } from '../../support/corruptStore';

// A command that fails before its work begins leaves nothing behind: no session, folder, index row
// or lock in the data folder (and no data folder where there was none).
const { root, workspace, server, env } = cliWithScriptedModel('braid-failed-start-');

test('braid exec in a workspace folder that does not exist: exit 1, one line, and no session, index or data folder made', async () => {
  const data = path.join(root, 'exec-data');
  const missing = path.join(root, 'missing');
  const r = await braidProcess(['--data-dir', data, '--workspace', missing, 'exec', 'hi'], env()).exited();
  assert.equal(r.code, 1, r.err);
  assert.equal(
    r.err,
    `braid: the workspace folder ${missing} does not exist or is not a folder, so no session was started there; create it, or pick another folder\n`,
  );
  assert.equal(fs.existsSync(data), false, 'no data folder was made');

  // In a data folder that holds a session already: nothing is added to it either.
  server.enqueue({ kind: 'text', chunks: ['Hello.'] });
  assert.equal((await braidProcess(['--data-dir', data, '--workspace', workspace, 'exec', 'hello'], env()).exited()).code, 0);
  const files = [...snapshotFiles(data).keys()].sort();
  const again = await braidProcess(['--data-dir', data, '--workspace', missing, 'exec', 'hi'], env()).exited();
  assert.equal(again.code, 1, again.err);
  assert.deepEqual([...snapshotFiles(data).keys()].sort(), files, 'no file was added: no session folder, index or lock');
  const listed = JSON.parse((await braidIn(['--data-dir', data, 'list', '--all', '--json'])).out) as unknown[];
  assert.equal(listed.length, 1);
});

test('a new session for a folder that is gone is not made: Session.open fails first and the store holds nothing new', async () => {
  const f = await sessionFixture();
  try {
    const gone = path.join(f.root, 'gone');
    await assert.rejects(f.open({ workspaceDirs: [gone] }), /the workspace folder .*gone does not exist/);
    assert.deepEqual(f.store.index.list({}), []);
    assert.deepEqual(
      [...snapshotFiles(f.store.layout.sessionsDir).keys()].filter((file) => file.includes('ses_')),
      [],
    );
  } finally {
    await f.cleanup();
  }
});

test('braid import of a path that does not exist, or of a folder with no sessions, refuses it (exit 1) and makes no data folder', async () => {
  const data = path.join(root, 'import-data');
  const missing = path.join(root, 'no-such-file.jsonl');
  const gone = await braidIn(['--data-dir', data, 'import', missing]);
  assert.equal(gone.code, 1);
  assert.match(gone.out, new RegExp(`refused +${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n +no such file or folder`));
  assert.equal(fs.existsSync(data), false);
  const empty = path.join(root, 'empty');
  fs.mkdirSync(empty);
  const none = await braidIn(['--data-dir', data, 'import', empty]);
  assert.equal(none.code, 1, none.err);
  assert.match(none.out, /no session of Claude Code, Codex, pi, opencode in it/);
  assert.equal(fs.existsSync(data), false);
});
