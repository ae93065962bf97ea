import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { openStore, repoRoot } from '../support/store';
import { ScriptedModelServer } from '../support/modelServer';
import { TEST_ORIGIN } from '../support/sharedSession';
import { Workbench } from '../support/workbench';

// A session pulled from a git remote in a real VS Code: the Sessions tree lists it in a Shared
// group with who shared it, its context menu offers Fork but no Rewind, the chat shows it
// read-only with where it came from, and a fork of it opens writable.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({ name: 'shared-sessions', settings: model.vscodeSettings(), files: { 'README.md': '# Shared sessions\n' } });
});

after(async () => {
  await workbench?.close();
  await model.close();
});

/** One headless turn with a scripted answer, through the CLI on the workbench's storage; returns the session's id. */
async function exec(prompt: string): Promise<string> {
  model.enqueue({ kind: 'text', chunks: ['Done.'] });
  const env = { ...process.env, BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: model.baseUrl };
  const cli = (args: string[]) =>
    promisify(execFile)(
      process.execPath,
      [path.join(repoRoot, 'dist', 'cli.js'), '--data-dir', workbench.globalStorage, '--workspace', workbench.workspace, ...args],
      {
        env,
        encoding: 'utf8',
      },
    );
  await cli(['exec', prompt]);
  const listed = JSON.parse((await cli(['list', '--json'])).stdout) as Array<{ id: string; title: string }>;
  return listed.find((s) => s.title === prompt)!.id;
}

/** A row of the side bar's trees (the Braid container shows only the Sessions tree there). */
const row = (text: string | RegExp) => workbench.page.locator('.part.sidebar .monaco-list-row', { hasText: text }).first();

test('a pulled session sits in the Shared group, offers Fork but no Rewind, and opens read-only; its fork opens writable', async () => {
  await workbench.openChat();
  await exec('Mine to keep');
  const id = await exec('Ada wrote the parser');
  // As braid pull leaves it: state.json says where it came from.
  const store = await openStore(workbench.globalStorage);
  await store.update(id, (s) => ({ ...s, shared: TEST_ORIGIN }));
  await store.close();

  const group = row(/^Shared/);
  await group.waitFor({ timeout: 10_000 });
  assert.match((await group.textContent()) ?? '', /Shared\s*1/);
  assert.equal(await row('Mine to keep').getAttribute('aria-level'), '1');
  await group.click();
  const pulled = row('Ada wrote the parser');
  await pulled.waitFor({ timeout: 5_000 });
  assert.equal(await pulled.getAttribute('aria-level'), '2', 'it sits in the Shared group');
  assert.match((await pulled.textContent()) ?? '', /Ada@ada-laptop/);

  await workbench.contextMenuItem(pulled, 'Fork Session');
  const items = await workbench.page.locator('.context-view .action-item').allTextContents();
  assert.ok(!items.some((text) => /^Rewind/.test(text.trim())), `no Rewind in ${items.join(', ')}`);
  await workbench.screenshot('shared-context-menu');
  await workbench.page.keyboard.press('Escape');

  await pulled.click();
  const chat = workbench.chatFrame();
  await chat.locator(`body[data-session="${id}"][data-read-only="true"]`).waitFor({ timeout: 10_000 });
  assert.equal(
    await chat.locator('[data-role="read-only"]').textContent(),
    `This session was pulled from ${TEST_ORIGIN.remote} (Ada on ada-laptop); it is read-only here. Fork it to continue.`,
  );
  assert.equal(await chat.locator('[data-role="input"]').isDisabled(), true);
  const prompt = chat.locator('.message.user', { hasText: 'Ada wrote the parser' });
  assert.equal(await prompt.locator('.message-actions', { hasText: 'Rewind' }).count(), 0, 'no Rewind on its prompts');
  await workbench.screenshot('shared-read-only');

  await workbench.pickContextMenuItem(pulled, 'Fork Session');
  const fork = row('Fork of Ada wrote the parser');
  await fork.waitFor({ timeout: 10_000 });
  assert.equal(await fork.getAttribute('aria-level'), '1', 'the fork is a session of this machine, with the others');
  await chat.locator('body[data-read-only="false"]').waitFor({ timeout: 10_000 });
  assert.notEqual(await chat.locator('body').getAttribute('data-session'), id, 'the chat shows the fork');
  await workbench.screenshot('shared-forked');
});
