import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { braidIn } from '../../support/cli';
import { realGit } from '../../support/hostileRepo';
import { fauxAssistantMessage, fauxRead, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';

// `braid blame` names, for each line of a file as it is now, the Braid turn that wrote it and the
// commit that holds it; lines written before the session, or changed by hand since, are nobody's.
// Driven through real sessions (a faux model calling the real tools) in a real git repository.

const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

interface BlameJson {
  file: string;
  lines: Array<{
    line: number;
    text: string;
    author: { sessionId: string; turn: number; prompt: string; model: string; commit: { id: string; subject: string } | null } | null;
  }>;
}

type Session = Awaited<ReturnType<SessionFixture['open']>>;

/** A turn whose model reads `file` and writes `content` to it, then runs `command` when given. */
async function writeTurn(f: SessionFixture, session: Session, prompt: string, file: string, content: string, command?: string): Promise<void> {
  f.faux.setResponses([
    fauxRead(file),
    fauxAssistantMessage(fauxToolCall('write_file', { path: file, content }, { id: `w-${prompt}` }), { stopReason: 'toolUse' }),
    ...(command ? [fauxAssistantMessage(fauxToolCall('bash', { command }, { id: `b-${prompt}` }), { stopReason: 'toolUse' })] : []),
    fauxAssistantMessage('done'),
  ]);
  await session.submit(prompt);
  await session.waitForIdle();
}

test('blame follows the lines two turns wrote through an edit by hand, to the commit that holds them', async () => {
  const f = await sessionFixture({ 'app.ts': 'one\ntwo\nthree\n' });
  const savedIdentity = Object.keys(identity).map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, identity);
  try {
    const git = (...args: string[]) => execFileSync(realGit(), args, { cwd: f.workspace, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'before Braid');
    const session = await f.open({ gitContext: true });
    await writeTurn(f, session, 'shout two and add four', 'app.ts', 'one\nTWO by turn 1\nthree\nfour by turn 1\n');
    fs.writeFileSync(path.join(f.workspace, 'app.ts'), 'one\nTWO by turn 1\nthree\nfour by hand\n');
    await writeTurn(
      f,
      session,
      'add zero and commit',
      'app.ts',
      'zero by turn 2\none\nTWO by turn 1\nthree\nfour by hand\n',
      'git commit -q -am "turn 2 work"',
    );
    const commit = git('rev-parse', 'HEAD').trim();

    await session.close();

    const run = await braidIn(['--data-dir', f.store.layout.root, 'blame', 'app.ts', '--json'], { cwd: f.workspace });
    assert.equal(run.code, 0, run.err);
    const blamed = JSON.parse(run.out) as BlameJson;
    assert.equal(blamed.file, path.join(f.workspace, 'app.ts'));
    assert.deepEqual(
      blamed.lines.map((l) => [l.text, l.author && [l.author.sessionId, l.author.turn, l.author.prompt, l.author.commit?.id]]),
      [
        ['zero by turn 2', [session.id, 2, 'add zero and commit', commit]],
        ['one', null],
        ['TWO by turn 1', [session.id, 1, 'shout two and add four', commit]],
        ['three', null],
        ['four by hand', null],
      ],
    );
    assert.equal(blamed.lines[0]!.author!.model, 'faux/faux-1');
    assert.equal(blamed.lines[0]!.author!.commit!.subject, 'turn 2 work');

    const text = await braidIn(['--data-dir', f.store.layout.root, 'blame', 'app.ts:3'], { cwd: f.workspace });
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^3 \S+ #1 [0-9a-f]{9} │ TWO by turn 1\n/);
    assert.match(text.out, /1 of 1 lines written by Braid, in 1 turn:\n {2}\S+ #1 .* faux\/faux-1 {2}"shout two and add four"\n$/);
  } finally {
    for (const [k, v] of savedIdentity)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    await f.cleanup();
  }
});

test('a rewind that restored the file takes its lines back from blame, its undo gives them back; a fork names each line once', async () => {
  const f = await sessionFixture({ 'notes.md': 'kept\n' });
  try {
    const session = await f.open();
    await writeTurn(f, session, 'add alpha', 'notes.md', 'kept\nalpha by turn 1\n');
    await writeTurn(f, session, 'add beta', 'notes.md', 'kept\nalpha by turn 1\nbeta by turn 2\n');
    await session.close();
    const data = ['--data-dir', f.store.layout.root];
    const blamed = async (): Promise<Array<[string, number | null]>> => {
      const run = await braidIn([...data, 'blame', 'notes.md', '--json'], { cwd: f.workspace });
      assert.equal(run.code, 0, run.err);
      return (JSON.parse(run.out) as BlameJson).lines.map((l) => [l.text, l.author?.turn ?? null]);
    };
    const both: Array<[string, number | null]> = [
      ['kept', null],
      ['alpha by turn 1', 1],
      ['beta by turn 2', 2],
    ];
    assert.deepEqual(await blamed(), both);
    const rewound = await braidIn([...data, 'rewind', session.id, '--turn', '2', '--files'], { cwd: f.workspace });
    assert.equal(rewound.code, 0, rewound.err);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'notes.md'), 'utf8'), 'kept\nalpha by turn 1\n');
    assert.deepEqual(await blamed(), both.slice(0, 2));
    assert.equal((await braidIn([...data, 'undo-rewind', session.id], { cwd: f.workspace })).code, 0);
    assert.deepEqual(await blamed(), both);
    const forked = await braidIn([...data, 'fork', session.id, '--json'], { cwd: f.workspace });
    assert.equal(forked.code, 0, forked.err);
    const run = await braidIn([...data, 'blame', 'notes.md', '--json'], { cwd: f.workspace });
    assert.deepEqual(
      (JSON.parse(run.out) as BlameJson).lines.map((l) => l.author?.sessionId ?? null),
      [null, session.id, session.id],
      'the source session, which wrote them, not its fork',
    );
    const beyond = await braidIn([...data, 'blame', 'notes.md:9'], { cwd: f.workspace });
    assert.equal(beyond.code, 2);
    assert.match(beyond.err, /notes\.md has 3 lines/);
  } finally {
    await f.cleanup();
  }
});

