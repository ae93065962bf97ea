import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { braidIn } from '../../support/cli';
import { realGit } from '../../support/hostileRepo';
import { fauxAssistantMessage, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';
import { openStore } from '../../support/store';

// braid sync between two machines (two data folders, two checkouts of one project) through a bare
// repository over file://, with real git: a session made on A goes on on B and comes back to A as
// turns; a session continued on both since they last met becomes a fork on the side that syncs
// second, and no turn is lost on either side.

interface Machine {
  readonly data: string;
  readonly workspace: string;
  store: SessionStore;
}

interface World {
  readonly f: SessionFixture;
  readonly remote: string;
  readonly a: Machine;
  readonly b: Machine;
}

async function world(): Promise<World> {
  const f = await sessionFixture();
  const remote = path.join(f.root, 'remote.git');
  execFileSync(realGit(), ['init', '--bare', '-q', remote]);
  const workspaceB = path.join(f.root, 'machine-b', path.basename(f.workspace));
  fs.mkdirSync(workspaceB, { recursive: true });
  const dataB = path.join(f.root, 'machine-b', 'data');
  return {
    f,
    remote,
    a: { data: f.store.layout.root, workspace: f.workspace, store: f.store },
    b: { data: dataB, workspace: workspaceB, store: await openStore(dataB) },
  };
}

interface SyncJson {
  pulled: Array<{ id: string; outcome: string; fork?: { id: string } }>;
  pushed: Array<{ id: string; outcome: string; turns: number; reason?: string }>;
}

async function sync(w: World, m: Machine, name: string): Promise<SyncJson> {
  const run = await braidIn(['--data-dir', m.data, 'sync', '--remote', `file://${w.remote}`, '--json'], {
    cwd: m.workspace,
    env: { BRAID_MACHINE_NAME: name },
  });
  assert.equal(run.code, 0, `sync on ${name}: ${run.err}${run.out}`);
  return JSON.parse(run.out) as SyncJson;
}

/** One turn of session `id` on machine `m`, through a Session of that machine's store; closed after, so a sync may take its lease. */
async function turnOn(w: World, m: Machine, id: string | undefined, prompt: string): Promise<string> {
  const session = await w.f.open({ store: m.store, workspaceDirs: [m.workspace] }, id);
  w.f.faux.setResponses([fauxAssistantMessage(`answer to ${prompt}`)]);
  await session.submit(prompt);
  await session.waitForIdle();
  await session.close();
  return session.id;
}

/** The prompts of a session's effective turns on machine `m`, in order (a fresh process: `braid show --json`). */
async function prompts(m: Machine, id: string): Promise<string[]> {
  const shown = await braidIn(['--data-dir', m.data, 'show', id, '--json'], { cwd: m.workspace });
  assert.equal(shown.code, 0, shown.err);
  const messages = (JSON.parse(shown.out) as { messages: Array<{ role: string; text: string; injected?: unknown }> }).messages;
  return messages.filter((m) => m.role === 'user' && !m.injected).map((m) => m.text);
}

async function ids(m: Machine): Promise<string[]> {
  const listed = await braidIn(['--data-dir', m.data, 'list', '--json'], { cwd: m.workspace });
  return (JSON.parse(listed.out) as Array<{ id: string }>).map((r) => r.id).sort();
}

/** Reopens a machine's store: the CLI processes changed its index meanwhile. */
async function reopen(m: Machine): Promise<void> {
  await m.store.close();
  m.store = await openStore(m.data);
}

test('sync: a session goes on on the other machine and comes back as turns; continued on both, it becomes a fork on the side that syncs second', async () => {
  const w = await world();
  try {
    const id = await turnOn(w, w.a, undefined, 'a1');
    assert.deepEqual(
      (await sync(w, w.a, 'laptop')).pushed.map((p) => [p.id, p.outcome]),
      [[id, 'pushed']],
    );

    const inB = await sync(w, w.b, 'devbox');
    assert.deepEqual(
      inB.pulled.map((s) => [s.id, s.outcome]),
      [[id, 'new']],
    );
    assert.deepEqual(
      inB.pushed.filter((p) => p.outcome === 'pushed'),
      [],
      'what came in is not pushed back',
    );
    await reopen(w.b);
    await turnOn(w, w.b, id, 'b2'); // writable on B: not a read-only pulled copy
    const outB = await sync(w, w.b, 'devbox');
    assert.deepEqual(
      outB.pushed.map((p) => [p.id, p.outcome, p.turns]),
      [[id, 'pushed', 1]],
    );

    const backA = await sync(w, w.a, 'laptop');
    assert.deepEqual(
      backA.pulled.map((s) => [s.id, s.outcome]),
      [[id, 'updated']],
    );
    assert.deepEqual(await prompts(w.a, id), ['a1', 'b2']);
    assert.deepEqual(
      (await sync(w, w.a, 'laptop')).pushed.filter((p) => p.outcome === 'pushed'),
      [],
      'in step: nothing to send',
    );

    // Both go on from a1, b2: B syncs first, so A (second) forks.
    await reopen(w.a);
    await turnOn(w, w.a, id, 'a3');
    await reopen(w.b);
    await turnOn(w, w.b, id, 'b3');
    await sync(w, w.b, 'devbox');
    const second = await sync(w, w.a, 'laptop');
    const forked = second.pulled.find((s) => s.id === id)!;
    assert.equal(forked.outcome, 'forked');
    const fork = forked.fork!.id;
    assert.deepEqual(await prompts(w.a, id), ['a1', 'b2', 'b3'], 'the session takes the turns of the machine that synced first');
    assert.deepEqual(await prompts(w.a, fork), ['a1', 'b2', 'a3'], "the fork holds this machine's turn");
    assert.ok(
      second.pushed.some((p) => p.id === fork && p.outcome === 'pushed'),
      'the fork is pushed as a session of A',
    );

    const thirdB = await sync(w, w.b, 'devbox');
    assert.deepEqual(
      thirdB.pulled.filter((s) => s.outcome !== 'unchanged').map((s) => [s.id, s.outcome]),
      [[fork, 'new']],
    );
    assert.deepEqual(await prompts(w.b, fork), ['a1', 'b2', 'a3']);
    assert.deepEqual(await prompts(w.b, id), ['a1', 'b2', 'b3']);
    const settled = await sync(w, w.a, 'laptop');
    assert.deepEqual(
      settled.pulled.filter((s) => s.outcome !== 'unchanged'),
      [],
      'both sides in step',
    );
    assert.deepEqual(
      settled.pushed.filter((p) => p.outcome !== 'up-to-date'),
      [],
    );
    assert.deepEqual(await ids(w.a), await ids(w.b));

    // Deleted on B (in its trash): the next sync does not bring it back.
    assert.equal((await braidIn(['--data-dir', w.b.data, 'delete', fork], { cwd: w.b.workspace })).code, 0);
    const afterDelete = await sync(w, w.b, 'devbox');
    assert.ok(!afterDelete.pulled.some((s) => s.id === fork));
    assert.ok(!(await ids(w.b)).includes(fork));
  } finally {
    await w.b.store.close();
    await w.f.cleanup();
  }
});

test('sync: two machines that went on with one session sync at the same moment; each ends with every turn, the one that lost the race in a fork', async () => {
  const w = await world();
  try {
    const id = await turnOn(w, w.a, undefined, 'first');
    await sync(w, w.a, 'laptop');
    await sync(w, w.b, 'devbox');
    await reopen(w.b);
    await turnOn(w, w.a, id, 'from A');
    await turnOn(w, w.b, id, 'from B');
    await Promise.all([sync(w, w.a, 'laptop'), sync(w, w.b, 'devbox')]);
    await sync(w, w.a, 'laptop');
    await sync(w, w.b, 'devbox');
    await sync(w, w.a, 'laptop');
    for (const m of [w.a, w.b]) {
      const all = await ids(m);
      assert.equal(all.length, 2, 'the session and one fork');
      const turns = await Promise.all(all.map((s) => prompts(m, s)));
      const seen = new Set(turns.flat());
      assert.deepEqual([...seen].sort(), ['first', 'from A', 'from B'], 'no turn lost');
      assert.ok(
        turns.every((t) => t.length === 2),
        `each holds the first turn and one side's: ${JSON.stringify(turns)}`,
      );
    }
    assert.deepEqual(await prompts(w.a, id), await prompts(w.b, id), 'the session reads the same on both');
  } finally {
    await w.b.store.close();
    await w.f.cleanup();
  }
});

test("sync: a rewind on B across a turn A made leaves B's files alone (A's file changes are A's), and rewinds B's own", async () => {
  const w = await world();
  try {
    const session = await w.f.open();
    w.f.faux.setResponses([
      fauxAssistantMessage([fauxToolCall('write_file', { path: 'made-on-a.txt', content: 'from A\n' }, { id: 'wa' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('wrote it'),
    ]);
    await session.submit('a1');
    await session.waitForIdle();
    await session.close();
    const id = session.id;
    await sync(w, w.a, 'laptop');
    await sync(w, w.b, 'devbox');
    fs.writeFileSync(path.join(w.b.workspace, 'made-on-a.txt'), 'from A\n'); // B has the file too (git brought it)
    await reopen(w.b);
    const onB = await w.f.open({ store: w.b.store, workspaceDirs: [w.b.workspace] }, id);
    w.f.faux.setResponses([
      fauxAssistantMessage([fauxToolCall('write_file', { path: 'made-on-b.txt', content: 'from B\n' }, { id: 'wb' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('wrote it'),
    ]);
    await onB.submit('b2');
    await onB.waitForIdle();
    await onB.close();

    const rewind = await braidIn(['--data-dir', w.b.data, 'rewind', id, '--turn', '1', '--files', '--json'], { cwd: w.b.workspace });
    assert.equal(rewind.code, 0, rewind.err + rewind.out);
    const preview = JSON.parse(rewind.out) as { pulledTurns?: number; preview?: { pulledTurns: number } };
    assert.equal(preview.pulledTurns ?? preview.preview?.pulledTurns, 1, 'the preview says one turn came from another machine');
    assert.equal(fs.readFileSync(path.join(w.b.workspace, 'made-on-a.txt'), 'utf8'), 'from A\n', "A's file is not deleted on B");
    assert.ok(!fs.existsSync(path.join(w.b.workspace, 'made-on-b.txt')), "B's own file change is rewound");
  } finally {
    await w.b.store.close();
    await w.f.cleanup();
  }
});

test('sync: a remote whose history of a session was rewritten (a commit that does not follow the one last met) is refused, and the local log is left as it was', async () => {
  const w = await world();
  try {
    const id = await turnOn(w, w.a, undefined, 'a1');
    await sync(w, w.a, 'laptop');
    const ref = (await sync(w, w.a, 'laptop')).pulled[0]!;
    assert.equal(ref.id, id);
    const refName = execFileSync(realGit(), ['--git-dir', w.remote, 'for-each-ref', '--format=%(refname)', 'refs/braid/'], { encoding: 'utf8' }).trim();
    // Another history: the same tree plus a chunk, in a commit with no parent, forced onto the ref.
    const clone = path.join(w.f.root, 'rewrite');
    const g = (...args: string[]) => execFileSync(realGit(), ['-c', 'user.name=x', '-c', 'user.email=x@x', ...args], { cwd: clone, encoding: 'utf8' });
    execFileSync(realGit(), ['clone', '-q', '--no-checkout', w.remote, clone]);
    g('fetch', '-q', 'origin', `${refName}:refs/heads/was`);
    g('checkout', '-q', '--orphan', 'other', 'was');
    const manifest = JSON.parse(fs.readFileSync(path.join(clone, 'session.json'), 'utf8')) as { logs: { main: { chunks: string[] } } };
    manifest.logs.main.chunks.push('000002.jsonl');
    fs.writeFileSync(path.join(clone, 'session.json'), JSON.stringify(manifest));
    fs.writeFileSync(path.join(clone, 'agents', 'main', '000002.jsonl'), '{"v":1,"t":"turn_begin","turn":9,"promptId":"p","model":null,"ts":1}\n');
    g('add', '-A');
    g('commit', '-qm', 'rewritten');
    g('push', '-qf', 'origin', `HEAD:${refName}`);

    const log = w.a.store.layout.agentLog(w.a.store.locate(id));
    const before = fs.readFileSync(log);
    const run = await braidIn(['--data-dir', w.a.data, 'sync', '--remote', `file://${w.remote}`, '--json'], { cwd: w.a.workspace });
    assert.equal(run.code, 1, 'a refused session is a failed sync');
    const report = JSON.parse(run.out) as SyncJson & { pulled: Array<{ reason?: string }> };
    assert.deepEqual(
      report.pulled.map((s) => s.outcome),
      ['refused'],
    );
    assert.match(report.pulled[0]!.reason!, /rewritten there/);
    assert.ok(fs.readFileSync(log).equals(before), 'the local log is untouched');
  } finally {
    await w.b.store.close();
    await w.f.cleanup();
  }
});

test('sync: a copy braid pull brought in read-only becomes a writable, synced one when the machine syncs', async () => {
  const w = await world();
  try {
    const id = await turnOn(w, w.a, undefined, 'a1');
    await sync(w, w.a, 'laptop');
    const pulled = await braidIn(['--data-dir', w.b.data, 'pull', '--remote', `file://${w.remote}`], { cwd: w.b.workspace });
    assert.equal(pulled.code, 0, pulled.err);
    await turnOn(w, w.a, id, 'a2');
    await sync(w, w.a, 'laptop');
    const onB = await sync(w, w.b, 'devbox');
    assert.deepEqual(
      onB.pulled.map((s) => [s.id, s.outcome]),
      [[id, 'updated']],
    );
    assert.deepEqual(await prompts(w.b, id), ['a1', 'a2']);
    await reopen(w.b);
    await turnOn(w, w.b, id, 'b3'); // read-only before: a write would be refused
    assert.deepEqual(
      (await sync(w, w.b, 'devbox')).pushed.map((p) => [p.id, p.outcome, p.turns]),
      [[id, 'pushed', 1]],
    );
    await sync(w, w.a, 'laptop');
    assert.deepEqual(await prompts(w.a, id), ['a1', 'a2', 'b3']);
  } finally {
    await w.b.store.close();
    await w.f.cleanup();
  }
});
