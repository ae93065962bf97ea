import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { repoRoot } from '../support/store';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// The Sessions tree in a real VS Code: archive / restore / delete / undo from the context menu,
// Open Session finding a session by a word of a later prompt, the all-workspaces toggle,
// relative times that stay true, and a fork made elsewhere showing under a folded source.
// Sessions are made with the CLI against the profile's storage, so nothing here depends on the
// Chat webview's markup beyond `body[data-session]`.
const model = new ScriptedModelServer();
let workbench: Workbench;
let otherWorkspace: string;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'sessions-tree',
    settings: model.vscodeSettings(),
    files: { 'README.md': '# A workspace for the Sessions tree\n' },
  });
  otherWorkspace = fs.mkdtempSync(path.join(path.dirname(workbench.workspace), 'other-project-'));
});

after(async () => {
  await workbench?.close();
  await model.close();
});

interface ListedSession {
  id: string;
  title: string;
  archived: boolean;
  workspaceDir: string;
  updatedAt: string;
}

/**
 * Runs the CLI on the workbench's storage; async so the scripted model server can answer it.
 * `behindMs`: the CLI's clock runs that far behind, so what it writes is that old already.
 */
async function braid(args: string[], workspace = workbench.workspace, behindMs = 0): Promise<string> {
  const env = { ...process.env, BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: model.baseUrl };
  const clock = behindMs ? ['--require', path.join(repoRoot, 'out', 'test', 'workers', 'clockBehind.cjs')] : [];
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...clock, path.join(repoRoot, 'dist', 'cli.js'), '--data-dir', workbench.globalStorage, '--workspace', workspace, ...args],
    { env: { ...env, BRAID_CLOCK_BEHIND_MS: String(behindMs) }, encoding: 'utf8' },
  );
  return stdout;
}

/** One headless turn with a scripted answer, made `ageMs` ago; returns the session's id. */
async function exec(prompt: string, options: { session?: string; workspace?: string; ageMs?: number } = {}): Promise<string> {
  model.enqueue({ kind: 'text', chunks: ['Done.'] });
  await braid(['exec', ...(options.session ? ['--session', options.session] : []), prompt], options.workspace, options.ageMs);
  const sessions = await list(options.workspace);
  return options.session ?? sessions.find((s) => s.title === prompt)!.id;
}

async function list(workspace?: string, archived = false): Promise<ListedSession[]> {
  return JSON.parse(await braid(['list', '--json', ...(archived ? ['--archived'] : [])], workspace)) as ListedSession[];
}

/** A row of the side bar's trees (the Braid container shows only the Sessions tree there). */
const row = (text: string | RegExp) => workbench.page.locator('.part.sidebar .monaco-list-row', { hasText: text }).first();

/** Right-clicks a tree row and picks a context-menu item. */
async function contextMenu(text: string, item: string, shot?: string): Promise<void> {
  await workbench.pickContextMenuItem(row(text), item, shot);
}

/** Clicks a Sessions view title action (shown while the pane header is hovered). */
async function titleAction(label: string): Promise<void> {
  const header = workbench.page.locator('.pane-header', { hasText: 'Sessions' }).first();
  await header.hover();
  await header.locator(`.action-label[aria-label="${label}"]`).click();
}

