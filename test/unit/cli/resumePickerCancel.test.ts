import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resumeFixture } from '../../support/resumeFixture';
import { braidInTerminal } from '../../support/terminal';

// `braid exec --resume` in a terminal (a real pseudo-terminal): Esc or Ctrl+C cancels the
// picker, and nothing is sent or created.
const { server, env, args, sessions, threeSessions } = resumeFixture('braid-picker-cancel-');
const HEADING = 'Resume a session';

test('in a terminal, Esc cancels the picker (exit 1) and Ctrl+C too (exit 130): nothing sent, nothing created', async () => {
  await threeSessions();
  const requests = server.requests.length;
  const before = await sessions();
  // Both at once: each process starts slowly on a busy machine, and neither changes anything.
  const cancel = async (key: string) => {
    const run = braidInTerminal(args('exec', '--resume', 'never sent'), env());
    await run.shown(HEADING);
    run.type(key);
    const code = await run.exited();
    assert.match(run.screen(), /braid: no session picked; nothing was sent/);
    return code;
  };
  assert.deepEqual(await Promise.all([cancel('\x1b'), cancel('\x03')]), [1, 130]);
  assert.equal(server.requests.length, requests, 'no model call');
  assert.deepEqual(await sessions(), before);
});
