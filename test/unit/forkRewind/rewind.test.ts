import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { previewRewind, undoRewind } from '../../../src/core/store/rewind';
import type { MessageRecord } from '../../../src/core/wire/records';
import { fauxAssistantMessage, fauxRead, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';

const binary = Buffer.from([0, 1, 2, 3, 255, 254, 0, 10]);

test('rewind with files restores modified, created and deleted files (text and binary); undo puts everything back', async () => {
  const f = await sessionFixture({ 'keep.txt': 'keep\n', 'edit.txt': 'one\ntwo\n', 'gone.txt': 'will be deleted\n' });
  fs.writeFileSync(path.join(f.workspace, 'data.bin'), binary);
  try {
    f.faux.setResponses([
      fauxAssistantMessage('turn one'),
      fauxRead('edit.txt'),
      fauxAssistantMessage(
        [
          fauxToolCall('edit_file', { path: 'edit.txt', old_text: 'two', new_text: 'TWO\nthree' }, { id: 'e' }),
          fauxToolCall('write_file', { path: 'new/created.txt', content: 'fresh\n' }, { id: 'w' }),
          fauxToolCall('bash', { command: 'rm gone.txt && printf "\\x07\\x08" >> data.bin' }, { id: 'b' }),
        ],
        { stopReason: 'toolUse' },
      ),
      fauxAssistantMessage('turn two done'),
      fauxAssistantMessage('turn three done'),
    ]);
    const session = await f.open();
    await session.submit('turn one please');
    await session.waitForIdle();
    await session.submit('change the files');
    await session.waitForIdle();
    await session.submit('and a third');
    await session.waitForIdle();
    assert.equal(fs.existsSync(path.join(f.workspace, 'gone.txt')), false);
    const changed = { edit: fs.readFileSync(path.join(f.workspace, 'edit.txt')), bin: fs.readFileSync(path.join(f.workspace, 'data.bin')) };
    const prompt = f.store
      .history(session.id)
      .messages.find((m) => m.message.role === 'user' && JSON.stringify(m.message.content).includes('change the files')) as MessageRecord;

    const preview = previewRewind(f.store, session.id, prompt.id);
    assert.equal(preview.toTurn, 2);
    assert.equal(preview.turnsDropped, 2);
    assert.equal(preview.text, 'change the files');
    assert.deepEqual(preview.files.map((x) => [x.path, x.action, x.changedOutside]).sort(), [
      ['data.bin', 'restore', false],
      ['edit.txt', 'restore', false],
      ['gone.txt', 'recreate', false],
      ['new/created.txt', 'delete', false],
    ]);
    assert.deepEqual(preview.files.find((x) => x.path === 'edit.txt')!.added, 1);
    // A one-line file is one line, whether the rewind deletes it or brings it back.
    const counts = (p: string) => {
      const x = preview.files.find((file) => file.path === p)!;
      return [x.added, x.removed];
    };
    assert.deepEqual(counts('new/created.txt'), [0, 1]);
    assert.deepEqual(counts('gone.txt'), [1, 0]);
    assert.deepEqual(preview.commands, ['rm gone.txt && printf "\\x07\\x08" >> data.bin']);

    const result = await session.rewind(prompt.id, { files: true });
    assert.equal(result.text, 'change the files');
    assert.equal(fs.readFileSync(path.join(f.workspace, 'edit.txt'), 'utf8'), 'one\ntwo\n');
    assert.equal(fs.readFileSync(path.join(f.workspace, 'gone.txt'), 'utf8'), 'will be deleted\n');
    assert.ok(fs.readFileSync(path.join(f.workspace, 'data.bin')).equals(binary));
    assert.equal(fs.existsSync(path.join(f.workspace, 'new/created.txt')), false);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'keep.txt'), 'utf8'), 'keep\n');
    assert.deepEqual(
      session.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.equal(f.store.get(session.id).turnCount, 1);

    await session.undoRewind();
    assert.ok(fs.readFileSync(path.join(f.workspace, 'edit.txt')).equals(changed.edit));
    assert.ok(fs.readFileSync(path.join(f.workspace, 'data.bin')).equals(changed.bin));
    assert.equal(fs.existsSync(path.join(f.workspace, 'gone.txt')), false);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'new/created.txt'), 'utf8'), 'fresh\n');
    assert.equal(f.store.history(session.id).messages.filter((m) => m.message.role === 'user').length, 3);
    assert.equal(f.store.get(session.id).turnCount, 3);

    // A file edited outside Braid after its turn is listed, and skipped unless confirmed.
    fs.writeFileSync(path.join(f.workspace, 'edit.txt'), 'edited by hand\n');
    assert.equal(previewRewind(f.store, session.id, prompt.id).files.find((x) => x.path === 'edit.txt')!.changedOutside, true);
    const careful = await session.rewind(prompt.id, { files: true });
    assert.deepEqual(careful.skipped, ['edit.txt']);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'edit.txt'), 'utf8'), 'edited by hand\n');
    assert.equal(fs.readFileSync(path.join(f.workspace, 'gone.txt'), 'utf8'), 'will be deleted\n');

    // The next turn after a rewind is numbered from the rewound turn again.
    f.faux.setResponses([fauxAssistantMessage('edited and resent')]);
    await session.submit('change the files, differently');
    await session.waitForIdle();
    const ends = (f.records(session.id).filter((r) => r.t === 'turn_end') as Array<{ turn: number }>).map((r) => r.turn);
    assert.equal(ends.at(-1), 2);
    await assert.rejects(session.undoRewind(), /went on after its last rewind/);
  } finally {
    await f.cleanup();
  }
});

