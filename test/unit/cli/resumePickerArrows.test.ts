import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resumeFixture } from '../../support/resumeFixture';
import { braidInTerminal } from '../../support/terminal';

// `braid exec --resume` in a terminal (a real pseudo-terminal): every session of the workspace,
// newest first; the arrows move the selection and Enter picks.
const { server, env, args, threeSessions, turnsOf } = resumeFixture('braid-picker-arrows-');
const HEADING = 'Resume a session';

test('in a terminal without a query, every session is listed newest first; the down arrow moves the selection', async () => {
  await threeSessions();
  server.enqueue({ kind: 'text', chunks: ['Parser bug, second turn.'] });
  const run = braidInTerminal(args('exec', '--resume', 'and again'), env());
  await run.shown(HEADING);
  await run.shown('fix the parser bug');
  const listed = run.screen();
  // Newest first; the selected line is marked with "> ".
  assert.ok(listed.indexOf('tune the cache') < listed.indexOf('write the parser docs'), listed);
  assert.ok(listed.indexOf('write the parser docs') < listed.indexOf('fix the parser bug'), listed);
  assert.match(listed, /> \S+ .*tune the cache/);
  const mark = listed.length;
  run.type('\x1b[B');
  await run.shown('fix the parser bug', mark);
  assert.match(run.screen().slice(mark), /> \S+ .*write the parser docs/, 'the second line is selected');
  run.type('\x1b[B\r');
  assert.equal(await run.exited(), 0, run.screen());
  assert.match(run.screen(), /braid: resuming \S+ "fix the parser bug"/);
  assert.equal(await turnsOf('fix the parser bug'), 2);
});
