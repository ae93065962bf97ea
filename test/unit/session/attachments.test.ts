import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attachContext, MAX_ATTACHMENT_CHARS, MAX_ATTACHMENTS_TOTAL } from '../../../src/core/session/attachments';
import { userTextOf } from '../../../src/core/session/preflight';
import { forkSession } from '../../../src/core/store/fork';
import { readNewestPage } from '../../../src/core/wire/newestPage';
import type { ContextRecord, MessageRecord, WireRecord } from '../../../src/core/wire/records';
import { replay } from '../../../src/core/wire/replay';
import { readState } from '../../../src/core/format/sessionState';
import { toEntries } from '../../../src/vscode/chat/transcript';
import { fauxAssistantMessage, sessionFixture } from '../../support/session';
import path from 'node:path';

const types = (records: WireRecord[]) => records.map((r) => (r.t === 'message' ? `message:${(r as MessageRecord).message.role}` : r.t));
const texts = (m: MessageRecord) => (m.message.content as Array<{ type: string; text: string }>).map((b) => b.text);

test('an attachment over the limit is cut, says so, and the record says how much went', () => {
  const long = 'x'.repeat(MAX_ATTACHMENT_CHARS + 5_000);
  const { blocks, items } = attachContext([{ kind: 'file', label: 'big.txt', path: 'src/big.txt', text: long }]);
  assert.equal(blocks.length, 1);
  assert.match(blocks[0]!, /^<attachment kind="file" label="big.txt" path="src\/big.txt">\n/);
  assert.match(blocks[0]!, /\[Cut: the first 20000 of 25000 characters are shown/);
  assert.match(blocks[0]!, /<\/attachment>$/);
  assert.deepEqual(items, [{ kind: 'file', label: 'big.txt', path: 'src/big.txt', chars: MAX_ATTACHMENT_CHARS, truncated: true }]);
  const small = attachContext([{ kind: 'selection', label: 'a.ts:2-3', path: 'a.ts', lines: [2, 3], text: 'two\nthree' }]);
  assert.equal(small.blocks[0], '<attachment kind="selection" label="a.ts:2-3" path="a.ts" lines="2-3">\ntwo\nthree\n</attachment>');
  assert.equal(small.items[0]!.truncated, false);
});

test('the attachments of one prompt together stay under the total cap', () => {
  const item = (i: number) => ({ kind: 'file' as const, label: `f${i}`, path: `f${i}`, text: 'y'.repeat(MAX_ATTACHMENT_CHARS) });
  const { items, blocks } = attachContext([1, 2, 3, 4].map(item));
  assert.equal(
    items.reduce((sum, i) => sum + i.chars, 0),
    MAX_ATTACHMENTS_TOTAL,
  );
  assert.deepEqual(
    items.map((i) => i.truncated),
    [false, false, false, true],
  );
  assert.match(blocks[3]!, /\[Cut: the first 0 of 20000/);
});

test('a label cannot close the attachment header early', () => {
  const { blocks } = attachContext([{ kind: 'file', label: 'a"b>\nc', path: 'a', text: 't' }]);
  assert.match(blocks[0]!, /^<attachment kind="file" label="a\\"b> c" path="a">\n/);
});

test('a prompt with attachments: a context record after turn_begin, the blocks before the user text, chips in the transcript; fork keeps it, rewind drops it', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([fauxAssistantMessage('Read it.'), fauxAssistantMessage('Plain.')]);
    const session = await f.open();
    await session.submit('What does it do?', {
      messageKey: 'k1',
      attachments: [
        { kind: 'file', label: 'main.ts', path: 'src/main.ts', text: 'export const answer = 42;' },
        { kind: 'problems', label: 'Problems', text: 'src/main.ts:1:1 error: oops' },
      ],
    });
    await session.waitForIdle();
    await session.submit('And now?', { messageKey: 'k2' });
    await session.waitForIdle();
    const records = f.records(session.id);
    assert.deepEqual(types(records).slice(0, 4), ['agent', 'turn_begin', 'context', 'message:user']);
    assert.equal(types(records).filter((t) => t === 'context').length, 1, 'a prompt without attachments has no context record');
    const context = records[2] as ContextRecord;
    assert.deepEqual(context.items, [
      { kind: 'file', label: 'main.ts', path: 'src/main.ts', chars: 25, truncated: false },
      { kind: 'problems', label: 'Problems', chars: 27, truncated: false },
    ]);
    const user = records[3] as MessageRecord;
    const blocks = texts(user);
    assert.equal(blocks.at(-1), 'What does it do?', "the user's text is the last block");
    assert.equal(userTextOf(user.message as never), 'What does it do?');
    assert.match(
      blocks.at(-3)!,
      /^<attachment kind="file" label="main.ts" path="src\/main.ts">\nexport const answer = 42;\n<\/attachment>\n$/,
      'an attachment ends its line, so the prompt starts on one of its own',
    );
    assert.match(blocks.at(-2)!, /^<attachment kind="problems"/);
    // The model got the attachment.
    assert.match(JSON.stringify(f.store.history(session.id).messages[0]!.message), /export const answer = 42/);

    assert.deepEqual(
      replay(records).contexts.map((c) => c.turn),
      [1],
    );
    const log = path.join(f.store.locate(session.id), 'agents', 'main', 'wire.jsonl');
    const page = readNewestPage(log);
    assert.equal(page.contexts.get(user.id)?.items.length, 2);
    const entries = toEntries(page.messages, page);
    const prompts = entries.filter((e) => e.kind === 'user');
    assert.deepEqual(prompts[0]!.kind === 'user' && prompts[0]!.attachments, [
      { kind: 'file', label: 'main.ts', detail: 'src/main.ts', truncated: false },
      { kind: 'problems', label: 'Problems', truncated: false },
    ]);
    assert.equal(prompts[1]!.kind === 'user' && prompts[1]!.attachments, undefined);
    // A page whose oldest message is the prompt still finds its context record, read just before it.
    const small = readNewestPage(log, 4);
    assert.equal(small.messages[0]!.id, user.id);
    assert.equal(small.contexts.get(user.id)?.turn, 1);

    const fork = await forkSession(f.store, session.id, { turn: 1 });
    assert.deepEqual(
      f.store.history(fork.id).contexts.map((c) => c.items.map((i) => i.label)),
      [['main.ts', 'Problems']],
    );

    await session.rewind(user.id, { files: false });
    assert.deepEqual(f.store.history(session.id).contexts, []);
    assert.equal(readNewestPage(log).contexts.size, 0);
  } finally {
    await f.cleanup();
  }
});

test('a queued prompt keeps its attachments in state.json, and they go with it when it runs', async () => {
  const f = await sessionFixture();
  try {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    f.faux.setResponses([
      async () => {
        await gate;
        return fauxAssistantMessage('first');
      },
      fauxAssistantMessage('second'),
    ]);
    const session = await f.open();
    await session.submit('first', { messageKey: 'a' });
    await session.submit('second', { messageKey: 'b', steerIfActive: true, attachments: [{ kind: 'gitDiff', label: 'Git diff', text: 'diff --git a/x b/x' }] });
    const state = readState(path.join(f.store.locate(session.id), 'state.json'));
    assert.deepEqual(state.queue[0]!.attachments, [{ kind: 'gitDiff', label: 'Git diff', text: 'diff --git a/x b/x' }], 'queued, not steered');
    release();
    await session.waitForIdle();
    const contexts = f.store.history(session.id).contexts;
    assert.deepEqual(
      contexts.map((c) => [c.turn, c.items[0]!.kind]),
      [[2, 'gitDiff']],
    );
  } finally {
    await f.cleanup();
  }
});
