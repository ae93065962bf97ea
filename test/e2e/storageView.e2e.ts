import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { formatBytes } from '../../src/core/bytes';
import { BlobStore } from '../../src/core/format/blobStore';
import { storeShortForms } from '../../src/core/format/sessionShortIds';
import { storageReport } from '../../src/core/store/storage';
import { readWireLog } from '../../src/core/wire/wireReader';
import { addTurn, openStore } from '../support/store';
import { Workbench } from '../support/workbench';

// Braid: Show Storage: a read-only document with the data folder's bytes by workspace and by
// session (also offered by the notice of a window over `braid.storage.budgetMB`); its title bar's Review Removable Storage… shows what gc would remove and removes it
// only after a modal confirmation, logging a gc record in the session.
let workbench: Workbench;

before(async () => {
  workbench = await Workbench.launch({
    name: 'storage-view',
    // 10 KiB: a new store's index is over it, so the window says so at its start.
    settings: { 'braid.storage.budgetMB': 0.01 },
    files: { 'README.md': '# A workspace for the Storage view\n' },
  });
});

after(async () => {
  await workbench?.close();
});

/** The text of the editor showing `tab`, one line per rendered line (no-break spaces as spaces). */
async function editorText(): Promise<string> {
  const lines = workbench.page.locator('.part.editor .editor-group-container.active .monaco-editor .view-lines .view-line');
  await lines.first().waitFor({ timeout: 10_000 });
  return (await lines.allTextContents()).map((l) => l.replace(/\u00a0/g, ' ')).join('\n');
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('over its budget the window says so once; Show Storage lists the sizes by session; Review Removable Storage… removes an orphaned blob only after a modal confirmation', async () => {
  await workbench.openChat();
  // A session another process wrote: a checkpoint of a file and a blob no record names.
  const store = await openStore(workbench.globalStorage);
  const session = await store.create({ workspaceDir: workbench.workspace, title: 'A session with checkpoints' });
  const dir = store.locate(session.id);
  const blobs = new BlobStore(store.layout.blobsDir(dir));
  const orphan = blobs.put(Buffer.alloc(300_000, 3));
  const writer = await store.openWriter(session.id);
  await addTurn(writer, 'Keep a checkpoint', 'Kept.');
  const checkpoint = blobs.put(Buffer.from('the file before\n'));
  await writer.append({ t: 'file_change', turn: 1, toolCallId: 'c1', path: 'README.md', root: workbench.workspace, before: checkpoint, after: null });
  await writer.close();
  const row = storageReport(store.layout, store.index).sessions.find((s) => s.id === session.id)!;
  // The view names a session by its short form, as the CLI does.
  const shown = storeShortForms(store.layout)(session.id);
  assert.ok(shown.length < session.id.length && session.id.toUpperCase().endsWith(shown.toUpperCase()), shown);
  await store.close();

  const notice = workbench.page.locator('.notifications-toasts .notification-toast', {
    hasText: /over its budget of 0\.01 MB \(braid\.storage\.budgetMB\)\. Braid removes nothing by itself\./,
  });
  await notice.waitFor({ timeout: 20_000 });
  await workbench.screenshot('over-budget');
  await notice.locator('.monaco-button', { hasText: /^Show Storage$/ }).click();
  await workbench.page.locator('.tabs-container .tab', { hasText: 'Braid Storage' }).waitFor({ timeout: 10_000 });
  const text = await editorText();
  assert.match(text, /^Braid's storage: \d+(\.\d+)? (KiB|MiB) in .+\n\s+logs [\d.]+ \w+, blobs \(checkpoints, images, prompts\) [\d.]+ \w+, trash/);
  const sizes = [row.bytes, row.logs, row.blobs].map((n) => escape(formatBytes(n))).join('\\s+');
  assert.match(text, new RegExp(`\\s${sizes}\\s+${shown}\\s+A session with checkpoints`), text);
  assert.match(formatBytes(row.blobs), /^29\d\.\d KiB$/, 'the orphan and the checkpoint');
  assert.match(text, new RegExp(escape(workbench.workspace)));
  assert.match(text, /Budget \(braid\.storage\.budgetMB\): 0\.01 MB, exceeded/);
  await workbench.screenshot('show-storage');

  await workbench.page.locator('.editor-actions .action-label[aria-label^="Review Removable Storage"]').click();
  const dialog = workbench.page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 10_000 });
  assert.match((await dialog.textContent()) ?? '', /Remove 293\.0 KiB of Braid's storage\?/);
  const proposal = await editorText();
  assert.match(proposal, new RegExp(`orphaned\\s+293\\.0 KiB\\s+${shown}\\s+"A session with checkpoints"\\s+\\(1 blob no record names\\)`), proposal);
  assert.doesNotMatch(proposal, /checkpoints\s+\d/, 'a session touched today keeps its checkpoints');
  await workbench.screenshot('review-removable-storage');
  assert.ok(fs.existsSync(blobs.pathOf(orphan)), 'nothing is removed before the confirmation');
  await dialog.locator('.monaco-button', { hasText: /^Remove$/ }).click();
  await workbench.page.locator('.notifications-toasts', { hasText: /Removed 293\.0 KiB of Braid's storage\./ }).waitFor({ timeout: 10_000 });
  assert.equal(fs.existsSync(blobs.pathOf(orphan)), false);
  assert.ok(fs.existsSync(blobs.pathOf(checkpoint)), 'the checkpoint stays');
  const gc = readWireLog(`${dir}/agents/main/wire.jsonl`).records.filter((r) => r.t === 'gc');
  assert.deepEqual(
    gc.map((r) => [(r as { reason: string }).reason, (r as { blobs: number }).blobs, (r as { bytes: number }).bytes]),
    [['orphaned', 1, 300_000]],
  );
  await workbench.page.locator('.part.editor').getByText('Nothing to remove.').waitFor({ timeout: 10_000 });
  await workbench.screenshot('removed');
});
