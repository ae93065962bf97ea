import assert from 'node:assert/strict';
import { test } from 'node:test';
import { braidIn } from '../../support/cli';
import { resumeFixture } from '../../support/resumeFixture';

// `braid exec --resume[=<query>]` without a terminal (a script, a pipe): the query must name one
// session; several are listed with their whole ids for --session, and nothing is sent.
const { server, env, args, sessions, threeSessions, turnsOf } = resumeFixture('braid-resume-');

test('without a terminal, --resume=<query> matching one session continues it', async () => {
  await threeSessions();
  server.enqueue({ kind: 'text', chunks: ['Cache tuned again.'] });
  const r = await braidIn(args('exec', '--resume=cache', 'once more'), { env: env() });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'Cache tuned again.\n');
  assert.equal(await turnsOf('tune the cache'), 2);
});

test('without a terminal, several matches exit 2 listing them with their whole ids; nothing is sent or created', async () => {
  await threeSessions();
  const requests = server.requests.length;
  const before = await sessions();
  const r = await braidIn(args('exec', '--resume=parser', 'go on'), { env: env() });
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /^braid: --resume="parser" matches 2 sessions and there is no terminal to pick one in; name one with --session <id>/m);
  assert.match(r.err, /^ {2}ses_[0-9A-Z]{26} .*write the parser docs$/m);
  assert.match(r.err, /^ {2}ses_[0-9A-Z]{26} .*fix the parser bug$/m);
  const bare = await braidIn(args('exec', '--resume', 'go on'), { env: env() });
  assert.equal(bare.code, 2, bare.err);
  assert.match(bare.err, /^braid: --resume matches 3 sessions/m);
  const none = await braidIn(args('exec', '--resume=nothing-like-it', 'go on'), { env: env() });
  assert.equal(none.code, 1, none.err);
  assert.match(none.err, /--resume="nothing-like-it" matches no session of /);
  assert.equal(server.requests.length, requests, 'no model call');
  assert.deepEqual(await sessions(), before);
});

test('--resume with --session or --continue is a usage error', async () => {
  await threeSessions();
  const r = await braidIn(args('exec', '--resume', '--session', 'abcd1234', 'go on'), { env: env() });
  assert.equal(r.code, 2);
  assert.match(r.err, /--session and --resume cannot be used together/);
});
