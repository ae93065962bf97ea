import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { thisMachine } from '../../../src/core/share/machine';
import { pullSessions } from '../../../src/core/share/pull';
import { shareRemote } from '../../../src/core/share/remote';
import { ShareGit } from '../../../src/core/share/shareGit';
import { braidIn } from '../../support/cli';
import { realGit } from '../../support/hostileRepo';
import { fauxAssistantMessage, fauxRead, sessionFixture, type SessionFixture } from '../../support/session';
import { openStore } from '../../support/store';

// Sessions through git, end to end with real git: machine A pushes to a bare repository over
// file://, machine B (another data folder, the project checked out elsewhere) pulls. What B gets
// is A's log as redacted, read-only; a push after one more turn sends that turn; what the remote
// holds never has A's workspace path or a key Braid knows.

const KEY = 'sk-proj-Zq8vT3kLm9Xw2Rb7Yc4Nd6Pf1Gh5Js0Ua';
/** A GitHub token in a file the model reads: it reaches the log in a tool's output. */
const TOKEN = 'ghp_R8kq2WvZ7mXb4Tn9Lc3Yd6Hf1Jp5Gs0AeUw2';

type Session = Awaited<ReturnType<SessionFixture['open']>>;

async function turn(f: SessionFixture, session: Session, prompt: string, answer: string): Promise<void> {
  f.faux.setResponses([fauxAssistantMessage(answer)]);
  await session.submit(prompt);
  await session.waitForIdle();
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync(realGit(), args, { cwd, encoding: 'utf8' });
}

/** Every object the bare repository holds, as text. */
function remoteObjects(bare: string): string {
  return execFileSync(realGit(), ['--git-dir', bare, 'cat-file', '--batch-all-objects', '--batch'], { encoding: 'latin1', maxBuffer: 1 << 28 });
}

interface Machines {
  f: SessionFixture;
  remote: string;
  /** Machine B: its data folder and its checkout of the project (same folder name). */
  dataB: string;
  workspaceB: string;
}

async function machines(files: Record<string, string> = {}): Promise<Machines> {
  const f = await sessionFixture(files);
  const remote = path.join(f.root, 'remote.git');
  git(f.root, 'init', '--bare', '-q', remote);
  const dataB = path.join(f.root, 'machine-b', 'data');
  const workspaceB = path.join(f.root, 'machine-b', path.basename(f.workspace));
  fs.mkdirSync(workspaceB, { recursive: true });
  return { f, remote, dataB, workspaceB };
}

const pushA = (m: Machines, ...args: string[]) =>
  braidIn(['--data-dir', m.f.store.layout.root, 'push', ...args, '--remote', `file://${m.remote}`], { cwd: m.f.workspace, env: { BRAID_API_KEY: KEY } });
const pullB = (m: Machines, ...args: string[]) => braidIn(['--data-dir', m.dataB, 'pull', '--remote', `file://${m.remote}`, ...args], { cwd: m.workspaceB });