/** The user message of a session whose text includes `text`. */
function promptOf(f: SessionFixture, sessionId: string, text: string): MessageRecord {
  return f.store.history(sessionId).messages.find((m) => m.message.role === 'user' && JSON.stringify(m.message.content).includes(text)) as MessageRecord;
}

test('the preview lists only commands that ran: a denied, refused or never-started one is not listed; one cut off by a crash may have run', async () => {
  const f = await sessionFixture();
  try {
    let trusted = true;
    f.faux.setResponses([
      fauxAssistantMessage('turn one'),
      fauxAssistantMessage(
        [
          fauxToolCall('bash', { command: 'echo ran > ran.txt' }, { id: 'ran' }),
          fauxToolCall('bash', { command: 'echo quietly' }, { id: 'ran-no-files' }),
          fauxToolCall('bash', { command: 'echo deny me' }, { id: 'denied' }),
          fauxToolCall('bash', { cmd: 'no command argument' }, { id: 'invalid' }),
        ],
        { stopReason: 'toolUse' },
      ),
      fauxAssistantMessage('turn two'),
      fauxAssistantMessage(fauxToolCall('bash', { command: 'echo refused' }, { id: 'refused' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage('turn three'),
    ]);
    const session = await f.open({
      approvals: { request: async (r) => (r.summary.includes('deny me') ? 'deny' : 'allow') },
      trusted: () => trusted,
    });
    await session.submit('first');
    await session.waitForIdle();
    await session.submit('run commands');
    await session.waitForIdle();
    trusted = false;
    await session.submit('in an untrusted workspace');
    await session.waitForIdle();
    await session.close();
    assert.equal(fs.readFileSync(path.join(f.workspace, 'ran.txt'), 'utf8'), 'ran\n');

    // A turn a crash cut off while its command ran: no result came back.
    const writer = await f.store.openWriter(session.id);
    await writer.beginTurn('p-crash', null);
    await writer.appendMessage({ role: 'user', content: 'crash during a command', timestamp: Date.now() });
    await writer.appendMessage(fauxAssistantMessage(fauxToolCall('bash', { command: 'make deploy' }, { id: 'unknown' }), { stopReason: 'toolUse' }));
    await writer.close();
    await (await f.open({}, session.id)).close(); // ends the turn interrupted and closes the call

    const preview = previewRewind(f.store, session.id, promptOf(f, session.id, 'run commands').id);
    assert.deepEqual(preview.commands, ['echo ran > ran.txt', 'echo quietly']);
    assert.deepEqual(preview.commandsMayHaveRun, ['make deploy']);
  } finally {
    await f.cleanup();
  }
});

test('--confirm-outside after a rewind that skipped files restores them with no undo first; undo-rewind then puts everything back', async () => {
  const f = await sessionFixture({ 'edit.txt': 'one\ntwo\n', 'other.txt': 'other\n' });
  try {
    f.faux.setResponses([
      fauxAssistantMessage('turn one'),
      fauxRead(['edit.txt', 'other.txt']),
      fauxAssistantMessage(
        [
          fauxToolCall('edit_file', { path: 'edit.txt', old_text: 'two', new_text: 'TWO' }, { id: 'e' }),
          fauxToolCall('write_file', { path: 'other.txt', content: 'changed\n' }, { id: 'w' }),
        ],
        { stopReason: 'toolUse' },
      ),
      fauxAssistantMessage('turn two'),
    ]);
    const session = await f.open();
    await session.submit('first');
    await session.waitForIdle();
    await session.submit('change both');
    await session.waitForIdle();
    fs.writeFileSync(path.join(f.workspace, 'edit.txt'), 'edited by hand\n');
    const prompt = promptOf(f, session.id, 'change both');

    const first = await session.rewind(prompt.id, { files: true });
    assert.deepEqual([first.restored, first.skipped], [['other.txt'], ['edit.txt']]);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'edit.txt'), 'utf8'), 'edited by hand\n');

    // The same rewind again: nothing to restore without confirming; with it, the skipped file.
    const preview = previewRewind(f.store, session.id, prompt.id);
    assert.equal(preview.alreadyRewound, true);
    assert.deepEqual(
      preview.files.map((x) => [x.path, x.changedOutside]),
      [['edit.txt', true]],
    );
    await assert.rejects(session.rewind(prompt.id, { files: false }), /already rewound to that prompt; add --files/);
    const again = await session.rewind(prompt.id, { files: true, confirmOutside: true });
    assert.deepEqual([again.alreadyRewound, again.restored, again.skipped], [true, ['edit.txt'], []]);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'edit.txt'), 'utf8'), 'one\ntwo\n');
    assert.equal(fs.readFileSync(path.join(f.workspace, 'other.txt'), 'utf8'), 'other\n');
    assert.deepEqual(
      session.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.equal(f.store.get(session.id).turnCount, 1);

    // Undo takes back the rewind and its follow-up: each file gets its image from just before.
    const undone = await session.undoRewind();
    assert.deepEqual(undone.files.sort(), ['edit.txt', 'other.txt']);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'edit.txt'), 'utf8'), 'edited by hand\n');
    assert.equal(fs.readFileSync(path.join(f.workspace, 'other.txt'), 'utf8'), 'changed\n');
    assert.equal(f.store.history(session.id).messages.filter((m) => m.message.role === 'user').length, 2);
    assert.equal(f.store.get(session.id).turnCount, 2);
    await assert.rejects(session.undoRewind(), /last rewind of \S+ was already undone; there is nothing more to undo/);
  } finally {
    await f.cleanup();
  }
});

test('undo-rewind on a session that was never rewound says so', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([fauxAssistantMessage('only turn')]);
    const session = await f.open();
    await session.submit('hello');
    await session.waitForIdle();
    await assert.rejects(session.undoRewind(), /was never rewound, so there is nothing to undo/);
    await session.close();
    await assert.rejects(undoRewind(f.store, (await f.store.create({ workspaceDir: f.workspace })).id), /was never rewound/);
  } finally {
    await f.cleanup();
  }
});
