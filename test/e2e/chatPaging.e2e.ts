import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addLongSessions, openFromPalette, pageToStart } from '../support/chatPaging';
import { ScriptedModelServer } from '../support/modelServer';
import { openStore } from '../support/store';
import { Workbench } from '../support/workbench';

// A 5,000-message session in the real Chat view: it opens at its end, and a user holding the
// view at the top pages back to its first message in a few growing pages, with only the rows
// near the view in the DOM. Its speed is bench/chatPaging.ts's to measure; this spec says what
// the user sees. A session opens only with a model configured; paging never asks it anything.
const model = new ScriptedModelServer();
let workbench: Workbench;

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'chat-paging',
    settings: model.vscodeSettings(),
  });
  await workbench.openChat();
});

after(async () => {
  await workbench?.close();
  await model.close();
});

const chat = () => workbench.chatFrame();

test('a 5,000-message transcript opens at its end and pages back to its first prompt in growing pages, with only what is on screen in the DOM', async () => {
  const [session] = addLongSessions(workbench, 1, 5_000);
  const { id, firstMessageId } = session!;
  const store = await openStore(workbench.globalStorage);
  assert.equal(store.history(id).messages.length, 5000);
  await store.close();

  const opened = await openFromPalette(workbench, id);
  await chat().locator('.message.assistant', { hasText: 'Done:' }).last().waitFor();
  assert.equal(await chat().locator('body').getAttribute('data-has-older'), 'true');
  assert.equal(await chat().locator('body').getAttribute('data-entries'), '60', 'the newest 80 messages: 20 turns of 3 entries');
  await workbench.screenshot('long-session-end');

  const paged = await pageToStart(chat(), firstMessageId);
  assert.ok(paged.reachedStart, `reached the first message (${JSON.stringify(paged)})`);
  assert.equal(await chat().locator('body').getAttribute('data-has-older'), 'false');
  assert.equal(paged.entries, 3750, 'every turn once: its prompt, its tool card, its answer');
  const first = chat().locator(`.row.message.user[data-key="${firstMessageId}"]`);
  assert.match((await first.locator('.prompt-text').textContent()) ?? '', /^Please .* in module \d+$/);
  assert.ok(await first.isVisible(), 'the first prompt is on screen');
  // Held at the top, each page is twice the one before (80, 160, ... 2,560): six pages, not 62.
  assert.ok(paged.pages <= 12, `the pages grew while the view was held at the top (${paged.pages} pages)`);
  assert.ok(paged.maxRows < 150, `only rows near the view are in the DOM (at most ${paged.maxRows} of 3,750)`);
  await workbench.screenshot('long-session-start');
  console.log(
    `5,000-message session: open to painted ${opened.openedMs} ms (page render ${opened.renderMs} ms), paged to the first message in ${paged.ms.toFixed(0)} ms over ${paged.pages} pages, at most ${paged.maxRows} rows in the DOM`,
  );
});
