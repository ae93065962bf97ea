import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { braidIn } from '../support/cli';
import { realGit } from '../support/hostileRepo';
import { ScriptedModelServer } from '../support/modelServer';
import { addTurn, openStore } from '../support/store';
import { Workbench } from '../support/workbench';

// Sessions through git in the real VS Code: Push Sessions to Git Remote… picks this workspace's
// sessions, asks for the remote (no default the first time), shows the dry run (turns, bytes,
// redactions by kind; Show Details lists each one) in a modal and pushes only on Push; the bare
// repository then holds the session's ref, without the key or the workspace's path. A second push
// finds nothing new, the input box starting with the remote used. Pull Shared Sessions from Git
// Remote… brings the session another machine (another data folder, the CLI) pushed there, and the
// Sessions tree shows it; the view's description says the last push or pull.
const KEY = 'sk-proj-Zq8vT3kLm9Xw2Rb7Yc4Nd6Pf1Gh5Js0Ua';
// The key comes after the title's 50 characters: a title cut from the prompt would hold a part of
// it, which no redaction of known keys (exact values) can find.
const PROMPT = `Add a line to notes.md about the deploy settings; the key is ${KEY}`;
const OTHER_TITLE = 'Shared from machine B';

const model = new ScriptedModelServer();
let workbench: Workbench;
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-share-e2e-'));
const remote = path.join(temp, 'sessions.git');
const remoteUrl = `file://${remote}`;

const git = (...args: string[]) => execFileSync(realGit(), args, { encoding: 'utf8' });
const page = () => workbench.page;
const input = () => page().locator('.quick-input-widget input');
/** The remote's input box (its placeholder tells it from the quick pick before it). */
const remoteBox = () => page().locator('.quick-input-widget input[placeholder*="or origin"]');
const dialog = () => page().locator('.monaco-dialog-box');
const toast = (text: string) => page().locator('.notification-toast', { hasText: text }).last();
const viewDescription = () => page().locator('.pane-header .description', { hasText: /^(pushed|pulled) / });

