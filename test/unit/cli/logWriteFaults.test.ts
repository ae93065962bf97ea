import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { braidIn, braidProcess, cliWithScriptedModel, execSessionId } from '../../support/cli';

// `braid exec` whose log writes go wrong (BRAID_FAULT_LOG_ERRORS, read from the process's
// environment: its log writes throw the listed codes in order, then work): errors that pass are
// retried and the turn is saved; a lasting one fails the turn, exec says it was not saved, and
// `braid list` shows the cause from state.json (written: only the log's writes fail).
const { root, workspace, server, env } = cliWithScriptedModel('braid-log-faults-');
const data = path.join(root, 'data');

async function exec(args: string[], faults?: string): Promise<{ code: number | null; err: string }> {
  const argv = ['--data-dir', data, '--workspace', workspace, 'exec', ...args];
  const r = faults === undefined ? await braidIn(argv, { env: env() }) : await braidProcess(argv, { ...env(), BRAID_FAULT_LOG_ERRORS: faults }).exited();
  return { code: r.code, err: r.err };
}

interface Listed {
  readonly status: string;
  readonly writeFailure: { kind: string; message: string } | null;
}

async function listed(): Promise<{ json: Listed; line: string }> {
  const base = ['--data-dir', data, '--workspace', workspace, 'list'];
  const [json] = JSON.parse((await braidIn([...base, '--json'])).out) as Listed[];
  return { json: json!, line: (await braidIn(base)).out };
}

test('braid exec: log errors that pass are retried (exit 0); a lasting one exits 1 saying nothing was saved, and braid list shows the cause until a turn is saved', async () => {
  server.enqueue({ kind: 'text', chunks: ['First answer.'] });
  const first = await exec(['first prompt'], 'EAGAIN,EINTR,EBUSY,ok,short,EAGAIN');
  assert.equal(first.code, 0, first.err);
  const id = execSessionId(first.err, data);
  assert.equal((await listed()).json.writeFailure, null);

  // The user's message meets a full disk after turn_begin was written.
  server.enqueue({ kind: 'text', chunks: ['Never saved.'] });
  const full = await exec(['--session', id, 'on a full disk'], 'ok,ENOSPC');
  assert.equal(full.code, 1, full.err);
  assert.match(full.err, /braid: the turn was not saved: the session's log could not be written \(the disk is full: .*\(ENOSPC\)\)/);
  let shown = await listed();
  assert.equal(shown.json.status, 'error');
  assert.equal(shown.json.writeFailure?.kind, 'disk-full');
  assert.match(shown.line, /\[not saved: disk-full: .*ENOSPC/);

  // EAGAIN past the bound of five attempts lasts: the end of the cut turn (written when the session
  // opens) is not written, the prompt does not run.
  const busy = await exec(['--session', id, 'on a disk that stays busy'], 'EAGAIN,EAGAIN,EAGAIN,EAGAIN,EAGAIN');
  assert.equal(busy.code, 1, busy.err);
  assert.match(busy.err, /braid: the turn was not saved: the session's log could not be written \(an I\/O error: .*\(EAGAIN\)\)/);
  shown = await listed();
  assert.equal(shown.json.writeFailure?.kind, 'io');

  // A turn saved clears the mark.
  server.enqueue({ kind: 'text', chunks: ['Saved again.'] });
  const again = await exec(['--session', id, 'with a working disk']);
  assert.equal(again.code, 0, again.err);
  shown = await listed();
  assert.deepEqual([shown.json.status, shown.json.writeFailure], ['idle', null]);
  assert.doesNotMatch(shown.line, /not saved/);
});
