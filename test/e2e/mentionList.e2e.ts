import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Workbench } from '../support/workbench';

// The `@` list as a newcomer meets it in a git repository: the first `@` typed after the window
// loads lists the workspace's files (it waits for the listing), and what .gitignore ignores
// (node_modules' READMEs) is not listed unless the query names the ignored folder.
let workbench: Workbench;

function files(): Record<string, string> {
  const out: Record<string, string> = {
    '.gitignore': 'node_modules/\n',
    'README.md': '# greeter\n',
    'src/greet.ts': 'export const greet = (name: string) => `Hello, ${name}`;\n',
    'docs/usage.md': 'Call greet.\n',
  };
  for (let i = 0; i < 28; i++) out[`node_modules/pkg${i}/README.md`] = `# pkg${i}\n`;
  return out;
}

before(async () => {
  workbench = await Workbench.launch({ name: 'mention-list', files: files(), repository: true });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
});

/** The `@` list's lines as "label detail". */
const listed = () =>
  workbench
    .chatFrame()
    .locator('.completion.mention')
    .evaluateAll((options) => options.map((o) => (o.textContent ?? '').trim()));

test('the first @ after the window loads lists the workspace files', async () => {
  const chat = workbench.chatFrame();
  await chat.locator('[data-role="input"]').fill('@');
  await chat.locator('.completion.mention').first().waitFor({ timeout: 15_000 });
  await chat.locator('.completion.mention', { hasText: 'greet.ts' }).waitFor({ timeout: 15_000 });
  const lines = await listed();
  await workbench.screenshot('first-at-lists-files');
  for (const name of ['README.md', 'src/greet.ts', 'docs/usage.md'])
    assert.ok(
      lines.some((l) => l.endsWith(name)),
      `${name} is listed: ${JSON.stringify(lines)}`,
    );
  assert.ok(!lines.some((l) => l.includes('node_modules')), `no ignored file is listed: ${JSON.stringify(lines)}`);
  await chat.locator('[data-role="input"]').fill('');
});

test('@READ lists the README git tracks, none of the 28 under the ignored node_modules; naming the folder lists them', async () => {
  const chat = workbench.chatFrame();
  const input = chat.locator('[data-role="input"]');
  await input.fill('@READ');
  await chat.locator('.completion.mention', { hasText: 'README.md' }).first().waitFor({ timeout: 15_000 });
  const lines = await listed();
  await workbench.screenshot('at-read-tracked-only');
  assert.deepEqual(
    lines.filter((l) => l.includes('README')),
    ['README.md README.md'],
  );
  await input.fill('@node_modules/READ');
  await chat.locator('.completion.mention', { hasText: 'node_modules/pkg' }).first().waitFor({ timeout: 15_000 });
  const asked = (await listed()).filter((l) => l.includes('node_modules/pkg'));
  await workbench.screenshot('at-node-modules-asked-for');
  assert.ok(asked.length >= 20, `naming the ignored folder lists its files: ${asked.length}`);
  await input.fill('');
});
