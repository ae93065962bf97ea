import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resumeFixture } from '../../support/resumeFixture';
import { braidInTerminal } from '../../support/terminal';

// `braid exec --resume[=<query>]` in a terminal (a real pseudo-terminal): the user picks the
// session with the keys, drawn on stderr; Esc or Ctrl+C cancels and nothing is sent.
const { server, env, args, sessions, threeSessions, turnsOf } = resumeFixture('braid-picker-');
const HEADING = 'Resume a session';

test('in a terminal, the query filters the picker; typing refines it and Enter picks', async () => {
  await threeSessions();
  server.enqueue({ kind: 'text', chunks: ['Docs written again.'] });
  const run = braidInTerminal(args('exec', '--resume=parser', 'go on'), env());
  await run.shown('fix the parser bug');
  await run.shown('write the parser docs');
  assert.doesNotMatch(run.screen(), /tune the cache/, 'the query filters');
  const mark = run.screen().length;
  run.type('docs');
  await run.shown('search: parser docs', mark);
  run.type('\r');
  assert.equal(await run.exited(), 0, run.screen());
  assert.match(run.screen(), /braid: resuming \S+ "write the parser docs"/);
  assert.match(run.screen(), /Docs written again\./);
  assert.equal(await turnsOf('write the parser docs'), 2);
});

test('in a terminal without a query, every session is listed newest first; the down arrow moves the selection', async () => {
  await threeSessions();
  server.enqueue({ kind: 'text', chunks: ['Parser docs, third turn.'] });
  const run = braidInTerminal(args('exec', '--resume', 'and again'), env());
  await run.shown(HEADING);
  await run.shown('fix the parser bug');
  const listed = run.screen();
  // The docs session was continued last, so it is first; the selected line is marked with "> ".
  assert.ok(listed.indexOf('write the parser docs') < listed.indexOf('tune the cache'), listed);
  assert.ok(listed.indexOf('tune the cache') < listed.indexOf('fix the parser bug'), listed);
  assert.match(listed, /> \S+ .*write the parser docs/);
  const mark = listed.length;
  run.type('\x1b[B');
  await run.shown('> ', mark);
  await run.shown('tune the cache', mark);
  run.type('\x1b[B\r');
  assert.equal(await run.exited(), 0, run.screen());
  assert.match(run.screen(), /braid: resuming \S+ "fix the parser bug"/);
  assert.equal(await turnsOf('fix the parser bug'), 2);
});

for (const [key, name, code] of [
  ['\x1b', 'Esc', 1],
  ['\x03', 'Ctrl+C', 130],
] as const) {
  test(`in a terminal, ${name} cancels the picker: exit ${code}, nothing sent, nothing created`, async () => {
    await threeSessions();
    const requests = server.requests.length;
    const before = await sessions();
    const run = braidInTerminal(args('exec', '--resume', 'never sent'), env());
    await run.shown(HEADING);
    run.type(key);
    assert.equal(await run.exited(), code, run.screen());
    assert.match(run.screen(), /braid: no session picked; nothing was sent/);
    assert.equal(server.requests.length, requests, 'no model call');
    assert.deepEqual(await sessions(), before);
  });
}
