import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { generateSessions } from '../../../bench/generate';
import { ChatModel } from '../../../media/src/chatModel';
import { PlaceKeeper } from '../../../media/src/keepPlace';
import { MAX_OLDER_PAGE } from '../../../src/protocol/messages';
import type { SessionInfo } from '../../../src/protocol/frames';
import { olderPage, sessionPage } from '../../../src/vscode/chat/chatPages';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { openStore, tempRoots } from '../../support/store';

// A fresh snapshot of the session shown (a resync, a change of trust) carries its newest page
// only: the Chat page loads older pages again until the row the reader had at the top is back
// (media/src/keepPlace.ts), through the host's real page reader into the page's model.
const roots = tempRoots();
after(roots.cleanup);

async function longSession(): Promise<{ store: SessionStore; id: string; info: SessionInfo }> {
  const root = roots.root();
  const [dir] = generateSessions(root, { count: 1, workspaces: 1, turns: 1250, shape: 'compact' });
  const id = path.basename(dir!);
  const info: SessionInfo = { id, title: 't', usage: { input: 0, output: 0, cacheRead: 0, costTotal: 0 }, queue: [], paused: false };
  return { store: await openStore(root), id, info };
}

/** Pages back until `model` holds at least `depth` entries. */
function pageBack(store: SessionStore, id: string, model: ChatModel, depth: number): void {
  while (model.before && model.entries.length < depth) {
    const page = olderPage(store, id, model.before, 160);
    model.prependOlder(id, page.entries, page.before);
  }
}

/** Runs the keeper's steps as the page does, loading the older pages it asks for; returns the row it scrolls to. */
function restore(store: SessionStore, id: string, model: ChatModel, keeper: PlaceKeeper): { scrollTo?: string; pages: number } {
  for (let pages = 0; pages < 50; pages++) {
    const step = keeper.step((key) => model.entries.some((e) => e.key === key), model.entries.length, Boolean(model.before));
    if (step.scrollTo) return { scrollTo: step.scrollTo, pages };
    if (!step.loadOlder) return { pages };
    const page = olderPage(store, id, model.before!, MAX_OLDER_PAGE);
    model.prependOlder(id, page.entries, page.before);
  }
  throw new Error('the keeper never stopped');
}

test('a reader 1,000 entries back gets that row back after a fresh snapshot, in the pages it takes and no further', async () => {
  const { store, id, info } = await longSession();
  try {
    const model = new ChatModel();
    model.applySnapshot({ session: sessionPage(store, id, info), live: [], cursor: 0 });
    pageBack(store, id, model, 1000);
    const top = model.entries[10]!.key; // the row the reader reads
    const depth = model.entries.length;
    model.applySnapshot({ session: sessionPage(store, id, info), live: [], cursor: 0 });
    assert.ok(!model.entries.some((e) => e.key === top), 'the snapshot holds the newest page only');
    const keeper = new PlaceKeeper();
    keeper.start(top, depth);
    const back = restore(store, id, model, keeper);
    assert.equal(back.scrollTo, top);
    assert.equal(back.pages, 1, 'one page of the most a page holds');
    assert.ok(model.entries.length < 3750, 'not the whole session');
    assert.deepEqual(
      keeper.step(() => true, model.entries.length, true),
      { loadOlder: false },
      'once there, nothing more',
    );
  } finally {
    await store.close();
  }
});

test('a row no longer in the log (rewound) is looked for only as deep as the reader had been; a view at the end loads nothing', async () => {
  const { store, id, info } = await longSession();
  try {
    const model = new ChatModel();
    model.applySnapshot({ session: sessionPage(store, id, info), live: [], cursor: 0 });
    const keeper = new PlaceKeeper();
    keeper.start('msg_gone', 300);
    const gone = restore(store, id, model, keeper);
    assert.equal(gone.scrollTo, undefined);
    assert.equal(gone.pages, 1, 'one page reaches the depth the reader had');
    assert.ok(model.entries.length < 3750 && Boolean(model.before), 'the start is not loaded for a row that is gone');
    keeper.start(undefined, 3000);
    assert.deepEqual(
      keeper.step(() => false, 60, true),
      { loadOlder: false },
      'the view followed the end',
    );
    keeper.start(model.entries[0]!.key, 3000);
    keeper.forget();
    assert.deepEqual(
      keeper.step(() => true, 60, true),
      { loadOlder: false },
      'another session shown',
    );
  } finally {
    await store.close();
  }
});
