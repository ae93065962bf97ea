import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resumeFixture } from '../../support/resumeFixture';
import { braidInTerminal } from '../../support/terminal';

// `braid exec --resume[=<query>]` in a terminal (a real pseudo-terminal): the user picks the
// session with the keys, drawn on stderr. (One test a file: each drives processes that start slowly on a busy machine.)
const { server, env, args, threeSessions, turnsOf } = resumeFixture('braid-picker-');

test('in a terminal, the query filters the picker; typing refines it and Enter picks', async () => {
  await threeSessions();
  server.enqueue({ kind: 'text', chunks: ['Docs written again.'] });
  const run = braidInTerminal(args('exec', '--resume=parser', 'go on'), env());
  await run.shown('fix the parser bug');
  await run.shown('write the parser docs');
  assert.doesNotMatch(run.screen(), /tune the cache/, 'the query filters');
  const mark = run.screen().length;
  run.type(' docs');
  await run.shown('search: parser docs', mark);
  run.type('\r');
  assert.equal(await run.exited(), 0, run.screen());
  assert.match(run.screen(), /braid: resuming \S+ "write the parser docs"/);
  assert.match(run.screen(), /Docs written again\./);
  assert.equal(await turnsOf('write the parser docs'), 2);
});
