import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { spawnBraid, runBraid } from '../support/children';
import { doctorFinds, trials } from '../support/faults';
import { realGit } from '../support/hostileRepo';
import { fauxAssistantMessage, sessionFixture, type SessionFixture } from '../support/session';
import { openStore } from '../support/store';

// A push or a pull killed with SIGKILL (braid and the git it started) at a random moment leaves
// both sides consistent: every ref on the remote names a whole session (its manifest and every
// chunk it lists), the local copy is whole or mended by the next pull, and the next push and pull
// bring everything across.
const TRIALS = trials('BRAID_SHARE_KILLS', 6, 40);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function git(...args: string[]): string {
  return execFileSync(realGit(), args, { encoding: 'utf8', maxBuffer: 1 << 28 });
}

/** Kills a braid process and the processes it started (git), all at once. */
function killTree(pid: number): void {
  spawnSync('pkill', ['-KILL', '-P', String(pid)]);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // it ended already
  }
}

/** Every ref of the remote names a whole session: its manifest parses and every chunk it lists is there. */
function assertRemoteWhole(remote: string): number {
  const refs = git('--git-dir', remote, 'for-each-ref', '--format=%(refname)', 'refs/braid/').split('\n').filter(Boolean);
  for (const ref of refs) {
    const manifest = JSON.parse(git('--git-dir', remote, 'cat-file', 'blob', `${ref}:session.json`)) as { logs: Record<string, { chunks: string[] }> };
    for (const [agent, log] of Object.entries(manifest.logs))
      for (const chunk of log.chunks)
        assert.ok(git('--git-dir', remote, 'cat-file', '-t', `${ref}:agents/${agent}/${chunk}`).startsWith('blob'), `${ref} ${chunk}`);
  }
  git('--git-dir', remote, 'fsck', '--connectivity-only', '--no-progress');
  return refs.length;
}

async function sessionsWithTurns(f: SessionFixture, sessions: number, turns: number): Promise<string[]> {
  const ids: string[] = [];
  for (let s = 0; s < sessions; s++) {
    const session = await f.open();
    for (let t = 1; t <= turns; t++) {
      f.faux.setResponses([fauxAssistantMessage(`answer ${s}.${t} ${'lorem ipsum dolor '.repeat(3000)}`)]);
      await session.submit(`prompt ${s}.${t}`);
      await session.waitForIdle();
    }
    ids.push(session.id);
    await session.close();
  }
  return ids;
}

test(`${TRIALS} SIGKILLs of braid push and of braid pull leave the remote and the local copies whole; the next ones bring everything`, async () => {
  const f = await sessionFixture();
  try {
    const remote = path.join(f.root, 'remote.git');
    git('init', '--bare', '-q', remote);
    const url = `file://${remote}`;
    const dataB = path.join(f.root, 'b', 'data');
    const workspaceB = path.join(f.root, 'b', path.basename(f.workspace));
    fs.mkdirSync(workspaceB, { recursive: true });
    const pushA = () => spawnBraid(['--data-dir', f.store.layout.root, '--workspace', f.workspace, 'push', '--all', '--remote', url]);
    const pullB = () => spawnBraid(['--data-dir', dataB, '--workspace', workspaceB, 'pull', '--remote', url]);
    const ids = await sessionsWithTurns(f, 4, 3);
    for (let i = 0; i < TRIALS; i++) {
      // Each trial adds a turn to one session, then kills a push, then a pull, at a random moment.
      const session = await f.open({}, ids[i % ids.length]);
      f.faux.setResponses([fauxAssistantMessage(`trial ${i} ${'more words '.repeat(5000)}`)]);
      await session.submit(`trial ${i}`);
      await session.waitForIdle();
      await session.close();
      for (const start of [pushA, pullB]) {
        const run = start();
        await sleep(Math.random() * 1200); // a fresh push or pull takes about a second here: from its start to its end
        killTree(run.child.pid!);
        await run.exit;
        assertRemoteWhole(remote);
      }
    }
    const pushed = await runBraid(['--data-dir', f.store.layout.root, '--workspace', f.workspace, 'push', '--all', '--remote', url]);
    assert.equal(pushed.code, 0, pushed.err + pushed.out);
    assert.equal(assertRemoteWhole(remote), ids.length);
    const pulled = await runBraid(['--data-dir', dataB, '--workspace', workspaceB, 'pull', '--remote', url]);
    assert.equal(pulled.code, 0, pulled.err + pulled.out);
    const list = (data: string, cwd: string) => runBraid(['--data-dir', data, '--workspace', cwd, 'list', '--json']);
    const turnsOf = (out: string) => (JSON.parse(out) as Array<{ id: string; turnCount: number }>).map((r) => `${r.id} ${r.turnCount}`).sort();
    assert.deepEqual(turnsOf((await list(dataB, workspaceB)).out), turnsOf((await list(f.store.layout.root, f.workspace)).out));
    await doctorFinds(dataB);
  } finally {
    await f.cleanup();
  }
});

