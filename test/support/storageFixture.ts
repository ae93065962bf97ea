import fs from 'node:fs';
import path from 'node:path';
import type { Message } from '@mariozechner/pi-ai';
import { BlobStore } from '../../src/core/format/blobStore';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { assistantMessage, openStore, tempDir, userMessage } from './store';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** A store with what gc and the storage report look at, built through the store's own writers. */
export interface StorageFixture {
  readonly root: string;
  readonly workspace: string;
  readonly store: SessionStore;
  /** A session whose turn 1 changed a.txt ('one' -> 'two'), with a prompt image and one orphaned blob. */
  readonly changed: { id: string; dir: string; prompt: string; before: string; after: string; image: string; orphan: string };
  /** A second session with one orphaned blob (a test holds its writer). */
  readonly other: { id: string; dir: string; orphan: string };
  /** A session moved to the trash. */
  readonly trashed: { id: string };
  cleanup(): Promise<void>;
}

export async function storageFixture(): Promise<StorageFixture> {
  const root = tempDir('braid-storage-');
  const workspace = fs.realpathSync(tempDir('braid-storage-ws-'));
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'two\n');
  const store = await openStore(root);

  const a = await store.create({ workspaceDir: workspace });
  const dirA = store.locate(a.id);
  const blobsA = new BlobStore(store.layout.blobsDir(dirA));
  const before = blobsA.put(Buffer.from('one\n'));
  const after = blobsA.put(Buffer.from('two\n'));
  const image = blobsA.put(Buffer.from('not really a png, but a prompt image all the same'));
  const orphan = blobsA.put(Buffer.alloc(4096, 7)); // a command's snapshot of a file it left alone
  const w = await store.openWriter(a.id);
  await w.beginTurn('p-1', { provider: 'test', id: 'test-model', thinking: 'off' });
  const prompt = await w.appendMessage({
    role: 'user',
    content: [
      { type: 'image', mimeType: 'image/png', blob: image },
      { type: 'text', text: 'change a.txt' },
    ],
    timestamp: Date.now(),
  } as unknown as Message);
  await w.append({ t: 'file_change', turn: 1, toolCallId: 'call-1', path: 'a.txt', root: workspace, before, after });
  await w.appendMessage(assistantMessage('changed it'));
  await w.endTurn('completed');
  await w.beginTurn('p-2', { provider: 'test', id: 'test-model', thinking: 'off' });
  await w.appendMessage(userMessage('thanks'));
  await w.appendMessage(assistantMessage('you are welcome'));
  await w.endTurn('completed');
  await w.close();

  const b = await store.create({ workspaceDir: workspace });
  const dirB = store.locate(b.id);
  const otherOrphan = new BlobStore(store.layout.blobsDir(dirB)).put(Buffer.alloc(1000, 1));

  const c = await store.create({ workspaceDir: workspace });
  await store.delete(c.id);

  return {
    root,
    workspace,
    store,
    changed: { id: a.id, dir: dirA, prompt: prompt.id, before, after, image, orphan },
    other: { id: b.id, dir: dirB, orphan: otherOrphan },
    trashed: { id: c.id },
    async cleanup() {
      await store.close();
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** Whether a session folder still has a blob. */
export function hasBlob(dir: string, hash: string): boolean {
  return fs.existsSync(path.join(dir, 'blobs', hash.slice(0, 2), hash));
}

/** The bytes of every file under `dir`. */
export function bytesUnder(dir: string): number {
  let n = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) n += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return n;
}
