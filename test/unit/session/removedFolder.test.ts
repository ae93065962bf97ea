import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import type { PromptInfo } from '../../../src/core/session/events';
import { fauxAssistantMessage, sessionFixture } from '../../support/session';

// A session folder removed while its session is open (by hand, another program): the next turn
// says so, and nothing Braid writes on the way (the turn's prompt blobs, an image) brings the
// folder back half-empty.
test('a session folder removed while open: the next prompt fails saying so, and the folder stays gone', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([fauxAssistantMessage('first answer')]);
    const first = await f.open();
    await first.submit('first prompt');
    await first.waitForIdle();
    await first.close();
    const session = await f.open({}, first.id); // opened again: its first turn here stores its prompt blobs
    const dir = f.store.locate(session.id);
    fs.rmSync(dir, { recursive: true, force: true });

    const ends: PromptInfo[] = [];
    session.onEvent((e) => void (e.type === 'prompt' && e.prompt.state === 'failed' && ends.push(e.prompt)));
    await session.submit('second prompt');
    await session.waitForIdle();
    assert.match(ends[0]?.reason ?? '', /the folder of session \S+ was removed while it was open, not by Braid \(it is not in the trash\)/);
    assert.equal(fs.existsSync(dir), false, 'the folder was not brought back');

    const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
    await assert.rejects(
      session.submit('an image', { attachments: [{ kind: 'image', label: 'pixel.png', text: '', image: { mimeType: 'image/png', data: png } }] }),
      /the session folder .* is gone, so nothing more can be stored in it/,
    );
    assert.equal(fs.existsSync(dir), false, 'an image does not bring it back either');
  } finally {
    await f.cleanup();
  }
});