test('archive, restore, delete and undo from the tree context menu', async () => {
  await workbench.openChat();
  const id = await exec('Archive me later');
  await row('Archive me later').waitFor({ timeout: 5_000 });
  assert.equal(await row('Archive me later').getAttribute('aria-level'), '1');

  await contextMenu('Archive me later', 'Archive Session', 'context-menu-live');
  const group = row(/^Archived/);
  await group.waitFor({ timeout: 5_000 });
  assert.match((await group.textContent()) ?? '', /Archived\s*1/, 'the group shows its count');
  await group.click();
  await row('Archive me later').waitFor({ timeout: 5_000 });
  assert.equal(await row('Archive me later').getAttribute('aria-level'), '2', 'the session sits in the Archived group');
  assert.deepEqual(
    (await list(undefined, true)).map((s) => s.id),
    [id],
  );
  await workbench.screenshot('archived-group');

  await contextMenu('Archive me later', 'Restore Session', 'context-menu-archived');
  await group.waitFor({ state: 'detached', timeout: 5_000 });
  assert.equal(await row('Archive me later').getAttribute('aria-level'), '1', 'back at the top level');
  assert.ok((await list()).some((s) => s.id === id && !s.archived));
  await workbench.screenshot('restored');

  await contextMenu('Archive me later', 'Delete Session');
  const toast = workbench.page.locator('.notification-toast', { hasText: 'Deleted "Archive me later"' });
  await toast.waitFor({ timeout: 5_000 });
  await row('Archive me later').waitFor({ state: 'detached', timeout: 5_000 });
  assert.equal(
    (await list()).some((s) => s.id === id),
    false,
    'the CLI no longer lists it',
  );
  assert.ok(fs.existsSync(path.join(workbench.globalStorage, 'trash')), 'it went to the trash');
  await workbench.screenshot('deleted-with-undo');

  await toast.locator('.monaco-button', { hasText: 'Undo' }).click();
  await row('Archive me later').waitFor({ timeout: 5_000 });
  assert.ok(
    (await list()).some((s) => s.id === id),
    'undo brought it back on disk',
  );
  await workbench.screenshot('undeleted');
});

test('Open Session finds a session by a word that is only in one of its later prompts', async () => {
  await exec('Plan the release');
  const logo = await exec('Sketch the logo');
  await exec('Write the docs');
  await exec('Use the zephyrine palette for it', { session: logo });
  assert.ok(!(await list()).some((s) => /zephyrine/i.test(s.title)), 'the word is in no title');

  await workbench.runCommand('Braid: Open Session...');
  const input = workbench.page.locator('.quick-input-widget input');
  await input.fill('zephyrine');
  const items = workbench.page.locator('.quick-input-list .monaco-list-row');
  // The list first shows recent sessions; it narrows to the index's matches as the value changes.
  const deadline = Date.now() + 5_000;
  while ((await items.count()) !== 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await items.count(), 1, 'only the session with that word is offered');
  await items.filter({ hasText: 'Sketch the logo' }).waitFor({ timeout: 1_000 });
  await workbench.screenshot('open-session-search');
  await input.press('Enter');
  await workbench.chatFrame().locator(`body[data-session="${logo}"]`).waitFor({ timeout: 10_000 });
  await workbench.screenshot('open-session-opened');
});