before(async () => {
  git('init', '--bare', '-q', remote);
  await model.start();
  workbench = await Workbench.launch({
    name: 'share-sessions',
    settings: model.vscodeSettings(),
    files: { 'notes.md': 'one\n' },
    env: { BRAID_API_KEY: KEY },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
  fs.rmSync(temp, { recursive: true, force: true });
});

/** Runs Push Sessions…, checks every session of the workspace and answers the remote's input box with `value` (undefined: as it starts). */
async function startPush(value: string | undefined): Promise<string> {
  await workbench.runCommand('Braid: Push Sessions to Git Remote…');
  const all = page().locator('.quick-input-list .monaco-list-row', { hasText: 'All sessions of this workspace' });
  await all.waitFor({ timeout: 10_000 });
  await all.click();
  await input().press('Enter');
  await remoteBox().waitFor({ timeout: 10_000 });
  const startedWith = await input().inputValue();
  if (value !== undefined) await input().fill(value);
  await input().press('Enter');
  return startedWith;
}

test('Push shows the dry run with its redactions and sends the session only on Push', async () => {
  model.enqueue({ kind: 'text', chunks: ['Noted.'] });
  await workbench.send(PROMPT);
  const id = await workbench.chatFrame().locator('body').getAttribute('data-session');
  assert.ok(id);

  const startedWith = await startPush(remoteUrl);
  assert.equal(startedWith, '', 'no default remote on first use');
  await dialog().waitFor({ timeout: 30_000 });
  const text = (await dialog().textContent()) ?? '';
  assert.ok(text.includes(`Push 1 session to ${remoteUrl}?`), text);
  assert.match(text, /1 session would be sent: 1 turn, [\d.]+ (bytes|KiB) after redaction\./);
  assert.match(text, /Redacted: \d+ [\w-]+/);
  assert.doesNotMatch(text, /Redacted: nothing/, 'the key and the workspace path are redacted');
  assert.equal(git('--git-dir', remote, 'for-each-ref'), '', 'the dry run sent nothing');
  await workbench.screenshot('push-confirmation');

  await dialog().locator('.monaco-button', { hasText: 'Show Details' }).click();
  await dialog().waitFor({ timeout: 10_000 }); // asked again, the details open behind it
  await page().locator('.tab', { hasText: 'Push Review' }).waitFor({ timeout: 10_000 });
  // The editor renders spaces as no-break spaces.
  const details = ((await page().locator('.monaco-editor .view-lines').first().textContent()) ?? '').replace(/\u00a0/g, ' ');
  assert.match(details, /what would be sent \(nothing has been sent yet; titles as they are sent\)/);
  assert.ok(details.includes(`${id} `), details);
  assert.match(details, /redacted \S+ in .+: /);
  assert.ok(!details.includes('sk-proj-'), 'the details show samples and the title as sent, never the key');
  await workbench.screenshot('push-details');

  await dialog()
    .locator('.monaco-button', { hasText: /^Push$/ })
    .click();
  await toast(`Pushed 1 session to ${remoteUrl}.`).waitFor({ timeout: 30_000 });
  await viewDescription().filter({ hasText: 'pushed just now' }).waitFor({ timeout: 10_000 });
  await workbench.screenshot('push-result');
  await page().locator('.part.statusbar .statusbar-item', { hasText: 'scripted-model' }).hover();
  const tooltip = page().locator('.monaco-hover, .workbench-hover', { hasText: 'Last push:' }).first();
  await tooltip.waitFor({ timeout: 10_000 });
  assert.ok(((await tooltip.textContent()) ?? '').includes(`Last push: 1 session to ${remoteUrl}`));
  await page().mouse.move(700, 200);

  const refs = git('--git-dir', remote, 'for-each-ref', '--format=%(refname)').trim().split('\n');
  assert.equal(refs.length, 1, refs.join('\n'));
  assert.match(refs[0]!, new RegExp(`^refs/braid/[0-9a-z]{26}/${id}$`));
  const objects = execFileSync(realGit(), ['--git-dir', remote, 'cat-file', '--batch-all-objects', '--batch'], { encoding: 'latin1' });
  assert.ok(objects.includes('Noted.'), 'the remote holds the turn');
  assert.ok(!objects.includes('sk-proj-'), 'never the key Braid knows');
  assert.ok(!objects.includes(workbench.workspace), "never the workspace's absolute path");
});

test('a second push starts with the remote used and finds nothing new to send', async () => {
  const startedWith = await startPush(undefined);
  assert.equal(startedWith, remoteUrl);
  await toast(`Nothing to push to ${remoteUrl}. 1 session is up to date there.`).waitFor({ timeout: 30_000 });
  assert.equal(await dialog().count(), 0, 'no confirmation when nothing would be sent');
});

test("Pull brings the session another machine pushed into the Sessions tree, and leaves this machine's own", async () => {
  // Machine B: a data folder of its own, the project checked out under the same folder name.
  const dataB = path.join(temp, 'machine-b', 'data');
  const workspaceB = path.join(temp, 'machine-b', path.basename(workbench.workspace));
  fs.mkdirSync(workspaceB, { recursive: true });
  const store = await openStore(dataB);
  try {
    const session = await store.create({ workspaceDir: workspaceB });
    const writer = await store.openWriter(session.id);
    await addTurn(writer, 'What is in notes.md?', 'It says one.');
    await writer.close();
    await store.rename(session.id, OTHER_TITLE);
  } finally {
    await store.close();
  }
  const pushed = await braidIn(['--data-dir', dataB, 'push', '--all', '--remote', remoteUrl], { cwd: workspaceB });
  assert.equal(pushed.code, 0, pushed.err + pushed.out);

  await workbench.runCommand('Braid: Pull Shared Sessions from Git Remote…');
  await remoteBox().waitFor({ timeout: 10_000 });
  assert.equal(await input().inputValue(), remoteUrl);
  await input().press('Enter');
  await toast(`Pulled 1 new, 0 updated from ${remoteUrl}.`).waitFor({ timeout: 30_000 });
  // A pulled session sits in the Sessions tree's Shared group, which opens on a click.
  const shared = page()
    .locator('.part.sidebar .monaco-list-row', { hasText: /^Shared/ })
    .first();
  await shared.waitFor({ timeout: 15_000 });
  await shared.click();
  await page().locator('.part.sidebar .monaco-list-row', { hasText: OTHER_TITLE }).first().waitFor({ timeout: 15_000 });
  await viewDescription().filter({ hasText: 'pulled just now' }).waitFor({ timeout: 10_000 });
  await workbench.screenshot('pull-result');
});

test('in an untrusted workspace Push and Pull refuse before asking anything', async () => {
  const untrusted = await Workbench.launch({ name: 'share-sessions-untrusted', untrusted: true, settings: model.vscodeSettings() });
  try {
    await untrusted.openBraid();
    for (const [command, verb] of [
      ['Braid: Push Sessions to Git Remote…', 'push'],
      ['Braid: Pull Shared Sessions from Git Remote…', 'pull'],
    ] as const) {
      await untrusted.runCommand(command);
      const refusal = `Braid runs no git in an untrusted workspace; trust the folder to ${verb} sessions.`;
      await untrusted.page.locator('.notification-toast', { hasText: refusal }).waitFor({ timeout: 15_000 });
      assert.equal(await untrusted.page.locator('.quick-input-widget input[placeholder*="or origin"]').count(), 0, 'no remote asked');
    }
    await untrusted.screenshot('untrusted-refusal');
  } finally {
    await untrusted.close();
  }
});
