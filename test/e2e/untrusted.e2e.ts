import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// Workspace Trust: in Restricted Mode the chat still answers and tools still read, but nothing
// writes or runs, and the Chat view says why.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  const baseUrl = await model.start();
  workbench = await Workbench.launch({
    name: 'untrusted',
    untrusted: true,
    settings: {
      'braid.provider': 'openai-compatible',
      'braid.model': 'scripted-model',
      'braid.baseUrl': baseUrl,
      'braid.approval.writes': 'allow',
      'braid.approval.shell': 'allow',
    },
    files: { 'README.md': 'read me\n' },
  });
});

after(async () => {
  await workbench?.close();
  await model.close();
});

test('an untrusted workspace shows a banner, and its tools cannot write files or run commands', async () => {
  await workbench.openBraid();
  const chat = workbench.chatFrame();
  await chat.locator('body[data-handshake="complete"][data-trusted="false"]').waitFor({ timeout: 30_000 });
  const banner = chat.locator('[data-role="untrusted"]');
  assert.equal(await banner.isVisible(), true);
  assert.match((await banner.textContent()) ?? '', /not trusted/);

  model.enqueue(
    {
      kind: 'toolCalls',
      calls: [
        { id: 'r1', name: 'read_file', arguments: JSON.stringify({ path: 'README.md' }) },
        { id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'evil.sh', content: 'echo pwned\n' }) },
        { id: 'b1', name: 'bash', arguments: JSON.stringify({ command: 'touch ran.txt' }) },
      ],
    },
    { kind: 'text', chunks: ['I could only read.'] },
  );
  await workbench.send('Try to change things');
  await chat.locator('.message.assistant', { hasText: 'I could only read.' }).waitFor();
  assert.equal(await chat.locator('.tool', { hasText: 'read_file README.md' }).getAttribute('data-status'), 'done');
  for (const summary of ['write_file evil.sh', 'bash touch ran.txt']) {
    const card = chat.locator('.tool', { hasText: summary });
    assert.equal(await card.getAttribute('data-status'), 'error', summary);
    await card.locator(':scope > summary').click();
    assert.match((await card.locator('.tool-result').textContent()) ?? '', /not trusted/);
  }
  assert.equal(fs.existsSync(path.join(workbench.workspace, 'evil.sh')), false);
  assert.equal(fs.existsSync(path.join(workbench.workspace, 'ran.txt')), false);
  await workbench.screenshot('untrusted-tools-refused');
});