test('a session pushed from one machine is pulled by another, read-only and redacted; one more turn sends that turn and pulls as that turn', async () => {
  const m = await machines({ 'notes.md': `hello\nGITHUB=${TOKEN}\n` });
  try {
    const session = await m.f.open();
    m.f.faux.setResponses([fauxRead('notes.md'), fauxAssistantMessage('read it')]);
    await session.submit(`look at ${path.join(m.f.workspace, 'notes.md')} with key ${KEY}`);
    await session.waitForIdle();
    await turn(m.f, session, 'second', 'two');

    const dry = await pushA(m, '--all', '--dry-run');
    assert.equal(dry.code, 0, dry.err + dry.out);
    assert.match(dry.out, /would push ses_\S+ .*: 2 turns/);
    assert.match(dry.out, /redacted known-key/);
    assert.match(dry.out, /Nothing was sent \(--dry-run\)/);
    assert.equal(git(m.f.root, '--git-dir', m.remote, 'for-each-ref'), '', 'a dry run sends nothing');

    const pushed = await pushA(m, session.id);
    assert.equal(pushed.code, 0, `${pushed.err}${pushed.out}`);
    assert.match(pushed.out, /pushed +ses_\S+ .*: 2 turns/);
    const objects = remoteObjects(m.remote);
    assert.ok(objects.includes('"t":"turn_end"'), 'the remote holds the log');
    assert.ok(!objects.includes(KEY), 'no key Braid knows');
    assert.ok(!objects.includes(TOKEN), 'no token from a tool output');
    assert.ok(fs.readFileSync(m.f.store.layout.agentLog(m.f.store.locate(session.id)), 'utf8').includes(TOKEN), 'the local log has it');
    assert.ok(!objects.includes(m.f.workspace), 'no absolute path of the workspace');

    const pulled = await pullB(m, '--json');
    assert.equal(pulled.code, 0, pulled.err);
    const report = JSON.parse(pulled.out) as { sessions: Array<{ id: string; outcome: string; bytes: number }> };
    assert.deepEqual(
      report.sessions.map((s) => [s.id, s.outcome]),
      [[session.id, 'new']],
    );
    const listed = await braidIn(['--data-dir', m.dataB, 'list', '--json'], { cwd: m.workspaceB });
    const rows = JSON.parse(listed.out) as Array<{ id: string; turnCount: number }>;
    assert.deepEqual(
      rows.map((r) => [r.id, r.turnCount]),
      [[session.id, 2]],
    );
    const shown = await braidIn(['--data-dir', m.dataB, 'show', session.id], { cwd: m.workspaceB });
    assert.match(shown.out, /second/);
    assert.ok(!shown.out.includes(KEY));

    const again = await pushA(m, session.id);
    assert.match(again.out, /^0 session\(s\) pushed to .*; 1 up to date there\.\n$/);
    const logA = m.f.store.layout.agentLog(m.f.store.locate(session.id));
    const before = fs.statSync(logA).size;
    await turn(m.f, session, 'third', 'three');
    const grown = fs.statSync(logA).size - before;
    const third = await pushA(m, session.id, '--json');
    const sent = (JSON.parse(third.out) as { sessions: Array<{ turns: number; bytes: number }> }).sessions[0]!;
    assert.equal(sent.turns, 1);
    assert.ok(sent.bytes <= grown + 200 && sent.bytes >= grown - 200, `about the turn's ${grown} bytes, not the session's: ${sent.bytes}`);

    const second = JSON.parse((await pullB(m, '--json')).out) as typeof report;
    assert.deepEqual(
      second.sessions.map((s) => [s.outcome, s.bytes]),
      [['updated', sent.bytes]],
    );
    const rowsAfter = JSON.parse((await braidIn(['--data-dir', m.dataB, 'list', '--json'], { cwd: m.workspaceB })).out) as typeof rows;
    assert.equal(rowsAfter[0]!.turnCount, 3);
    const unchanged = JSON.parse((await pullB(m, '--json')).out) as typeof report;
    assert.deepEqual(
      unchanged.sessions.map((s) => s.outcome),
      ['unchanged'],
    );
    await session.close();
  } finally {
    await m.f.cleanup();
  }
});

test('a pull cut short in the middle of appending is mended by the next; a session of this machine is never pulled over', async () => {
  const m = await machines();
  try {
    const session = await m.f.open();
    await turn(m.f, session, 'one', 'a');
    assert.equal((await pushA(m, '--all')).code, 0);
    assert.equal((await pullB(m)).code, 0);
    await turn(m.f, session, 'two', 'b');
    assert.equal((await pushA(m, '--all')).code, 0);
    const logB = path.join(m.dataB, 'sessions');
    const copy = execFileSync('find', [logB, '-name', 'wire.jsonl'], { encoding: 'utf8' }).trim();
    const full = fs.readFileSync(m.f.store.layout.agentLog(m.f.store.locate(session.id)));
    // As if a pull had appended half of the new chunk and been killed: the state still names the old commit.
    const had = fs.statSync(copy).size;
    fs.appendFileSync(copy, full.subarray(had, had + 40));
    const mended = await pullB(m, '--json');
    assert.equal(mended.code, 0, mended.err);
    const pulledLog = fs.readFileSync(copy, 'utf8');
    assert.equal(pulledLog.split('\n').filter((l) => l.includes('"t":"turn_end"')).length, 2);
    assert.doesNotThrow(
      () =>
        pulledLog
          .trimEnd()
          .split('\n')
          .forEach((l) => JSON.parse(l)),
      'every line whole',
    );

    // Machine A pulls its own remote: its own refs are skipped, so nothing is pulled over its session.
    const own = await braidIn(['--data-dir', m.f.store.layout.root, 'pull', '--remote', `file://${m.remote}`, '--json'], { cwd: m.f.workspace });
    assert.equal(own.code, 0, own.err);
    assert.deepEqual((JSON.parse(own.out) as { sessions: unknown[] }).sessions, []);
    await session.close();
  } finally {
    await m.f.cleanup();
  }
});

