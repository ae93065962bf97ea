import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SessionElsewhereError } from '../../../src/core/session/session';
import { sessionFolderLayout } from '../../../src/core/format/layout';
import { previewRewind, rewindSession, undoRewind } from '../../../src/core/store/rewind';
import type { MessageRecord } from '../../../src/core/wire/records';
import { WireLogWriter } from '../../../src/core/wire/wireLog';
import { fauxAssistantMessage, fauxRead, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';

// Rewinds act exactly where the writes happened, and a log record or a journal that names a file
// elsewhere is data, not an instruction: nothing outside the session's workspace folders is
// written or deleted, whatever the records say.

const sha = (data: string) => createHash('sha256').update(data).digest('hex');

function promptId(f: SessionFixture, sessionId: string, text: string): string {
  return (f.store.history(sessionId).messages.find((m) => m.message.role === 'user' && JSON.stringify(m.message.content).includes(text)) as MessageRecord).id;
}

/** A session of two turns; the second writes `written` (relative path) with write_file. */
async function twoTurns(f: SessionFixture, written: string, overrides = {}): Promise<string> {
  f.faux.setResponses([
    fauxAssistantMessage('first'),
    fauxRead(written),
    fauxAssistantMessage([fauxToolCall('write_file', { path: written, content: 'by the agent\n' }, { id: 'w' })], { stopReason: 'toolUse' }),
    fauxAssistantMessage('written'),
  ]);
  const session = await f.open(overrides);
  await session.submit('first turn');
  await session.waitForIdle();
  await session.submit('write the file');
  await session.waitForIdle();
  await session.close();
  return session.id;
}

test('a file_change record naming a file outside the workspace is refused by preview and rewind', async () => {
  const f = await sessionFixture({ 'a.txt': 'a\n' });
  const victim = path.join(f.root, 'victim.txt');
  fs.writeFileSync(victim, 'precious\n');
  try {
    const id = await twoTurns(f, 'b.txt');
    // A forged record in turn 2: it "created" the victim, so a rewind would delete it.
    const log = WireLogWriter.open(path.join(f.store.locate(id), 'agents', 'main', 'wire.jsonl'));
    await log.append(
      [
        { t: 'file_change', turn: 2, toolCallId: 'x', path: '../victim.txt', before: null, after: sha('precious\n') },
        { t: 'file_change', turn: 2, toolCallId: 'y', path: 'victim.txt', root: f.root, before: null, after: sha('precious\n') },
      ],
      { durable: true },
    );
    await log.close();
    const prompt = promptId(f, id, 'write the file');
    const preview = previewRewind(f.store, id, prompt);
    assert.deepEqual(
      preview.files.map((x) => x.path),
      ['b.txt'],
    );
    assert.equal(preview.refused.length, 2);
    assert.match(preview.refused.join('\n'), /outside the workspace/);
    assert.match(preview.refused.join('\n'), /not one of this session's workspace folders/);
    await rewindSession(f.store, id, prompt, { files: true, confirmOutside: true });
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n', 'the file outside is still there');
    assert.equal(fs.existsSync(path.join(f.workspace, 'b.txt')), false, 'the real change was rewound');
  } finally {
    await f.cleanup();
  }
});

test('a rewind journal naming files outside the workspace, or another folder, touches none of them', async () => {
  const f = await sessionFixture({ 'a.txt': 'a\n' });
  const victim = path.join(f.root, 'victim.txt');
  fs.writeFileSync(victim, 'precious\n');
  try {
    const id = await twoTurns(f, 'b.txt');
    const dir = f.store.locate(id);
    const journal = {
      v: 1,
      op: 'rewind',
      workspaceDir: '/',
      logBytes: fs.statSync(path.join(dir, 'agents', 'main', 'wire.jsonl')).size,
      records: [],
      turnCount: 2,
      files: [
        { path: victim, from: sha('precious\n'), to: null },
        { path: '../victim.txt', from: sha('precious\n'), to: null },
        { path: 'victim.txt', root: f.root, from: sha('precious\n'), to: null },
      ],
      emptyFolders: [{ path: '..' }, { path: path.dirname(f.root) }],
    };
    fs.writeFileSync(sessionFolderLayout.pendingRewindFile(dir), JSON.stringify(journal));
    // The next writer finishes the journal: it must not follow it out of the workspace.
    await (await f.store.openWriter(id)).close();
    assert.equal(fs.existsSync(sessionFolderLayout.pendingRewindFile(dir)), false, 'the journal was finished');
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n');
    assert.ok(fs.existsSync(f.root));
  } finally {
    await f.cleanup();
  }
});

test('multi-root: a rewind restores the file in the folder it was written in, never its namesake in another', async () => {
  const f = await sessionFixture({ 'same.txt': 'first folder\n' });
  const second = path.join(f.root, 'second');
  fs.mkdirSync(second);
  fs.writeFileSync(path.join(second, 'same.txt'), 'second folder\n');
  try {
    f.faux.setResponses([
      fauxAssistantMessage('first'),
      fauxRead(path.join(second, 'same.txt')),
      fauxAssistantMessage([fauxToolCall('edit_file', { path: path.join(second, 'same.txt'), old_text: 'second', new_text: 'EDITED second' }, { id: 'e' })], {
        stopReason: 'toolUse',
      }),
      fauxAssistantMessage('edited'),
    ]);
    const session = await f.open({ workspaceDirs: [f.workspace, second] });
    await session.submit('first turn');
    await session.waitForIdle();
    await session.submit('edit the second one');
    await session.waitForIdle();
    assert.equal(fs.readFileSync(path.join(second, 'same.txt'), 'utf8'), 'EDITED second folder\n');
    await session.rewind(promptId(f, session.id, 'edit the second one'), { files: true });
    assert.equal(fs.readFileSync(path.join(second, 'same.txt'), 'utf8'), 'second folder\n', 'restored where it was written');
    assert.equal(fs.readFileSync(path.join(f.workspace, 'same.txt'), 'utf8'), 'first folder\n', 'the namesake is untouched');
    await session.undoRewind();
    assert.equal(fs.readFileSync(path.join(second, 'same.txt'), 'utf8'), 'EDITED second folder\n');
    assert.equal(fs.readFileSync(path.join(f.workspace, 'same.txt'), 'utf8'), 'first folder\n');
  } finally {
    await f.cleanup();
  }
});

test("a session opened from another folder is refused: its tools never act on that folder's files", async () => {
  const f = await sessionFixture({ 'a.txt': 'a\n' });
  const other = path.join(f.root, 'other');
  fs.mkdirSync(other);
  try {
    const id = await twoTurns(f, 'b.txt');
    await assert.rejects(
      f.open({ workspaceDirs: [other] }, id),
      (err: Error) => err instanceof SessionElsewhereError && err.message.includes(`belongs to ${f.workspace}`),
    );
    assert.deepEqual(fs.readdirSync(other), []);
    // Opened in a window that also has its folder, the session's own folder comes first.
    const session = await f.open({ workspaceDirs: [other, f.workspace] }, id);
    await session.close();
    assert.deepEqual(f.store.get(id).workspaceFolders, [fs.realpathSync(f.workspace), fs.realpathSync(other)]);
  } finally {
    await f.cleanup();
  }
});

test('rewinding a created file removes the folders its write created (when empty), and undo brings them back', async () => {
  const f = await sessionFixture({ 'kept/old.txt': 'old\n' });
  try {
    const id = await twoTurns(f, 'fresh/deep/er/new.txt');
    const prompt = promptId(f, id, 'write the file');
    await rewindSession(f.store, id, prompt, { files: true });
    assert.equal(fs.existsSync(path.join(f.workspace, 'fresh')), false, 'the created folders are gone');
    assert.ok(fs.existsSync(path.join(f.workspace, 'kept', 'old.txt')), 'folders that existed stay');
    await undoRewind(f.store, id);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'fresh/deep/er/new.txt'), 'utf8'), 'by the agent\n');
  } finally {
    await f.cleanup();
  }
});
