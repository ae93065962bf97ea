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

// Braid: Sync Sessions with Git Remote… in the real VS Code, this window being machine A and a
// second data folder driven with the CLI being machine B, both syncing through a bare repository.
// The sync shows its dry run (what would come in, what would be sent) in a modal and changes
// nothing before Sync. A turn B adds to A's session comes into the session the chat has open
// (the chat lets go of it for the sync, then writes it again). When both go on, the one that
// syncs second (here A) keeps B's turns in the session and its own in a fork, said with a button
// that opens the fork.
const MACHINE_B = 'machine-b';

const model = new ScriptedModelServer();
let workbench: Workbench;
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-sync-e2e-'));
const remote = path.join(temp, 'sessions.git');
const remoteUrl = `file://${remote}`;
const dataB = path.join(temp, 'machine-b', 'data');
let workspaceB = '';
let sessionId = '';

const git = (...args: string[]) => execFileSync(realGit(), args, { encoding: 'utf8' });
const page = () => workbench.page;
const input = () => page().locator('.quick-input-widget input');
const remoteBox = () => page().locator('.quick-input-widget input[placeholder*="or origin"]');
const dialog = () => page().locator('.monaco-dialog-box');
const toast = (text: string | RegExp) => page().locator('.notification-toast', { hasText: text }).last();

const message = (text: string) => workbench.chatFrame().locator('.message', { hasText: text }).first();
const row = (text: string) => page().locator('.part.sidebar .monaco-list-row', { hasText: text }).first();

before(async () => {
  git('init', '--bare', '-q', remote);
  await model.start();
  workbench = await Workbench.launch({ name: 'sync-sessions', settings: model.vscodeSettings(), files: { 'notes.md': 'one\n' } });
  await workbench.openChat();
  workspaceB = path.join(temp, 'machine-b', path.basename(workbench.workspace));
  fs.mkdirSync(workspaceB, { recursive: true });
});

after(async () => {
  await workbench?.close();
  await model.close();
  fs.rmSync(temp, { recursive: true, force: true });
});

/** Machine B: `braid sync` in its own data folder and checkout of the project. */
async function syncOnB(): Promise<string> {
  const run = await braidIn(['--data-dir', dataB, 'sync', '--remote', remoteUrl], { cwd: workspaceB, env: { BRAID_MACHINE_NAME: MACHINE_B } });
  assert.equal(run.code, 0, run.err + run.out);
  return run.out;
}

/** Machine B adds a turn to the session, as a window of B would. */
async function turnOnB(prompt: string, answer: string): Promise<void> {
  const store = await openStore(dataB);
  try {
    const writer = await store.openWriter(sessionId);
    await addTurn(writer, prompt, answer);
    await writer.close();
  } finally {
    await store.close();
  }
}

/** Runs Sync Sessions…, answers the remote's box (typing `value` when given) and waits for the dry run's dialog; its text. */
async function startSync(value?: string): Promise<string> {
  await workbench.runCommand('Braid: Sync Sessions with Git Remote…');
  await remoteBox().waitFor({ timeout: 10_000 });
  if (value !== undefined) await input().fill(value);
  await input().press('Enter');
  await dialog().waitFor({ timeout: 30_000 });
  return (await dialog().textContent()) ?? '';
}

const confirmSync = () =>
  dialog()
    .locator('.monaco-button', { hasText: /^Sync$/ })
    .click();

