import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resumeFixture } from '../../support/resumeFixture';
import { braidInTerminal } from '../../support/terminal';

// `braid exec --resume` in a terminal (a real pseudo-terminal): Esc or Ctrl+C cancels the
// picker, and nothing is sent or created.
const { server, env, args, sessions, threeSessions } = resumeFixture('braid-picker-cancel-');
const HEADING = 'Resume a session';

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
