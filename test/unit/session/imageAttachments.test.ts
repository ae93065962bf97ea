import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Context } from '@mariozechner/pi-ai';
import { sha256Hex } from '../../../src/core/hash';
import { forkSession } from '../../../src/core/store/fork';
import type { ContextRecord, MessageRecord, TurnBeginRecord } from '../../../src/core/wire/records';
import { readState } from '../../../src/core/format/sessionState';
import { fauxAssistantMessage, sessionFixture } from '../../support/session';

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const image = (label: string) => ({ kind: 'image' as const, label, text: '', image: { mimeType: 'image/png', data: PNG.toString('base64') } });
const blobFile = (f: { store: { locate(id: string): string } }, id: string) =>
  path.join(f.store.locate(id), 'blobs', sha256Hex(PNG).slice(0, 2), sha256Hex(PNG));

/** The images of the user messages a model request carried. */
function sentImages(context: Context): { data: string; mimeType: string }[] {
  return context.messages.flatMap((m) =>
    m.role === 'user' && typeof m.content !== 'string' ? m.content.flatMap((b) => (b.type === 'image' ? [{ data: b.data, mimeType: b.mimeType }] : [])) : [],
  );
}

test('an image goes to the model whole, is stored once by hash (twice the same image: one blob), and the log names the blob', async () => {
  const f = await sessionFixture();
  try {
    const seen: Context[] = [];
    f.faux.setResponses([
      (context) => (seen.push(context), fauxAssistantMessage('A red pixel.')),
      (context) => (seen.push(context), fauxAssistantMessage('The same pixel.')),
    ]);
    const session = await f.open();
    await session.submit('What is this?', { messageKey: 'k1', attachments: [image('pixel.png'), image('again.png')] });
    await session.waitForIdle();
    assert.deepEqual(sentImages(seen[0]!), [
      { data: PNG.toString('base64'), mimeType: 'image/png' },
      { data: PNG.toString('base64'), mimeType: 'image/png' },
    ]);
    const blobs = path.dirname(path.dirname(blobFile(f, session.id)));
    const prompt = (f.records(session.id).find((r) => r.t === 'turn_begin') as TurnBeginRecord).prompt!;
    assert.deepEqual(
      fs
        .readdirSync(blobs)
        .flatMap((d) => fs.readdirSync(path.join(blobs, d)))
        .filter((b) => b !== prompt.system && b !== prompt.tools),
      [sha256Hex(PNG)],
      'one blob for the same image twice',
    );
    const records = f.records(session.id);
    const user = records.find((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'user')!;
    const line = JSON.stringify(user);
    assert.doesNotMatch(line, new RegExp(PNG.toString('base64').slice(0, 40).replace(/[+/]/g, '\\$&')), 'no base64 in the log');
    assert.deepEqual(
      (user.message.content as unknown as Record<string, unknown>[]).filter((b) => b.type === 'image'),
      [
        { type: 'image', mimeType: 'image/png', blob: sha256Hex(PNG) },
        { type: 'image', mimeType: 'image/png', blob: sha256Hex(PNG) },
      ],
    );
    const context = records.find((r): r is ContextRecord => r.t === 'context')!;
    assert.deepEqual(
      context.items.map((i) => [i.kind, i.label, i.blob]),
      [
        ['image', 'pixel.png', sha256Hex(PNG)],
        ['image', 'again.png', sha256Hex(PNG)],
      ],
    );

    // Reopened, the history is rebuilt from the log: the next request has the image's data again.
    await session.close();
    const reopened = await f.open({}, session.id);
    await reopened.submit('And now?', { messageKey: 'k2' });
    await reopened.waitForIdle();
    assert.equal(sentImages(seen[1]!).length, 2);
    assert.equal(sentImages(seen[1]!)[0]!.data, PNG.toString('base64'));

    // The Markdown export links the image, written beside it once.
    const out = path.join(f.root, 'export', 'session.md');
    fs.mkdirSync(path.dirname(out));
    const written = f.store.exportWithImages(session.id, out);
    assert.deepEqual(written, [path.join(f.root, 'export', 'session-images', `${sha256Hex(PNG)}.png`)]);
    assert.deepEqual(fs.readFileSync(written[0]!), PNG);
    assert.match(fs.readFileSync(out, 'utf8'), new RegExp(`!\\[Attached image\\]\\(session-images/${sha256Hex(PNG)}\\.png\\)`));
    assert.equal(f.store.hasImages(session.id), true);

    // A fork links the blobs its prefix names: its history opens with the image's data.
    const fork = await forkSession(f.store, session.id, { turn: 1 });
    assert.deepEqual(fs.readFileSync(blobFile(f, fork.id)), PNG);
    const forked = await f.open({}, fork.id);
    f.faux.setResponses([(context) => (seen.push(context), fauxAssistantMessage('Still a pixel.'))]);
    await forked.submit('In the fork?', { messageKey: 'k3' });
    await forked.waitForIdle();
    assert.equal(sentImages(seen[2]!)[0]!.data, PNG.toString('base64'));
  } finally {
    await f.cleanup();
  }
});

test('a model that reads no images: the prompt fails saying so, and nothing is written', async () => {
  const f = await sessionFixture();
  try {
    const session = await f.open({ model: () => ({ model: { ...f.faux.getModel(), input: ['text'] }, thinking: 'off' }) });
    const ended = new Promise<string>((resolve) =>
      session.onEvent((e) => {
        if (e.type === 'prompt' && e.prompt.state === 'failed') resolve(e.prompt.reason ?? '');
      }),
    );
    await session.submit('What is this?', { messageKey: 'k1', attachments: [image('pixel.png')] });
    assert.match(await ended, /faux\/faux-1 does not take images; the prompt was not sent/);
    await session.waitForIdle();
    assert.deepEqual(
      f.records(session.id).map((r) => r.t),
      ['agent'],
    );
  } finally {
    await f.cleanup();
  }
});

test('state.json: a queued prompt keeps its attachments; ones that are not attachments are dropped, the prompt kept', async () => {
  const f = await sessionFixture();
  try {
    const session = await f.open();
    const file = path.join(f.store.locate(session.id), 'state.json');
    await session.close();
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    const good = { kind: 'image', label: 'a.png', text: '', image: { mimeType: 'image/png', blob: sha256Hex(PNG) } };
    state.queue = [
      {
        promptId: 'p1',
        text: 'one',
        queuedAt: 1,
        attachments: [good, { kind: 'image', label: 'b', text: '', image: { mimeType: 'image/png', blob: '../x' } }, 'junk'],
      },
    ];
    fs.writeFileSync(file, JSON.stringify(state));
    assert.deepEqual(readState(file).queue, [{ promptId: 'p1', text: 'one', queuedAt: 1, attachments: [good] }]);
  } finally {
    await f.cleanup();
  }
});