test('a push killed after the remote took it, before its sync point was kept: the next push goes on from it and sends only what is new', async () => {
  const m = await machines();
  try {
    const session = await m.f.open();
    await turn(m.f, session, 'one', 'a');
    assert.equal((await pushA(m, '--all')).code, 0);
    const stateFile = m.f.store.layout.stateFile(m.f.store.locate(session.id));
    const keptAfterFirst = fs.readFileSync(stateFile);
    await turn(m.f, session, 'two', 'b');
    assert.equal((await pushA(m, '--all')).code, 0);
    // As if that push had been killed once git pushed: state.json still holds the first push's sync point.
    await session.close();
    fs.writeFileSync(stateFile, keptAfterFirst);
    const again = await m.f.open({}, session.id);
    await turn(m.f, again, 'three', 'c');
    const pushed = await pushA(m, '--all');
    assert.equal(pushed.code, 0, pushed.err + pushed.out);
    assert.match(pushed.out, /pushed .*1 turn/);
    assert.equal((await pullB(m)).code, 0);
    const rows = JSON.parse((await braidIn(['--data-dir', m.dataB, 'list', '--json'], { cwd: m.workspaceB })).out) as Array<{ turnCount: number }>;
    assert.deepEqual(
      rows.map((r) => r.turnCount),
      [3],
    );
    await again.close();
  } finally {
    await m.f.cleanup();
  }
});

test('hostile refs are refused with their reason and the rest is pulled: a ref of no session, a forged id, a chunk path outside agents/', async () => {
  const m = await machines();
  try {
    const session = await m.f.open();
    await turn(m.f, session, 'one', 'a');
    await session.close();
    assert.equal((await pushA(m, '--all')).code, 0);
    const [commit, ref] = git(m.f.root, '--git-dir', m.remote, 'for-each-ref', '--format=%(objectname) %(refname)').trim().split(' ') as [string, string];
    const machine = ref.split('/')[2]!;
    const forge = (manifest: (m: Record<string, unknown>) => Record<string, unknown>, refName: string) => {
      const original = JSON.parse(git(m.f.root, '--git-dir', m.remote, 'cat-file', 'blob', `${commit}:session.json`)) as Record<string, unknown>;
      const blob = execFileSync(realGit(), ['--git-dir', m.remote, 'hash-object', '-w', '--stdin'], {
        input: JSON.stringify(manifest(original)),
        encoding: 'utf8',
      }).trim();
      const tree = execFileSync(realGit(), ['--git-dir', m.remote, 'mktree'], {
        input: `100644 blob ${blob}\tsession.json\n040000 tree ${git(m.f.root, '--git-dir', m.remote, 'rev-parse', `${commit}:agents`).trim()}\tagents\n`,
        encoding: 'utf8',
      }).trim();
      const forged = execFileSync(realGit(), ['--git-dir', m.remote, '-c', 'user.name=x', '-c', 'user.email=x@x', 'commit-tree', tree, '-m', 'x'], {
        encoding: 'utf8',
      }).trim();
      git(m.f.root, '--git-dir', m.remote, 'update-ref', refName, forged);
    };
    const otherMachine = '0'.repeat(26);
    forge((x) => ({ ...x, machine: otherMachine, id: 'ses_01ARZ3NDEKTSV4RRFFQ69G5FAV' }), `refs/braid/${otherMachine}/ses_01BX5ZZKBKACTAV9WEVGEMMVRZ`);
    forge((x) => ({ ...x, machine: otherMachine, logs: { main: { chunks: ['../../x'], sourceBytes: 1 } } }), `refs/braid/${otherMachine}/${session.id}`);
    git(m.f.root, '--git-dir', m.remote, 'update-ref', 'refs/braid/not-a-machine/x', commit);
    // The honest session, under another machine's name so that B takes it.
    git(m.f.root, '--git-dir', m.remote, 'update-ref', `refs/braid/${machine}/${session.id}`, commit);

    const pulled = await pullB(m, '--json');
    assert.equal(pulled.code, 1, 'something was refused');
    const report = JSON.parse(pulled.out) as { sessions: Array<{ ref: string; outcome: string; reason?: string }> };
    const byRef = new Map(report.sessions.map((s) => [s.ref, s]));
    assert.match(byRef.get('refs/braid/not-a-machine/x')!.reason!, /not a machine id/);
    assert.match(byRef.get(`refs/braid/${otherMachine}/ses_01BX5ZZKBKACTAV9WEVGEMMVRZ`)!.reason!, /names session .* not the .* of its ref/);
    assert.match(byRef.get(`refs/braid/${otherMachine}/${session.id}`)!.reason!, /chunks of main that are not NNNNNN\.jsonl/);
    assert.equal(byRef.get(`refs/braid/${machine}/${session.id}`)!.outcome, 'new');
  } finally {
    await m.f.cleanup();
  }
});