test('a file no turn wrote claims no line; a binary file is refused; a write whose images braid gc removed claims nothing and breaks nothing', async () => {
  const f = await sessionFixture({ 'plain.txt': 'a\nb\n', 'bin.dat': 'x\0y' });
  try {
    const session = await f.open();
    await writeTurn(f, session, 'write c', 'plain.txt', 'a\nb\nc by turn 1\n');
    await session.close();
    const data = ['--data-dir', f.store.layout.root];
    fs.writeFileSync(path.join(f.workspace, 'other.txt'), 'nobody\n');
    const none = await braidIn([...data, 'blame', 'other.txt'], { cwd: f.workspace });
    assert.equal(none.code, 0, none.err);
    assert.match(none.out, /^1 {2}│ nobody\n\n0 of 1 lines written by Braid\.\n$/);
    const binary = await braidIn([...data, 'blame', 'bin.dat'], { cwd: f.workspace });
    assert.equal(binary.code, 1);
    assert.match(binary.err, /bin\.dat is a binary file/);
    const before = await braidIn([...data, 'blame', 'plain.txt', '--json'], { cwd: f.workspace });
    assert.deepEqual(
      (JSON.parse(before.out) as BlameJson).lines.map((l) => l.author?.turn ?? null),
      [null, null, 1],
    );
    fs.rmSync(f.store.layout.blobsDir(f.store.locate(session.id)), { recursive: true, force: true });
    const gone = await braidIn([...data, 'blame', 'plain.txt', '--json'], { cwd: f.workspace });
    assert.equal(gone.code, 0, gone.err);
    assert.deepEqual(
      (JSON.parse(gone.out) as BlameJson).lines.map((l) => l.author),
      [null, null, null],
    );
  } finally {
    await f.cleanup();
  }
});
