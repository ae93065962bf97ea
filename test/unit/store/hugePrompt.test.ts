import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { previewOf } from '../../../src/core/format/messageText';
import { excerpt } from '../../../src/core/format/textStart';
import { autoTitle } from '../../../src/core/format/titles';
import { exportMarkdown } from '../../../src/core/store/export';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import type { MessageRecord } from '../../../src/core/wire/records';
import { QUEUED_CHIP_TEXT, sessionInfo } from '../../../src/vscode/chat/sessionInfo';
import { addTurn, openStore, tempDir } from '../../support/store';

// A session whose first prompt is 10 MB (pasted, or imported from another agent): its turn is
// written within seconds; its title, its row's preview and a queued chip come from the prompt's
// start; a long title is shown cut; and its export fences any text.
const root = tempDir('braid-huge-prompt-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

const START = 'Summarize this log.\n\n';
const PROMPT = `${START}${'2024-05-01 12:00:00 INFO request served in 12 ms\n'.repeat((10 * 1024 * 1024) / 48)}`;

/** A store of its own (in `name`) with one session of one turn: `prompt`, then an answer. */
async function sessionOf(name: string, prompt: string): Promise<{ store: SessionStore; id: string }> {
  const store = await openStore(path.join(root, name, 'store'));
  const workspaceDir = path.join(root, name, 'project');
  fs.mkdirSync(workspaceDir);
  const { id } = await store.create({ workspaceDir });
  const writer = await store.openWriter(id);
  await addTurn(writer, prompt, 'Done.');
  await writer.close();
  return { store, id };
}

test('a 10 MB first prompt: the title, the listing, a chip and the export take seconds and show its start', async () => {
  const started = performance.now();
  const { store, id } = await sessionOf('huge', PROMPT);
  // Generous: writing 10 MB to the log and folding it takes about a second.
  const took = performance.now() - started;
  assert.ok(took < 30_000, `a turn with a 10 MB prompt took ${Math.round(took)} ms`);
  const title = autoTitle(PROMPT.slice(0, 1000));
  assert.equal(title, 'Summarize this log. 2024-05-01 12:00:00 INFO…');
  assert.equal(store.get(id).title, title);
  assert.equal(store.index.get(id)?.firstPrompt, previewOf(PROMPT.slice(0, 1000)));
  const info = sessionInfo(store.index, id, { queue: [{ promptId: 'p1', text: PROMPT }], paused: false });
  assert.deepEqual(info?.queue, [{ promptId: 'p1', text: excerpt(PROMPT, QUEUED_CHIP_TEXT) }]);
  assert.ok(info.queue[0]!.text.length <= QUEUED_CHIP_TEXT + 1);
  const markdown = exportMarkdown(store.get(id), store.history(id));
  assert.ok(markdown.startsWith(`# ${title}\n`));
  // A long title (a rename, a title imported with a session) is stored and shown cut.
  await store.rename(id, PROMPT.slice(0, 256 * 1024));
  assert.ok(store.get(id).title.length <= 200, 'stored cut: a title is a line, not a document');
  const shown = sessionInfo(store.index, id, { queue: [], paused: false })!.title;
  assert.ok(shown.startsWith('Summarize this log. 2024-05-01') && shown.endsWith('…') && shown.length < 1000, shown.slice(0, 100));
  assert.ok(exportMarkdown(store.get(id), store.history(id)).startsWith(`# ${shown}\n`));
  await store.close();
});

test('an export fences a tool result of a million runs of backticks', async () => {
  const { store, id } = await sessionOf('fences', 'Show me the file.');
  const history = store.history(id);
  const text = `${'`a'.repeat(1_000_000)}\`\`\`\`x`;
  const result: MessageRecord = {
    v: 1,
    ts: 1,
    t: 'message',
    turn: 1,
    id: 'msg_result',
    message: { role: 'toolResult', toolCallId: 'c1', toolName: 'read_file', content: [{ type: 'text', text }], isError: false, timestamp: 1 },
  };
  // Math.max over every run as arguments overflowed the call's stack.
  const markdown = exportMarkdown(store.get(id), { ...history, messages: [...history.messages, result] });
  assert.ok(markdown.includes(`\`\`\`\`\`\n${text}\n\`\`\`\`\`\n`), 'fenced by one backtick more than its longest run');
  await store.close();
});
