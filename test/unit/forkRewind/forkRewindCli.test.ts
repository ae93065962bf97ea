import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { runCli } from '../../../src/cli/run';
import { addTurn, openStore, tempDir, userMessage, wasmPath } from '../../support/store';

async function braid(root: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--data-dir', root, ...args], { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env: {}, cwd: '/projects/app', wasmPath });
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
    assert.equal(text.err, 'braid: turn 3 was still running, so the fork leaves it out and holds the 2 turn(s) that had ended\n');
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
