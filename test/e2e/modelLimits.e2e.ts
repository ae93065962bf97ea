import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// A local server that reports its limits (as llama-server does in /props): the chat's model line
// shows them; after a turn with a tool call, Braid: Show Log tells what happened, without the
// prompt's text.
const model = new ScriptedModelServer();
let workbench: Workbench;
const PROMPT = 'Summarize notes.txt for me, the door code is 4711';

before(async () => {
  model.limits = { props: { default_generation_settings: { n_ctx: 32768, params: { n_predict: 2048 } } } };
  await model.start();
  workbench = await Workbench.launch({
    name: 'model-limits-and-log',
    settings: model.vscodeSettings(),
    files: { 'notes.txt': 'Buy milk.\n' },
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

/** The Braid Output channel as VS Code wrote it to its log folder so far. */
function channelLog(): string {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  const files = walk(path.join(workbench.profile!.userData, 'logs')).filter((f) => /braid/i.test(path.basename(f)));
  return files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

/** Drags the side bar's edge to the right, so the chat header has room for the whole model line. */
async function widenSideBar(): Promise<void> {
  const box = await workbench.page.locator('.part.sidebar').boundingBox();
  assert.ok(box, 'the side bar is shown');
  const y = box.y + box.height / 2;
  await workbench.page.mouse.move(box.x + box.width + 1, y);
  await workbench.page.mouse.down();
  await workbench.page.mouse.move(box.x + box.width + 560, y, { steps: 10 });
  await workbench.page.mouse.up();
}

test('the model line shows the window and answer limit the server reports, and where they came from', async () => {
  await widenSideBar();
  const label = workbench.chatFrame().locator('[data-role="model"]');
  await workbench.chatFrame().locator('[data-role="model"]', { hasText: '32k context' }).waitFor({ timeout: 15_000 });
  assert.equal(await label.textContent(), 'openai-compatible · scripted-model · 32k context · 2k out');
  const tooltip = await workbench.chatFrame().locator('[data-role="model-picker"]').getAttribute('title');
  assert.match(tooltip ?? '', /Context window 32,768 tokens \(llama-server \/props\); answers up to 2,048 tokens \(llama-server \/props\)\./);
  await workbench.screenshot('model-line-with-limits');
});

test('after a turn with a tool call, Show Log has the session, the turn, the model calls and the tool, not the prompt', async () => {
  model.enqueue(
    { kind: 'toolCalls', calls: [{ id: 'r1', name: 'read_file', arguments: '{"path":"notes.txt"}' }], usage: { prompt: 200, completion: 12 } },
    { kind: 'text', chunks: ['It says to buy milk.'], usage: { prompt: 260, completion: 6 } },
  );
  await workbench.send(PROMPT);
  assert.equal(model.requests.at(-1)!.body.max_tokens, 2048, 'the request asks for no more than the server allows');
  await workbench.runCommand('Braid: Show Log');
  // The Output view is an editor: its spaces are no-break spaces, and it shows what fits.
  const output = workbench.page.locator('.part.panel .monaco-editor .view-lines');
  let shown = '';
  for (let i = 0; i < 150 && !/turn 1 completed after/.test(shown); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    shown = ((await output.textContent().catch(() => '')) ?? '').replace(/\u00a0/g, ' ');
  }
  assert.match(shown, /turn 1 completed after/, 'the Output view shows the end of the turn');
  // The whole channel, from the file VS Code writes it to.
  const text = channelLog();
  assert.match(text, /session ses_\w+ created/);
  assert.match(text, /turn 1 started: model openai-compatible\/scripted-model, thinking off, context window 32768 tokens, answers up to 2048/);
  assert.match(text, /tool read_file "notes\.txt" done in/);
  assert.match(text, /model call openai-compatible\/scripted-model answered in .*\(stop: stop; 260 tokens in, 6 out\)/);
  assert.match(text, /turn 1 completed after .* \(2 model calls, 1 tool call\)/);
  assert.doesNotMatch(text, /door code|4711|Buy milk/);
  await workbench.screenshot('show-log-after-a-turn');
});
