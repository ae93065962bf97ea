import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { promptHooks } from '../../support/hooks';
import { tempDir } from '../../support/store';

const cwd = tempDir('braid-hook-');
after(() => fs.rmSync(cwd, { recursive: true, force: true }));
// Far more than a pipe holds, so the hook exits while its input is still being written.
const largePrompt = 'x'.repeat(4 * 1024 * 1024);
const info = { sessionId: 'ses_x', transcriptPath: '', workspaceDir: cwd };

test('a blocking hook that exits without reading its input blocks with its reason, for a small and a large prompt', async () => {
  for (const prompt of ['a small prompt', largePrompt]) {
    const result = await promptHooks('echo "no prompts today" >&2; exit 2').run('UserPromptSubmit', info, { prompt });
    assert.deepEqual(result, { block: 'no prompts today', context: [], warnings: [] }, `prompt of ${prompt.length} characters`);
  }
});

test('a hook that adds context without reading its input still adds it', async () => {
  const result = await promptHooks('echo "extra context"').run('UserPromptSubmit', info, { prompt: largePrompt });
  assert.deepEqual(result, { context: ['extra context'], warnings: [] });
});
