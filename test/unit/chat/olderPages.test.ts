import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { generateSessions } from '../../../bench/generate';
import { ChatModel } from '../../../media/src/chatModel';
import { FAST_RETURN_MS, FIRST_OLDER_PAGE, OlderPageSize } from '../../../media/src/olderPages';
import { MAX_OLDER_PAGE } from '../../../src/protocol/messages';
import type { SessionInfo } from '../../../src/protocol/frames';
import { olderPage, sessionPage } from '../../../src/vscode/chat/chatPages';
import { openStore, tempRoots } from '../../support/store';

// The Chat page's older pages: how many messages it asks for (media/src/olderPages.ts), and a
// long session paged back through the host's real page reader into the page's model.
const roots = tempRoots();
after(roots.cleanup);

test('a user back at the top within a second of each page gets pages twice the one before, up to the most a page holds', () => {
  const sizes = new OlderPageSize();
  const asked: number[] = [];
  for (let now = 0; asked.length < 8; now += 100) {
    asked.push(sizes.next(now));
    sizes.arrived(now + 50);
  }
  assert.deepEqual(asked, [80, 160, 320, 640, 1280, 2560, 2560, 2560]);
  assert.equal(MAX_OLDER_PAGE, 2560);
});

test('a pause longer than a second, or another session shown, starts again at the first size', () => {
  const sizes = new OlderPageSize();
  sizes.next(0);
  sizes.arrived(10);
  assert.equal(sizes.next(10 + FAST_RETURN_MS), 2 * FIRST_OLDER_PAGE, 'a second after is still fast');
  sizes.arrived(2_000);
  assert.equal(sizes.next(2_001 + FAST_RETURN_MS), FIRST_OLDER_PAGE, 'the user paused to read');
  sizes.arrived(4_000);
  assert.equal(sizes.next(4_010), 2 * FIRST_OLDER_PAGE);
  sizes.arrived(4_020);
  sizes.reset();
  assert.equal(sizes.next(4_030), FIRST_OLDER_PAGE, 'after a reset (a snapshot)');
  assert.equal(sizes.next(4_040), FIRST_OLDER_PAGE, 'asked again before any page arrived: not fast');
});

test('paging back fast through a 5,000-message log reaches its first message in six older pages, every entry once', async () => {
  const root = roots.root();
  const [dir] = generateSessions(root, { count: 1, workspaces: 1, turns: 1250, shape: 'compact' });
  const id = path.basename(dir!);
  const store = await openStore(root);
  try {
    const info: SessionInfo = { id, title: 't', usage: { input: 0, output: 0, cacheRead: 0, costTotal: 0 }, queue: [], paused: false };
    const model = new ChatModel();
    model.applySnapshot({ session: sessionPage(store, id, info), live: [], cursor: 0 });
    assert.equal(model.entries.length, 60, 'the newest 80 messages: 20 turns of 3 entries');
    const sizes = new OlderPageSize();
    const asked: number[] = [];
    for (let now = 0; model.before; now += 200) {
      const limit = sizes.next(now);
      asked.push(limit);
      const page = olderPage(store, id, model.before, limit);
      assert.ok(page.entries.length <= limit, `a page of ${limit} messages has at most as many entries`);
      model.prependOlder(id, page.entries, page.before);
      sizes.arrived(now + 100);
      assert.ok(asked.length < 20, 'the start is reached');
    }
    assert.deepEqual(asked, [80, 160, 320, 640, 1280, 2560]);
    assert.equal(model.entries.length, 3750, '1,250 turns of a prompt, a tool card and an answer');
    assert.equal(new Set(model.entries.map((e) => e.key)).size, 3750, 'no entry twice');
    const first = store.newestPage(id, 5000).messages[0]!;
    assert.equal(model.entries[0]?.key, first.id, 'the first entry is the first prompt');
    assert.equal(model.entries[0]?.kind, 'user');
  } finally {
    await store.close();
  }
});
