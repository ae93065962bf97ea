import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { runPromptHook } from '../../../src/core/session/preflight';
import { tempDir } from '../../support/store';

const cwd = tempDir('braid-hook-');
after(() => fs.rmSync(cwd, { recursive: true, force: true }));
// Far more than a pipe holds, so the hook exits while its input is still being written.
const largePrompt = 'x'.repeat(4 * 1024 * 1024);

test('a blocking hook that exits without reading its input blocks with its reason, for a small and a large prompt', async () => {
  for (const prompt of ['a small prompt', largePrompt]) {
    const result = await runPromptHook('echo "no prompts today" >&2; exit 2', { prompt, sessionId: 'ses_x', cwd });
    assert.deepEqual(result, { blocked: true, reason: 'no prompts today' }, `prompt of ${prompt.length} characters`);
  }
});

test('a hook that adds context without reading its input still adds it', async () => {
  const result = await runPromptHook('echo "extra context"', { prompt: largePrompt, sessionId: 'ses_x', cwd });
  assert.deepEqual(result, { blocked: false, context: 'extra context' });
});
