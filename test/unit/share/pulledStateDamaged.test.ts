import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { listSessionFolders, StoreLayout } from '../../../src/core/format/layout';
import { readSharedSidecar, readState } from '../../../src/core/format/sessionState';
import { WriterLease } from '../../../src/core/store/writerLease';
import { braidIn } from '../../support/cli';
import { ScriptedModelServer } from '../../support/modelServer';
import { realGit } from '../../support/hostileRepo';
import { fauxAssistantMessage, sessionFixture } from '../../support/session';

// A pulled copy stays read-only when its state.json is damaged: the log has no `shared`, so the
// pull keeps the origin in the folder's shared.json too, every rebuild of the state reads it back,
// and the writer lease refuses the session by it while state.json cannot be read at all.

const git = (cwd: string, ...args: string[]) => execFileSync(realGit(), args, { cwd, encoding: 'utf8' });

/** Cuts a file to half its bytes, as a crash or a bad disk may leave it. */
function truncateToHalf(file: string): void {
  fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
  assert.throws(() => JSON.parse(fs.readFileSync(file, 'utf8')) as unknown);
}

test('a pulled copy whose state.json is cut in half stays shared when its state is rebuilt (open, doctor), and writes are refused', async () => {
  const f = await sessionFixture();
  const server = new ScriptedModelServer();
  try {
    const env = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: await server.start() };
    const session = await f.open();
    f.faux.setResponses([fauxAssistantMessage('an answer')]);
    await session.submit('a question from machine A');
    await session.waitForIdle();
    await session.close();
    const remote = path.join(f.root, 'remote.git');
    git(f.root, 'init', '--bare', '-q', remote);
    const pushed = await braidIn(['--data-dir', f.store.layout.root, 'push', session.id, '--remote', `file://${remote}`], { cwd: f.workspace });
    assert.equal(pushed.code, 0, pushed.err + pushed.out);

    const dataB = path.join(f.root, 'machine-b', 'data');
    const workspaceB = path.join(f.root, 'machine-b', path.basename(f.workspace));
    fs.mkdirSync(workspaceB, { recursive: true });
    const braidB = (...args: string[]) => braidIn(['--data-dir', dataB, ...args], { cwd: workspaceB, env });
    const pulled = await braidB('pull', '--remote', `file://${remote}`);
    assert.equal(pulled.code, 0, pulled.err + pulled.out);

    const layout = new StoreLayout(dataB);
    const dir = listSessionFolders(layout).find((s) => s.id === session.id)!.dir;
    const origin = readState(layout.stateFile(dir)).shared;
    assert.ok(origin, 'the pull marked the copy shared');
    assert.deepEqual(readSharedSidecar(layout.sharedFile(dir)), { shared: origin, workspaceDir: workspaceB }, 'and kept it beside the state');
    const readOnly = `braid: This session was pulled from ${origin.remote} (${origin.author} on ${origin.machineName}); it is read-only here. Fork it to continue.\n`;
    const logBefore = fs.readFileSync(layout.agentLog(dir));

    // The lease alone, with nothing rebuilt yet: state.json does not read, the sidecar says shared.
    truncateToHalf(layout.stateFile(dir));
    await assert.rejects(WriterLease.acquire(layout, dir), { name: 'SharedSessionError' });

    // Opening it for a prompt rebuilds the state from the log: still shared, and the prompt refused.
    const run = await braidB('exec', '--session', session.id, 'go on from here');
    assert.equal(run.code, 1);
    assert.match(run.err, /^braid: warning: session \S+: state\.json is not valid JSON .*; rebuilt it from the session's log/);
    assert.ok(run.err.endsWith(`\n${readOnly}`), run.err);
    assert.doesNotMatch(run.err, /works in/, 'the rebuilt state keeps this workspace (the pulled log names it ".")');
    const rebuilt = readState(layout.stateFile(dir));
    assert.deepEqual([rebuilt.shared, rebuilt.workspaceDir], [origin, workspaceB], 'the rebuilt state.json has shared, and this workspace');

    // The doctor's rebuild too: the index row and the list say shared.
    truncateToHalf(layout.stateFile(dir));
    const doctor = await braidB('doctor', '--fix');
    assert.ok(doctor.code === 0 || doctor.code === 1, doctor.err);
    assert.deepEqual(readState(layout.stateFile(dir)).shared, origin);
    const listed = JSON.parse((await braidB('list', '--json')).out) as Array<{ id: string; shared: unknown }>;
    assert.deepEqual(
      listed.map((r) => [r.id, r.shared]),
      [[session.id, origin]],
    );
    const again = await braidB('exec', '--session', session.id, 'go on from here');
    assert.deepEqual([again.code, again.err], [1, readOnly]);
    assert.deepEqual(fs.readFileSync(layout.agentLog(dir)), logBefore, 'nothing was appended to the pulled log');
    assert.equal(server.requests.length, 0, 'no model was asked');
  } finally {
    await server.close();
    await f.cleanup();
  }
});