test("Sync shows its dry run, then sends this window's session; B's turn on it comes into the chat's open session", async () => {
  model.enqueue({ kind: 'text', chunks: ['Noted on machine A.'] });
  await workbench.send('Keep notes about the deploy');
  sessionId = (await workbench.chatFrame().locator('body').getAttribute('data-session')) ?? '';
  assert.ok(sessionId);

  const first = await startSync(remoteUrl);
  assert.ok(first.includes(`Sync with ${remoteUrl}?`), first);
  assert.ok(first.includes('Would come in: nothing.'), first);
  assert.match(first, /Would be sent: 1 session, 1 turn, [\d.]+ (bytes|KiB) after redaction\./);
  assert.equal(git('--git-dir', remote, 'for-each-ref'), '', 'the dry run sent nothing');
  await workbench.screenshot('sync-confirmation');
  await dialog().locator('.monaco-button', { hasText: 'Show Details' }).click();
  await dialog().waitFor({ timeout: 10_000 }); // asked again, the details open behind it
  await page().locator('.tab', { hasText: 'Push Review' }).waitFor({ timeout: 10_000 });
  const details = ((await page().locator('.monaco-editor .view-lines').first().textContent()) ?? '').replace(/\u00a0/g, ' ');
  assert.ok(details.includes(`Sync with ${remoteUrl}: what would come in`), details);
  assert.ok(details.includes(`${sessionId} `), details);
  await confirmSync();
  await toast(`Synced with ${remoteUrl}: in 0 new, 0 updated; out 1 session.`).waitFor({ timeout: 30_000 });
  await page().locator('.pane-header .description', { hasText: 'synced just now' }).waitFor({ timeout: 10_000 });

  // Machine B takes the session in, goes on with it and syncs.
  assert.match(await syncOnB(), /In: 1 new/);
  await turnOnB('What did machine B find?', 'Machine B found the deploy script.');
  await syncOnB();

  const second = await startSync();
  assert.ok(second.includes('Would come in: 0 new, 1 updated.'), second);
  // The Push Review tab left open by the first dry run shows this one's, not the first's.
  await page()
    .locator('.monaco-editor .view-lines', { hasText: `from ${MACHINE_B}: updated` })
    .first()
    .waitFor({ timeout: 10_000 });
  await confirmSync();
  await toast(`Synced with ${remoteUrl}: in 0 new, 1 updated; out 0 sessions, 1 up to date.`).waitFor({ timeout: 30_000 });
  await message('Machine B found the deploy script.').waitFor({ timeout: 15_000 });
  assert.equal(await workbench.chatFrame().locator('body').getAttribute('data-session'), sessionId, 'the chat shows the same session');
  await workbench.screenshot('sync-brought-turn');

  // Written here again: a prompt goes on in the session after B's turn.
  model.enqueue({ kind: 'text', chunks: ['Machine A goes on.'] });
  await workbench.send('Go on from what machine B found');
  await message('Machine A goes on.').waitFor({ timeout: 15_000 });
});

test('a session continued on both machines becomes a fork here, syncing second: the session holds B’s turns, the fork this window’s', async () => {
  // The first test's notices go, so this sync's two (its outcome and the fork's) both show as toasts: VS Code shows three at most.
  await workbench.runCommand('Notifications: Clear All Notifications');
  // B goes on from where it last synced (without A's last turn) and syncs first.
  await turnOnB('Machine B goes on too', 'Machine B wrote the rollback plan.');
  await syncOnB();

  const text = await startSync();
  assert.ok(text.includes('Would come in: 0 new, 1 updated.'), text);
  await confirmSync();
  const forked = await workbench.notice(/went on on machine-b too: it now holds those turns; your turns are in the fork/);
  const sentence = (await forked.textContent()) ?? '';
  assert.ok(sentence.includes(`"Keep notes about the deploy" went on on ${MACHINE_B} too`), sentence);
  assert.ok(sentence.includes(`your turns are in the fork "Keep notes about the deploy (on `), sentence);
  await workbench.notice(/in 0 new, 1 updated \(1 forked\)/);
  // The chat's session holds B's turns now, not this window's last one.
  await message('Machine B wrote the rollback plan.').waitFor({ timeout: 15_000 });
  assert.equal(await workbench.chatFrame().locator('.message', { hasText: 'Machine A goes on.' }).count(), 0);
  await workbench.screenshot('sync-forked');

  // Found again: a toast goes when the notification center opens for another notice.
  const again = await workbench.notice(/went on on machine-b too: it now holds those turns; your turns are in the fork/);
  await again.locator('.monaco-button', { hasText: 'Open Fork' }).click();
  await message('Machine A goes on.').waitFor({ timeout: 15_000 });
  const forkId = await workbench.chatFrame().locator('body').getAttribute('data-session');
  assert.notEqual(forkId, sessionId, 'the chat shows the fork');
  const fork = row('Keep notes about the deploy (on ');
  await fork.waitFor({ timeout: 15_000 });
  assert.equal(await fork.locator('.codicon-repo-forked').count(), 1, 'a fork in the Sessions tree');
  await workbench.screenshot('sync-fork-opened');
});
