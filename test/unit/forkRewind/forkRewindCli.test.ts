import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../../src/cli/run';
import { fauxAssistantMessage, fauxRead, fauxToolCall, sessionFixture } from '../../support/session';
import { addTurn, openStore, tempDir, userMessage, wasmPath } from '../../support/store';

async function braid(root: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--data-dir', root, ...args], {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env: {},
    cwd: '/projects/app',
    wasmPath,
  });
  return { code, out, err };
}

test('braid fork of a running session leaves the running turn out and says so; forkedFrom names the turns copied', async () => {
  const root = tempDir('braid-fork-cli-');
  try {
    const store = await openStore(root);
    const s = await store.create({ workspaceDir: '/projects/app' });
    const writer = await store.openWriter(s.id);
    await addTurn(writer, 'first prompt', 'first answer');
    await addTurn(writer, 'second prompt', 'second answer');
    await writer.beginTurn('p-running', { provider: 'test', id: 'test-model', thinking: 'off' });
    await writer.appendMessage(userMessage('the running prompt'));
    await store.close();

    const text = await braid(root, ['fork', s.id]);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^ses_\w+\n$/);
    assert.equal(text.err, 'braid: turn 3 was still running, so the fork leaves it out and holds the 2 turns that had ended\n');
    const json = await braid(root, ['fork', s.id, '--json']);
    const forked = JSON.parse(json.out) as { id: string; forkedFrom: unknown; turnCount: number; leftOutTurn: number | null };
    assert.deepEqual([forked.forkedFrom, forked.turnCount, forked.leftOutTurn], [{ sessionId: s.id, turn: 2 }, 2, 3]);
    const shown = await braid(root, ['show', forked.id]);
    assert.doesNotMatch(shown.out, /the running prompt|interrupted/);
    await writer.close();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('braid rewind --confirm-outside after a rewind that skipped a file restores it; undo-rewind says when there is nothing to undo', async () => {
  const f = await sessionFixture({ 'edit.txt': 'one\ntwo\n' });
  const cli = (args: string[]) => braid(path.join(f.root, 'store'), [...args]);
  try {
    f.faux.setResponses([
      fauxAssistantMessage('turn one'),
      fauxRead('edit.txt'),
      fauxAssistantMessage(fauxToolCall('edit_file', { path: 'edit.txt', old_text: 'two', new_text: 'TWO' }, { id: 'e' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage('turn two'),
    ]);
    const session = await f.open();
    await session.submit('first');
    await session.waitForIdle();
    await session.submit('change it');
    await session.waitForIdle();
    await session.close();
    const prompt = f.store.history(session.id).messages.find((m) => JSON.stringify(m.message.content).includes('change it'))!;
    assert.match((await cli(['undo-rewind', session.id])).err, /was never rewound, so there is nothing to undo/);
    fs.writeFileSync(path.join(f.workspace, 'edit.txt'), 'edited by hand\n');

    const skipped = await cli(['rewind', session.id, '--to', prompt.id, '--files']);
    assert.equal(skipped.code, 0, skipped.err);
    assert.match(skipped.out, /skipped edit.txt \(changed outside Braid; --confirm-outside to restore them too\)/);
    const preview = await cli(['rewind', session.id, '--to', prompt.id, '--files', '--preview']);
    assert.match(preview.out, /^already rewound to turn 2; restores the files that rewind left/);
    const confirmed = await cli(['rewind', session.id, '--to', prompt.id, '--files', '--confirm-outside']);
    assert.equal(confirmed.code, 0, confirmed.err);
    assert.match(confirmed.out, /already rewound; restored 1 file; undo with: braid undo-rewind/);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'edit.txt'), 'utf8'), 'one\ntwo\n');

    const undone = await cli(['undo-rewind', session.id]);
    assert.equal(undone.code, 0, undone.err);
    assert.match(undone.out, /undid the rewind: 1 turn back, 1 file put back/);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'edit.txt'), 'utf8'), 'edited by hand\n');
    assert.match((await cli(['undo-rewind', session.id])).err, /was already undone; there is nothing more to undo/);
  } finally {
    await f.cleanup();
  }
});