/** `git daemon` serving `base` on 127.0.0.1, pushes allowed; its URL prefix and a stop. */
async function gitDaemon(base: string): Promise<{ url: string; stop: () => void }> {
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    const daemon = spawn(
      realGit(),
      ['daemon', '--reuseaddr', '--export-all', '--enable=receive-pack', `--base-path=${base}`, '--listen=127.0.0.1', `--port=${port}`, base],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let said = '';
    daemon.stderr.on('data', (c: Buffer) => (said += c.toString()));
    const ready = await new Promise<boolean>((resolve) => {
      const deadline = Date.now() + 5000;
      const probe = () => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => (daemon.exitCode !== null || Date.now() > deadline ? resolve(false) : setTimeout(probe, 50)));
      };
      probe();
    });
    if (ready) return { url: `git://127.0.0.1:${port}`, stop: () => daemon.kill('SIGTERM') };
    daemon.kill('SIGKILL');
    if (attempt === 5) throw new Error(`git daemon did not start: ${said}`);
  }
}

test('over git daemon on 127.0.0.1: two machines push at once, each pulls the other', async () => {
  const m = await machines();
  const daemon = await gitDaemon(m.f.root);
  try {
    const mine = await m.f.open();
    await turn(m.f, mine, 'from a', 'answer a');
    await mine.close();
    const url = `${daemon.url}/remote.git`;
    // Machine B: a data folder of its own, its checkout of the project (a folder of the same name) elsewhere.
    const fb = await sessionFixture();
    assert.equal(path.basename(fb.workspace), path.basename(m.f.workspace));
    const theirs = await fb.open();
    await turn(fb, theirs, 'from b', 'answer b');
    await theirs.close();
    const workspaceB = fb.workspace;
    const dataB = fb.store.layout.root;

    const [a, b] = await Promise.all([
      braidIn(['--data-dir', m.f.store.layout.root, 'push', '--all', '--remote', url], { cwd: m.f.workspace }),
      braidIn(['--data-dir', dataB, 'push', '--all', '--remote', url], { cwd: workspaceB }),
    ]);
    assert.equal(a.code, 0, a.err + a.out);
    assert.equal(b.code, 0, b.err + b.out);
    assert.equal(git(m.f.root, '--git-dir', m.remote, 'for-each-ref', 'refs/braid/').trim().split('\n').length, 2);

    const pulledByA = await braidIn(['--data-dir', m.f.store.layout.root, 'pull', '--remote', url, '--json'], { cwd: m.f.workspace });
    const pulledByB = await braidIn(['--data-dir', dataB, 'pull', '--remote', url, '--json'], { cwd: workspaceB });
    const ids = (run: { out: string }) => (JSON.parse(run.out) as { sessions: Array<{ id: string; outcome: string }> }).sessions.map((s) => [s.id, s.outcome]);
    assert.deepEqual(ids(pulledByA), [[theirs.id, 'new']]);
    assert.deepEqual(ids(pulledByB), [[mine.id, 'new']]);
    await fb.cleanup();
  } finally {
    daemon.stop();
    await m.f.cleanup();
  }
});

