import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ScriptedModelServer } from '../support/modelServer';
import { addTurn, openStore } from '../support/store';
import { Workbench } from '../support/workbench';
import { workspaceKey } from '../../src/core/workspace/workspaceKey';

// A data folder damaged behind Braid's back, in a real VS Code: random bytes in index.sqlite and
// in a state.json, a log with garbage, invalid UTF-8, a 10 MB line and records from a future
// Braid, and a session folder removed while it is open. The window reloads onto that damage; the
// extension host keeps running, every session is listed and readable as far as it can be, the
// damaged ones still take prompts, and the removed one gives a clear message.
const model = new ScriptedModelServer();
let workbench: Workbench;
const ids: Record<'intact' | 'damaged' | 'broken', string> = { intact: '', damaged: '', broken: '' };

before(async () => {
  await model.start();
  workbench = await Workbench.launch({
    name: 'corruption',
    settings: model.vscodeSettings(),
  });
});

after(async () => {
  await workbench?.close();
  await model.close();
});

const chat = () => workbench.chatFrame();
const row = (text: string | RegExp) => workbench.page.locator('.part.sidebar .monaco-list-row', { hasText: text }).first();

async function reload(): Promise<void> {
  await workbench.page.reload();
  await workbench.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await workbench.page
    .locator('.pane-header', { hasText: 'Sessions' })
    .first()
    .waitFor({ timeout: 10_000 })
    .catch(() => undefined);
  await workbench.openBraid();
}

test('a damaged data folder: every session listed and readable after a reload, the damaged ones take prompts', async () => {
  await workbench.openBraid();
  await chat().locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  const store = await openStore(workbench.globalStorage);
  for (const [key, title] of [
    ['intact', 'Intact session'],
    ['damaged', 'Damaged log'],
    ['broken', 'Broken state'],
  ] as const) {
    const session = await store.create({ workspaceDir: workbench.workspace });
    ids[key] = session.id;
    const writer = await store.openWriter(session.id);
    for (let t = 1; t <= 2; t++) await addTurn(writer, `${title} prompt ${t}`, `${title} answer ${t}`);
    if (key === 'damaged') {
      const log = path.join(store.locate(session.id), 'agents', 'main', 'wire.jsonl');
      fs.appendFileSync(log, 'this line is not JSON at all\n');
      fs.appendFileSync(
        log,
        Buffer.concat([
          Buffer.from('{"v":1,"t":"message","turn":2,"id":"bad-utf8","message":{"role":"user","content":"'),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from('"}}\n'),
        ]),
      );
      fs.appendFileSync(log, `{"v":1,"t":"note","text":"${'x'.repeat(10 * 1024 * 1024)}"}\n`);
      fs.appendFileSync(log, '{"v":7,"t":"hologram","turn":2,"shape":"torus"}\n');
      await addTurn(writer, `${title} prompt 3 after the damage`, `${title} answer 3`);
    }
    await writer.close();
    await store.rename(session.id, title);
  }
  const brokenState = path.join(store.locate(ids.broken), 'state.json');
  await store.close();
  fs.writeFileSync(brokenState, randomBytes(300));
  const index = path.join(store.layout.workspaceDir(workspaceKey(workbench.workspace)), 'index.sqlite');
  const image = fs.readFileSync(index);
  randomBytes(4096).copy(image, 0);
  fs.writeFileSync(index, image);

  await reload();
  // The tree lists all three; the broken state's title comes back from its log (its first prompt).
  await row('Intact session').waitFor({ timeout: 30_000 });
  await row('Damaged log').waitFor({ timeout: 10_000 });
  await row(/Broken state/).waitFor({ timeout: 10_000 });
  await workbench.screenshot('damaged-store-listed');

  await row('Damaged log').click();
  await chat().locator(`body[data-session="${ids.damaged}"]`).waitFor({ timeout: 30_000 });
  for (const text of ['Damaged log prompt 1', 'Damaged log answer 2', 'Damaged log prompt 3 after the damage', 'Damaged log answer 3']) {
    await chat().locator('.message', { hasText: text }).first().waitFor({ timeout: 10_000 });
  }
  // The chat says that lines were skipped, and how many (the garbage line; the invalid UTF-8 one still reads).
  const damaged = chat().locator('[data-role="damaged"]');
  await damaged.waitFor({ timeout: 10_000 });
  assert.match((await damaged.textContent()) ?? '', /One line of this session's log could not be read and was skipped.*braid doctor/);
  model.enqueue({ kind: 'text', chunks: ['Still working after the damage.'] });
  await workbench.send('Does this session still work?');
  await chat().locator('.message.assistant', { hasText: 'Still working after the damage.' }).waitFor();
  await workbench.screenshot('damaged-log-opened-and-prompted');
  await damaged.locator('[data-role="damaged-dismiss"]').click();
  await damaged.waitFor({ state: 'hidden' });

  await row(/Broken state/).click();
  await chat().locator(`body[data-session="${ids.broken}"]`).waitFor({ timeout: 30_000 });
  await chat().locator('.message', { hasText: 'Broken state answer 2' }).waitFor({ timeout: 10_000 });
  assert.equal(await chat().locator('[data-role="damaged"]').isVisible(), false, 'an intact log shows no damage note');
  model.enqueue({ kind: 'text', chunks: ['The state was rebuilt.'] });
  await workbench.send('And this one?');
  await chat().locator('.message.assistant', { hasText: 'The state was rebuilt.' }).waitFor();
  await workbench.screenshot('broken-state-opened-and-prompted');
});

test('a session folder removed while it is open: a clear message, the window goes on working', async () => {
  await row('Intact session').click();
  await chat().locator(`body[data-session="${ids.intact}"]`).waitFor({ timeout: 30_000 });
  const store = await openStore(workbench.globalStorage);
  const dir = store.locate(ids.intact);
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });

  const asked = model.requests.length;
  await workbench.send('Where did my session go?', 'failed');
  assert.equal(model.requests.length, asked, 'the model was not asked for a session that cannot be saved');
  const status = chat().locator('.turn-status[data-outcome="failed"]').last();
  assert.match((await status.textContent()) ?? '', /folder of session \S+ was removed while it was open, not by Braid \(it is not in the trash\)/);
  assert.equal(fs.existsSync(dir), false, 'the removed folder is not brought back half-empty');
  await workbench.screenshot('removed-while-open');
  // The tree drops it, and a new session works.
  await row('Intact session').waitFor({ state: 'detached', timeout: 15_000 });
  await workbench.newSession();
  await chat().locator(`body[data-session="${ids.intact}"]`).waitFor({ state: 'detached', timeout: 15_000 });
  model.enqueue({ kind: 'text', chunks: ['A fresh session works.'] });
  await workbench.send('Start again');
  await chat().locator('.message.assistant', { hasText: 'A fresh session works.' }).waitFor();
  await workbench.screenshot('new-session-after-removal');
});
