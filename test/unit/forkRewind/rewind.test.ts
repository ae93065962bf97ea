import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { previewRewind } from '../../../src/core/store/rewind';
import type { MessageRecord } from '../../../src/core/wire/records';
import { fauxAssistantMessage, fauxToolCall, sessionFixture } from '../../support/session';

const binary = Buffer.from([0, 1, 2, 3, 255, 254, 0, 10]);

test('rewind with files restores modified, created and deleted files (text and binary); undo puts everything back', async () => {
  const f = await sessionFixture({ 'keep.txt': 'keep\n', 'edit.txt': 'one\ntwo\n', 'gone.txt': 'will be deleted\n' });
  fs.writeFileSync(path.join(f.workspace, 'data.bin'), binary);
  try {
    f.faux.setResponses([
      fauxAssistantMessage('turn one'),
      fauxAssistantMessage([
        fauxToolCall('edit_file', { path: 'edit.txt', old_text: 'two', new_text: 'TWO\nthree' }, { id: 'e' }),
        fauxToolCall('write_file', { path: 'new/created.txt', content: 'fresh\n' }, { id: 'w' }),
        fauxToolCall('bash', { command: 'rm gone.txt && printf "\\x07\\x08" >> data.bin' }, { id: 'b' }),
      ], { stopReason: 'toolUse' }),
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
    const prompt = f.store.history(session.id).messages.find((m) => m.message.role === 'user' && JSON.stringify(m.message.content).includes('change the files')) as MessageRecord;

    const preview = previewRewind(f.store, session.id, prompt.id);
    assert.equal(preview.toTurn, 2);
    assert.equal(preview.turnsDropped, 2);
    assert.equal(preview.text, 'change the files');
    assert.deepEqual(preview.files.map((x) => [x.path, x.action, x.changedOutside]).sort(), [
      ['data.bin', 'restore', false], ['edit.txt', 'restore', false], ['gone.txt', 'recreate', false], ['new/created.txt', 'delete', false],
    ]);
    assert.deepEqual(preview.files.find((x) => x.path === 'edit.txt')!.added, 1);
    assert.deepEqual(preview.commands, ['rm gone.txt && printf "\\x07\\x08" >> data.bin']);

    const result = await session.rewind(prompt.id, { files: true });
    assert.equal(result.text, 'change the files');
    assert.equal(fs.readFileSync(path.join(f.workspace, 'edit.txt'), 'utf8'), 'one\ntwo\n');
    assert.equal(fs.readFileSync(path.join(f.workspace, 'gone.txt'), 'utf8'), 'will be deleted\n');
    assert.ok(fs.readFileSync(path.join(f.workspace, 'data.bin')).equals(binary));
    assert.equal(fs.existsSync(path.join(f.workspace, 'new/created.txt')), false);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'keep.txt'), 'utf8'), 'keep\n');
    assert.deepEqual(session.messages.map((m) => m.role), ['user', 'assistant']);
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