test('a pull takes the sessions of its project: a clone under another name has the same first commit; another repository has not', async () => {
  const m = await machines({ 'a.txt': 'a\n' });
  const identity = ['-c', 'user.name=t', '-c', 'user.email=t@t'];
  try {
    git(m.f.workspace, 'init', '-q', '-b', 'main');
    git(m.f.workspace, 'add', '.');
    git(m.f.workspace, ...identity, 'commit', '-q', '-m', 'first');
    const session = await m.f.open();
    await turn(m.f, session, 'in the repository', 'yes');
    await session.close();
    assert.equal((await pushA(m, '--all')).code, 0);

    const clone = path.join(m.f.root, 'machine-b', 'renamed-clone');
    git(m.f.root, 'clone', '-q', m.f.workspace, clone);
    const other = path.join(m.f.root, 'machine-b', path.basename(m.f.workspace), 'nested-other');
    fs.mkdirSync(other, { recursive: true });
    git(other, 'init', '-q', '-b', 'main');
    git(other, ...identity, 'commit', '-q', '--allow-empty', '-m', 'unrelated');
    const pullInto = async (cwd: string) =>
      JSON.parse((await braidIn(['--data-dir', m.dataB, 'pull', '--remote', `file://${m.remote}`, '--json'], { cwd })).out) as {
        sessions: Array<{ id: string; outcome: string }>;
        otherProjects: number;
      };
    const unrelated = await pullInto(other);
    assert.deepEqual([unrelated.sessions, unrelated.otherProjects], [[], 1]);
    const cloned = await pullInto(clone);
    assert.deepEqual(
      cloned.sessions.map((s) => [s.id, s.outcome]),
      [[session.id, 'new']],
    );
  } finally {
    await m.f.cleanup();
  }
});

test('a pull read from git in groups brings every session whole, each index row and search document as a rebuild of the index reads it', async () => {
  const m = await machines();
  try {
    for (let s = 0; s < 3; s++) {
      const session = await m.f.open();
      await turn(m.f, session, `prompt ${s}`, `answer ${s} ${'words '.repeat(50 * s)}`);
      await turn(m.f, session, `again ${s}`, `more ${s}`);
      await session.close();
    }
    assert.equal((await pushA(m, '--all')).code, 0);
    const store = await openStore(m.dataB);
    try {
      const report = await pullSessions({
        git: await ShareGit.open(m.dataB),
        store,
        remote: await shareRemote(`file://${m.remote}`, m.workspaceB, async () => undefined),
        machine: thisMachine(m.dataB).id,
        workspace: m.workspaceB,
        rootCommit: undefined,
        groupBytes: 1, // a group for each session
      });
      assert.deepEqual(
        report.sessions.map((s) => s.outcome),
        ['new', 'new', 'new'],
      );
    } finally {
      await store.close();
    }
    const rows = async () => JSON.parse((await braidIn(['--data-dir', m.dataB, 'list', '--json'], { cwd: m.workspaceB })).out) as Array<{ turnCount: number }>;
    const pulled = await rows();
    assert.deepEqual(
      pulled.map((r) => r.turnCount),
      [2, 2, 2],
    );
    // The turns' search documents, made on the pull's worker thread: each search as a rebuild finds it.
    const queries = ['answer 1', 'again', 'more 2', 'words', 'prompt 0'];
    const search = async (q: string) =>
      (JSON.parse((await braidIn(['--data-dir', m.dataB, 'search', ...q.split(' '), '--json'], { cwd: m.workspaceB })).out) as Array<{ id: string }>)
        .map((r) => r.id)
        .sort();
    const found = await Promise.all(queries.map(search));
    assert.deepEqual(
      found.map((ids) => ids.length),
      [1, 3, 1, 2, 1],
    );
    assert.equal((await braidIn(['--data-dir', m.dataB, 'rebuild-index'], { cwd: m.workspaceB })).code, 0);
    assert.deepEqual(pulled, await rows(), 'the rows the pull wrote are those a rebuild reads from the folders');
    assert.deepEqual(found, await Promise.all(queries.map(search)), 'the documents the pull wrote are those a rebuild reads');
  } finally {
    await m.f.cleanup();
  }
});