/** The prompts of every session of a data folder (`braid show --json` of each, fresh processes). */
async function promptsIn(data: string, workspace: string): Promise<Set<string>> {
  const listed = await runBraid(['--data-dir', data, '--workspace', workspace, 'list', '--json']);
  const found = new Set<string>();
  for (const { id } of JSON.parse(listed.out) as Array<{ id: string }>) {
    const shown = await runBraid(['--data-dir', data, '--workspace', workspace, 'show', id, '--json']);
    const messages = (JSON.parse(shown.out) as { messages: Array<{ role: string; text: string }> }).messages;
    for (const m of messages) if (m.role === 'user') found.add(m.text);
  }
  return found;
}

test(`${TRIALS} SIGKILLs of braid sync on two machines that both go on with the same sessions lose no turn; the next syncs bring both sides in step`, async () => {
  const f = await sessionFixture();
  try {
    const remote = path.join(f.root, 'remote.git');
    git('init', '--bare', '-q', remote);
    const url = `file://${remote}`;
    const a = { data: f.store.layout.root, workspace: f.workspace };
    const b = { data: path.join(f.root, 'b', 'data'), workspace: path.join(f.root, 'b', path.basename(f.workspace)) };
    fs.mkdirSync(b.workspace, { recursive: true });
    const syncOn = (m: typeof a) => spawnBraid(['--data-dir', m.data, '--workspace', m.workspace, 'sync', '--remote', url]);
    const ids = await sessionsWithTurns(f, 2, 2);
    const made = new Set(ids.flatMap((_, s) => [1, 2].map((t) => `prompt ${s}.${t}`)));
    assert.equal((await syncOn(a).exit).code, 0);
    assert.equal((await syncOn(b).exit).code, 0);
    for (let i = 0; i < TRIALS; i++) {
      // Each trial goes on with one session on both machines, then kills a sync of each at a random moment.
      const id = ids[i % ids.length]!;
      for (const m of [a, b]) {
        const store = m === a ? f.store : await openStore(m.data);
        const session = await f.open({ store, workspaceDirs: [m.workspace] }, id);
        const prompt = `trial ${i} on ${m === a ? 'A' : 'B'}`;
        f.faux.setResponses([fauxAssistantMessage(`${prompt} ${'more words '.repeat(3000)}`)]);
        await session.submit(prompt);
        await session.waitForIdle();
        await session.close();
        if (store !== f.store) await store.close();
        made.add(prompt);
      }
      for (const m of [b, a]) {
        const run = syncOn(m);
        await sleep(Math.random() * 1500);
        killTree(run.child.pid!);
        await run.exit;
        assertRemoteWhole(remote);
      }
    }
    for (const m of [a, b, a, b]) {
      const done = await runBraid(['--data-dir', m.data, '--workspace', m.workspace, 'sync', '--remote', url]);
      assert.equal(done.code, 0, done.err + done.out);
    }
    for (const m of [a, b]) {
      const seen = await promptsIn(m.data, m.workspace);
      assert.deepEqual(
        [...made].filter((p) => !seen.has(p)),
        [],
        `no turn lost on ${m === a ? 'A' : 'B'}`,
      );
      await doctorFinds(m.data);
    }
    const list = (m: typeof a) => runBraid(['--data-dir', m.data, '--workspace', m.workspace, 'list', '--json']);
    const turnsOf = (out: string) => (JSON.parse(out) as Array<{ id: string; turnCount: number }>).map((r) => `${r.id} ${r.turnCount}`).sort();
    assert.deepEqual(turnsOf((await list(b)).out), turnsOf((await list(a)).out), 'both sides in step');
  } finally {
    await f.cleanup();
  }
});
