import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { braidIn } from '../../support/cli';
import { initRepo } from '../../support/gitRepo';
import { fauxAssistantMessage, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';
import { readState, relinkedStateFile, sessionFolders, storedPart } from '../../../src/core/format/sessionState';
import { identityOf } from '../../../src/core/git/worktree';
import { relinkCandidates, relinkSessions } from '../../../src/core/store/relink';
import { spelledWorkspaceKey, workspaceKey } from '../../../src/core/workspace/workspaceKey';

/** A session in the fixture's workspace whose one turn wrote notes.md. */
async function sessionThatWrote(f: SessionFixture, overrides = {}): Promise<string> {
  f.faux.setResponses([
    fauxAssistantMessage(fauxToolCall('write_file', { path: 'notes.md', content: 'written by Braid\n' }, { id: 'w' }), { stopReason: 'toolUse' }),
    fauxAssistantMessage('Wrote it.'),
  ]);
  const session = await f.open(overrides);
  await session.submit('Write the notes');
  await session.waitForIdle();
  await session.close();
  return session.id;
}

test('every spelling of one folder has one key: a link, a trailing slash, `..`', async () => {
  const f = await sessionFixture();
  try {
    const link = path.join(f.root, 'link');
    fs.symlinkSync(f.workspace, link);
    const key = workspaceKey(f.workspace);
    for (const spelling of [link, `${f.workspace}/`, path.join(f.workspace, 'sub', '..'), `${link}//`]) assert.equal(workspaceKey(spelling), key, spelling);
    assert.notEqual(spelledWorkspaceKey(link), key, 'as an earlier Braid keyed it');
  } finally {
    await f.cleanup();
  }
});

test('a folder moved on disk: its sessions are found by name and the files Braid wrote, re-linked with one rename each, and go on there', async () => {
  const f = await sessionFixture();
  try {
    const id = await sessionThatWrote(f);
    const moved = path.join(f.root, 'elsewhere', 'workspace');
    fs.mkdirSync(path.dirname(moved));
    fs.renameSync(f.workspace, moved);
    const [candidate, ...none] = relinkCandidates(f.store, moved);
    assert.deepEqual(none, []);
    assert.deepEqual(candidate, { fromKey: workspaceKey(f.workspace), fromDir: f.workspace, sessionIds: [id], reason: 'same name and files' });
    // A folder of that name with other content is not taken for it.
    fs.writeFileSync(path.join(moved, 'notes.md'), 'changed since\n');
    assert.deepEqual(relinkCandidates(f.store, moved), []);
    fs.writeFileSync(path.join(moved, 'notes.md'), 'written by Braid\n');

    const cli = await braidIn(['--data-dir', path.join(f.root, 'store'), 'relink', '--from', f.workspace], { cwd: moved });
    assert.equal(cli.code, 0, cli.err);
    assert.equal(cli.out, `re-linked 1 session from ${f.workspace} to ${fs.realpathSync(moved)}\n`);
    const dir = f.store.locate(id);
    assert.equal(path.basename(path.dirname(dir)), workspaceKey(moved));
    assert.equal(fs.existsSync(path.join(f.root, 'store', 'sessions', workspaceKey(f.workspace), id)), false);
    const state = readState(path.join(dir, 'state.json'));
    assert.deepEqual([state.workspaceDir, state.workspaceKey, sessionFolders(state)], [fs.realpathSync(moved), workspaceKey(moved), [fs.realpathSync(moved)]]);
    assert.deepEqual(
      f
        .records(id)
        .filter((r) => r.t === 'relinked')
        .map((r) => [(r as { from: string }).from, (r as { to: string }).to]),
      [[f.workspace, fs.realpathSync(moved)]],
    );
    assert.deepEqual(
      f.store.index.list({ workspaceKey: workspaceKey(moved) }).map((r) => r.id),
      [id],
    );
    assert.equal(f.store.index.list({ workspaceKey: workspaceKey(f.workspace) }).length, 0);
    assert.deepEqual(relinkCandidates(f.store, moved), [], 'a folder with sessions is offered none');

    // The session goes on in its new place, and a rewind of the turn from before the move acts there.
    f.faux.setResponses([
      fauxAssistantMessage(fauxToolCall('write_file', { path: 'notes.md', content: 'written after the move\n' }, { id: 'w2' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage('Still here.'),
    ]);
    const again = await f.open({ workspaceDirs: [moved] }, id);
    await again.submit('Are you there?');
    await again.waitForIdle();
    assert.deepEqual(
      again.changes().session.map((c) => c.path),
      ['notes.md'],
      'a file changed before the move is one file in the Changes list',
    );
    await again.close();
    assert.equal(f.store.get(id).turnCount, 2);
    const rewound = await braidIn(['--data-dir', path.join(f.root, 'store'), 'rewind', id, '--turn', '1', '--files'], { cwd: moved });
    assert.equal(rewound.code, 0, rewound.err);
    assert.doesNotMatch(rewound.out, /left alone/);
    assert.equal(fs.existsSync(path.join(moved, 'notes.md')), false, 'the file the first turn created is gone from the new place');
  } finally {
    await f.cleanup();
  }
});

test('a renamed repository is found by its origin and first commit; the old spelling of a linked folder is found as the same folder', async () => {
  const f = await sessionFixture();
  try {
    initRepo(f.workspace, { 'a.txt': 'a\n' });
    const id = await sessionThatWrote(f, { gitContext: true });
    assert.ok(f.store.get(id).identity?.rootCommit, 'a trusted session records its repository');
    const renamed = path.join(f.root, 'renamed');
    fs.renameSync(f.workspace, renamed);
    assert.deepEqual(relinkCandidates(f.store, renamed), [], 'the name differs and no identity was given');
    const [candidate] = relinkCandidates(f.store, renamed, await identityOf(renamed));
    assert.equal(candidate?.reason, 'same repository');

    // Sessions an earlier Braid keyed by a link's path: opening the folder itself finds them.
    const link = path.join(f.root, 'link');
    fs.symlinkSync(renamed, link);
    await relinkSessions(f.store, f.workspace, renamed);
    const dir = f.store.locate(id);
    const legacy = path.join(f.root, 'store', 'sessions', spelledWorkspaceKey(link), id);
    fs.mkdirSync(path.dirname(legacy), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'state.json'),
      JSON.stringify({ ...storedPart(readState(path.join(dir, 'state.json'))), workspaceKey: spelledWorkspaceKey(link), workspaceDir: link }),
    );
    fs.renameSync(dir, legacy);
    f.store.index.removeSession(id);
    const [same] = relinkCandidates(f.store, renamed);
    assert.deepEqual([same?.reason, same?.fromKey], ['same folder', spelledWorkspaceKey(link)]);
    const result = await relinkSessions(f.store, link, renamed);
    assert.deepEqual(result.moved, [id]);
    assert.equal(f.store.get(id).workspaceKey, workspaceKey(renamed));
  } finally {
    await f.cleanup();
  }
});

test('relink refuses a folder that still exists, an old path with no sessions, and a session another process writes; nothing moves', async () => {
  const f = await sessionFixture();
  try {
    const id = await sessionThatWrote(f);
    const other = path.join(f.root, 'other');
    fs.mkdirSync(other);
    await assert.rejects(relinkSessions(f.store, f.workspace, other), /still exists, so its sessions are its own/);
    const cli = await braidIn(['--data-dir', path.join(f.root, 'store'), 'relink', '--from', path.join(f.root, 'never')], { cwd: other });
    assert.equal(cli.code, 1);
    assert.match(cli.err, /no sessions are recorded under .*never/);
    assert.equal((await braidIn(['--data-dir', path.join(f.root, 'store'), 'relink'], { cwd: other })).code, 2);

    const moved = path.join(f.root, 'moved');
    fs.renameSync(f.workspace, moved);
    const writer = await f.store.openWriter(id); // another window writes it
    await assert.rejects(relinkSessions(f.store, f.workspace, moved), /is being written by another window or the CLI/);
    await writer.close();
    assert.equal(path.basename(path.dirname(f.store.locate(id))), workspaceKey(f.workspace), 'nothing moved');
  } finally {
    await f.cleanup();
  }
});

test('a relink cut short after its rename is finished by the next read of the state', async () => {
  const f = await sessionFixture();
  try {
    const s = await f.store.create({ workspaceDir: f.workspace, title: 'kept title' });
    const oldDir = f.store.locate(s.id);
    const to = path.join(f.root, 'new-place');
    fs.mkdirSync(to);
    const next = { ...storedPart(readState(path.join(oldDir, 'state.json'))), workspaceKey: workspaceKey(to), workspaceDir: to };
    fs.writeFileSync(relinkedStateFile(path.join(oldDir, 'state.json')), JSON.stringify(next));
    const newDir = path.join(f.root, 'store', 'sessions', workspaceKey(to), s.id);
    fs.mkdirSync(path.dirname(newDir), { recursive: true });
    fs.renameSync(oldDir, newDir); // the crash: the old state.json arrived in the new place
    const state = readState(path.join(newDir, 'state.json'));
    assert.deepEqual([state.workspaceKey, state.workspaceDir, state.title], [workspaceKey(to), to, 'kept title']);
    assert.equal(fs.existsSync(relinkedStateFile(path.join(newDir, 'state.json'))), false);
  } finally {
    await f.cleanup();
  }
});