test("Show All Workspaces lists another workspace's sessions under its folder, and Show This Workspace hides them", async () => {
  await exec('Tune the other build', { workspace: otherWorkspace });
  assert.equal(
    (await list()).some((s) => s.title === 'Tune the other build'),
    false,
  );
  assert.equal(await row('Tune the other build').count(), 0, 'not shown for this workspace');

  await titleAction('Show All Workspaces');
  const here = row(/this workspace/);
  await here.waitFor({ timeout: 5_000 });
  assert.match((await here.textContent()) ?? '', new RegExp(path.basename(workbench.workspace)));
  assert.equal(await here.getAttribute('aria-level'), '1');
  const other = row(path.basename(otherWorkspace));
  await other.waitFor({ timeout: 5_000 });
  assert.match((await other.textContent()) ?? '', new RegExp(otherWorkspace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'the description is the path');
  await other.click();
  await row('Tune the other build').waitFor({ timeout: 5_000 });
  assert.equal(await row('Tune the other build').getAttribute('aria-level'), '2');
  assert.equal(await row('Plan the release').getAttribute('aria-level'), '2', "this workspace's sessions sit under its node");
  await workbench.screenshot('all-workspaces');

  await titleAction('Show This Workspace');
  await row('Tune the other build').waitFor({ state: 'detached', timeout: 5_000 });
  assert.equal(await row('Plan the release').getAttribute('aria-level'), '1');
  await workbench.screenshot('this-workspace-again');
});

test('relative times stay true: a session turns "1 min ago" when it is a minute old, not a minute later', async () => {
  await workbench.page.mouse.move(800, 400); // no tooltip of the title actions over the rows
  // The session is made 30 s old (the CLI's clock runs behind): it turns a minute old about 30 s
  // from now, with the view open all along, instead of a whole minute from now; until then
  // it shows "just now", which leaves a busy machine 30 s to show the row.
  const id = await exec('Watch the clock', { ageMs: 30_000 });
  const updatedAt = Date.parse((await list()).find((s) => s.id === id)!.updatedAt);
  assert.ok(Date.now() - updatedAt >= 30_000, 'the session was written 30 s in the past');
  const clock = row('Watch the clock');
  await clock.waitFor({ timeout: 5_000 });
  const age = Date.now() - updatedAt;
  assert.match((await clock.textContent()) ?? '', /just now/, `the row, ${age} ms old, shows "just now"`);
  await workbench.screenshot('times-just-now');
  // The tree redraws when the first shown time changes; a fixed minute from activation left
  // "just now" up to two minutes. 15 s of slack for a busy machine.
  await clock.filter({ hasText: '1 min ago' }).waitFor({ timeout: Math.max(1_000, updatedAt + 75_000 - Date.now()) });
  const late = Date.now() - (updatedAt + 60_000);
  assert.ok(late >= 0, 'not before the minute');
  console.log(`"1 min ago" shown ${late} ms after the session turned a minute old (as seen by the test's polling)`);
  await workbench.screenshot('times-one-minute-ago');
});

test('a fork made elsewhere (the CLI, another window, an import) shows under a source the tree had shown folded', async () => {
  // A session with a subagent is shown folded (its subagents are read on expand).
  model.enqueue({ kind: 'toolCalls', calls: [{ id: 'task1', name: 'task', arguments: '{"description":"Look around","prompt":"List the files."}' }] });
  model.enqueue({ kind: 'text', chunks: ['One file: README.md.'] });
  await exec('Delegate a look at the files');
  const source = (await list()).find((s) => s.title === 'Delegate a look at the files')!.id;
  const sourceRow = row('Delegate a look at the files');
  await sourceRow.waitFor({ timeout: 5_000 });
  assert.equal(await sourceRow.getAttribute('aria-expanded'), 'false', 'folded while it has only subagents');

  // Its first fork comes from outside this window: the source unfolds to show it.
  await braid(['fork', source, '--title', 'Second look at the files']);
  await row('Second look at the files').waitFor({ timeout: 10_000 });
  assert.equal(await row('Second look at the files').getAttribute('aria-level'), '2', 'under its source');
  await workbench.screenshot('fork-from-elsewhere');
});

test("Fork This Agent on a subagent's row makes a session of its conversation, under the source, opened in the Chat view", async () => {
  // The session of the test before: a subagent "Look around", and the source unfolded by its fork.
  const subagent = row(/^Look around/);
  await subagent.waitFor({ timeout: 10_000 });
  await contextMenu('Look around', 'Fork This Agent', 'context-menu-subagent');
  const forkRow = row(/Fork of agent "Look around"/);
  await forkRow.waitFor({ timeout: 10_000 });
  assert.equal(await forkRow.getAttribute('aria-level'), '2', 'under its source');
  assert.match((await forkRow.textContent()) ?? '', /from a subagent/);
  await workbench.chatFrame().locator('[data-role="title"]', { hasText: 'Fork of agent "Look around"' }).waitFor({ timeout: 10_000 });
  await workbench.chatFrame().getByText('List the files.').first().waitFor({ timeout: 10_000 });
  const forked = (await list()).find((s) => s.title.startsWith('Fork of agent "Look around"'));
  assert.ok(forked, 'the CLI lists it too');
  assert.match(await braid(['show', forked.id]), /forked from agent agent_\w+ of \w+ at turn 1/);
  await workbench.screenshot('agent-fork');
});
