import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ScriptedModelServer } from '../support/modelServer';
import { until } from '../support/until';
import { Workbench } from '../support/workbench';

// Blame in the editor: a line a Braid turn wrote has a hover naming the turn's prompt (shown as
// text, however it is written) whose link opens the session in the Chat view at that turn; with
// braid.blame.codeLens on, a CodeLens above the lines does the same.
const model = new ScriptedModelServer();
let workbench: Workbench;
const chat = () => workbench.chatFrame();
/** A prompt that would be a command link, an image and bold if the hover took it as Markdown. */
const PROMPT = 'Write the parser [run](command:workbench.action.terminal.new) <img src=x onerror=alert(1)> **now**';
const PARSER = 'export function parse(text: string): string[] {\n  return text.split(/\\s+/);\n}\n';

before(async () => {
  await model.start();
  workbench = await Workbench.launch({ name: 'blame-hover', settings: model.vscodeSettings(), files: { 'README.md': '# Demo\n' } });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

const write = (id: string, file: string, content: string) => ({
  kind: 'toolCalls' as const,
  calls: [{ id, name: 'write_file', arguments: JSON.stringify({ path: file, content }) }],
});

/** Opens `name` of the workspace in an editor through Quick Open. */
async function openFile(name: string): Promise<void> {
  const page = workbench.page;
  await workbench.openPalette();
  await page.locator('.quick-input-widget input').fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Enter');
  await page.locator('.monaco-editor .view-line', { hasText: 'export function parse' }).waitFor({ timeout: 10_000 });
}

/** Ticks braid.blame.codeLens in the Settings editor, as a user does (code-server does not see the user settings file written behind its back). */
async function turnOnCodeLens(): Promise<void> {
  const page = workbench.page;
  await workbench.runCommand('Preferences: Open User Settings');
  await page.locator('.settings-editor').waitFor({ timeout: 10_000 });
  await page.keyboard.type('braid.blame.codeLens');
  const checkbox = page.locator('.settings-editor .setting-item-bool', { hasText: 'Written by Braid' }).locator('.setting-value-checkbox');
  await checkbox.waitFor({ timeout: 10_000 });
  await checkbox.click();
  await page
    .locator('.settings-editor .setting-value-checkbox.checked, .settings-editor .setting-value-checkbox[aria-checked="true"]')
    .waitFor({ timeout: 5_000 });
  // The Settings editor writes the change a moment later: closing it before then drops it.
  const settingsFile = path.join(workbench.profile!.userData, 'User', 'settings.json');
  await until(() => /"braid\.blame\.codeLens": true/.test(fs.readFileSync(settingsFile, 'utf8')), 'the setting is saved');
  // The Settings editor may open as a modal over the editor: Escape closes it (the first may only clear its search).
  const settings = page.locator('.settings-editor');
  for (let attempt = 0; attempt < 3 && (await settings.isVisible()); attempt++) {
    await page.keyboard.press('Escape');
    await settings.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => undefined);
  }
}

test('the hover on a line a turn wrote names its prompt as text, and its link opens the session at that turn', async () => {
  await chat().locator('[data-role="mode"]').selectOption({ label: 'Auto-accept edits' });
  model.enqueue(write('w1', 'parser.ts', PARSER), { kind: 'text', chunks: ['Wrote the parser.'] });
  await workbench.send(PROMPT);
  const id = await chat().locator('body').getAttribute('data-session');
  model.enqueue({ kind: 'text', chunks: ['Nothing to change.'] });
  await workbench.send('Anything else?');
  await workbench.newSession(); // the Chat view shows another session: the link must bring this one back
  assert.equal(fs.readFileSync(path.join(workbench.workspace, 'parser.ts'), 'utf8'), PARSER);

  await openFile('parser.ts');
  const page = workbench.page;
  // A word of the line: a .view-line spans far past its text, where no hover shows.
  await page
    .locator('.monaco-editor .view-line', { hasText: 'return text.split' })
    .locator('span', { hasText: /^split$/ })
    .hover();
  const hover = page.locator('.monaco-hover', { hasText: 'Written by Braid' });
  await hover.waitFor({ timeout: 10_000 });
  const text = (await hover.textContent()) ?? '';
  assert.ok(text.includes(`Written by Braid: ${PROMPT}`), text);
  assert.match(text, /scripted-model · (just now|\d+ min ago) .*· uncommitted/);
  assert.equal(await hover.locator('img').count(), 0, 'the prompt shows no image');
  assert.deepEqual(await hover.locator('a').allTextContents(), ['Open the session at turn 1'], 'its one link');
  await workbench.screenshot('blame-hover');

  await hover.locator('a', { hasText: 'Open the session at turn 1' }).click();
  await chat().locator(`body[data-session="${id}"][data-revealed-turn="1"]`).waitFor({ timeout: 15_000 });
  assert.equal(await chat().locator('mark').count(), 0, 'nothing is marked');
  assert.equal(await page.locator('.monaco-editor .codelens-decoration').count(), 0, 'no CodeLens while braid.blame.codeLens is off');
  await workbench.screenshot('blame-hover-opened-session');
});

test('with braid.blame.codeLens on, a CodeLens above the lines a turn wrote opens its session at that turn', async () => {
  await workbench.newSession();
  await workbench.page.mouse.move(900, 700); // off the line: the hover goes
  await workbench.page.locator('.monaco-hover', { hasText: 'Written by Braid' }).waitFor({ state: 'hidden', timeout: 5_000 });
  await turnOnCodeLens(); // parser.ts stays open: its CodeLenses come as the setting changes
  const lens = workbench.page.locator('.monaco-editor .codelens-decoration', { hasText: 'Written by Braid' });
  await lens.waitFor({ timeout: 15_000 });
  assert.equal(await lens.count(), 1, 'one CodeLens: the three lines are one run of one turn');
  assert.equal((await lens.textContent())?.trim(), `Written by Braid: ${PROMPT.slice(0, 60)}…`);
  await workbench.screenshot('blame-codelens');

  const id = await chat().locator('body').getAttribute('data-session');
  await lens.locator('a').click();
  await chat()
    .locator(`body:not([data-session="${id ?? ''}"])[data-revealed-turn="1"]`)
    .waitFor({ timeout: 15_000 });
  await chat().locator('.message.user', { hasText: 'Write the parser' }).first().waitFor({ timeout: 5_000 });
  await workbench.screenshot('blame-codelens-opened-session');
});
