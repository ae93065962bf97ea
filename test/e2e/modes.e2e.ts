import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { TurnBeginRecord } from '../../src/core/wire/records';
import { readFileReply, ScriptedModelServer, type RecordedRequest } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// Modes in the real VS Code against the scripted model: Ask answers and changes nothing, Plan
// proposes a plan that Carry Out Plan sends as the next prompt in Agent mode, Auto-accept edits
// writes unasked while a command still asks; each prompt shows its mode, the log records it, and
// both survive a reload.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'modes',
    settings: model.vscodeSettings(),
    files: { 'notes.md': 'first draft\n' },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

const chat = () => workbench.chatFrame();
const notes = () => fs.readFileSync(path.join(workbench.workspace, 'notes.md'), 'utf8');
const toolNames = (r: RecordedRequest) => (r.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
const writeNotes = (content: string) => ({
  kind: 'toolCalls' as const,
  calls: [{ id: `w-${content.length}`, name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content }) }],
});

async function pickMode(label: string): Promise<void> {
  await chat().locator('[data-role="mode"]').selectOption({ label });
}

/** The modes the session's turn_begin records name, read from its log. */
async function loggedModes(): Promise<(string | undefined)[]> {
  return (await workbench.shownSessionRecords()).filter((r): r is TurnBeginRecord => r.t === 'turn_begin').map((r) => r.mode);
}

test('Ask answers reading only: a write the model tries is refused and changes nothing, and the prompt says Ask', async () => {
  const picker = chat().locator('[data-role="mode"]');
  assert.deepEqual(await picker.locator('option').allTextContents(), ['Ask', 'Plan', 'Agent', 'Auto-accept edits']);
  assert.equal(await picker.inputValue(), 'agent', 'Agent is the default');
  await pickMode('Ask');
  model.requests.length = 0;
  model.enqueue(writeNotes('overwritten in Ask\n'), { kind: 'text', chunks: ['The notes hold a first draft.'] });
  await workbench.send('What do the notes say?');
  assert.equal(notes(), 'first draft\n');
  // The same tools as every mode (the prompt's beginning stays the same); the approval gate refuses the write.
  assert.ok(toolNames(model.requests[0]!).includes('write_file'), 'Ask is offered the tools Agent is');
  assert.match(
    JSON.stringify(model.requests[1]!.body.messages),
    /This turn runs in Ask mode: it may not change files or run commands/,
    'the model is told the write was refused',
  );
  assert.equal(await chat().locator('.approval').count(), 0, 'nothing asked the user');
  const badge = chat().locator('.message.user', { hasText: 'What do the notes say?' }).locator('.mode-badge');
  assert.equal(await badge.textContent(), 'Ask');
  await workbench.screenshot('ask-mode');
});

test('Plan proposes a plan; Carry Out Plan sends it in Agent mode, which asks before it writes', async () => {
  await pickMode('Plan');
  model.enqueue({ kind: 'text', chunks: ['Here is the plan:\n\n1. Rewrite notes.md as a checklist.\n2. Keep the first draft line.'] });
  await workbench.send('Plan a better notes file');
  assert.equal(notes(), 'first draft\n');
  const offer = chat().locator('[data-role="plan"]');
  await offer.waitFor();
  await workbench.screenshot('plan-ready', 'plan-mode');

  model.requests.length = 0;
  model.enqueue(readFileReply('notes.md'), writeNotes('- [ ] first draft\n'), { kind: 'text', chunks: ['Rewrote the notes as a checklist.'] });
  await offer.locator('button', { hasText: 'Carry Out Plan' }).click();
  const approval = chat().locator('.approval');
  await approval.waitFor({ timeout: 15_000 });
  assert.equal(await chat().locator('[data-role="mode"]').inputValue(), 'agent');
  assert.match(JSON.stringify(model.requests[0]!.body.messages), /Carry out this plan:\\n\\nHere is the plan:/);
  await workbench.screenshot('plan-carried-out-asks');
  await approval.locator('button', { hasText: /^Allow$/ }).click();
  await chat().locator('.message.assistant', { hasText: 'Rewrote the notes as a checklist.' }).waitFor({ timeout: 15_000 });
  assert.equal(notes(), '- [ ] first draft\n');
  assert.equal(await offer.isHidden(), true, 'the offer went with the plan carried out');
});

test('Auto-accept edits writes without asking; a command still asks, and Deny keeps it from running', async () => {
  await pickMode('Auto-accept edits');
  model.enqueue(writeNotes('- [x] first draft\n'), {
    kind: 'toolCalls',
    calls: [{ id: 'b1', name: 'bash', arguments: JSON.stringify({ command: 'touch made-by-command.txt' }) }],
  });
  model.enqueue({ kind: 'text', chunks: ['Ticked the box; the command was denied.'] });
  await chat().locator('[data-role="input"]').fill('Tick the box and make a file');
  await chat().locator('[data-role="input"]').press('Enter');
  const approval = chat().locator('.approval', { hasText: 'touch made-by-command.txt' });
  await approval.waitFor({ timeout: 15_000 });
  assert.equal(notes(), '- [x] first draft\n', 'the write went ahead before the command was asked');
  assert.equal(await chat().locator('.approval', { hasText: 'notes.md' }).count(), 1, "only the Agent turn's write asked");
  await workbench.screenshot('auto-accept-edits-command-asks');
  await approval.locator('button', { hasText: 'Deny' }).click();
  await chat().locator('body[data-turn="idle"]').waitFor({ timeout: 15_000 });
  assert.equal(fs.existsSync(path.join(workbench.workspace, 'made-by-command.txt')), false);
  assert.deepEqual(await loggedModes(), ['ask', 'plan', 'agent', 'auto-edit']);
});

test('after a reload each prompt still shows its mode, and the picker takes the newest prompt’s', async () => {
  const id = await chat().locator('body').getAttribute('data-session');
  await workbench.reloadTo(id!);
  // The transcript renders the rows in view: the newest prompt's badge at the end, the first one's at the top.
  await chat().locator('.message.user .mode-badge', { hasText: 'Auto-accept edits' }).waitFor();
  await chat()
    .locator('[data-role="transcript"]')
    .evaluate((e) => (e.scrollTop = 0));
  await chat().locator('.message.user', { hasText: 'What do the notes say?' }).locator('.mode-badge', { hasText: 'Ask' }).waitFor();
  assert.equal(await chat().locator('[data-role="mode"]').inputValue(), 'auto-edit');
  await workbench.screenshot('modes-after-reload');
});
