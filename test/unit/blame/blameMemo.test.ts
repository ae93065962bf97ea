import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { BlobStore } from '../../../src/core/format/blobStore';
import { forkSession } from '../../../src/core/store/fork';
import { planGc, runGc } from '../../../src/core/store/gc';
import { blameFile, blameWorkspaceKeys, type BlamedLine } from '../../../src/core/store/blame';
import { dropBlameMemos } from '../../../src/core/store/blameMemo';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { seededRandom } from '../../support/corruptStore';
import { openStore, tempRoots, userMessage } from '../../support/store';

// Blame keeps a memo of each file it followed, and the next blame goes on from it, reading only
// the turns that are new since. Whatever happened in between (new writes by several sessions,
// edits by hand, an earlier image brought back, a fork), the answer must be the one a blame
// without a memo gives.

const { root, cleanup } = tempRoots();
after(cleanup);

interface Rig {
  readonly store: SessionStore;
  readonly file: string;
  readonly blobsOf: Map<string, BlobStore>;
  readonly images: string[];
  ts: number;
}

async function rig(): Promise<Rig> {
  const workspace = fs.realpathSync(root());
  const file = path.join(workspace, 'app.ts');
  fs.writeFileSync(file, 'first\nsecond\nthird\n');
  return { store: await openStore(root()), file, blobsOf: new Map(), images: [], ts: 1_790_000_000_000 };
}

/**
 * A turn of session `id` that writes `after` over the file as it is on disk (`toolCallId` makes it
 * an Undo when it says so); `late` records it as made before the last write (a turn of another
 * window that ends after a later one).
 */
async function writeTurn(r: Rig, id: string, prompt: string, after: string, toolCallId = `call-${r.ts}`, late = false): Promise<void> {
  const w = await r.store.openWriter(id);
  try {
    const blobs = new BlobStore(r.store.layout.blobsDir(w.dir));
    const before = blobs.put(fs.readFileSync(r.file));
    const turn = await w.beginTurn(`t-${prompt}`, { provider: 'test', id: 'm', thinking: 'off' });
    await w.appendMessage(userMessage(prompt));
    r.ts += 1000;
    const hash = blobs.put(Buffer.from(after));
    await w.append({ t: 'file_change', turn, toolCallId, path: 'app.ts', before, after: hash, root: path.dirname(r.file), ts: late ? r.ts - 1500 : r.ts });
    await w.endTurn('completed');
    fs.writeFileSync(r.file, after);
    r.images.push(after);
  } finally {
    await w.close();
  }
}

function blamed(r: Rig): Array<[string, string | null]> {
  const keys = blameWorkspaceKeys(r.store.index, path.dirname(r.file), r.file);
  return blameFile(r.store.index, r.store.layout, keys, r.file).map((l: BlamedLine) => [
    l.text,
    l.author && `${l.author.sessionId} #${l.author.turn} ${l.author.prompt}`,
  ]);
}

/** Blame as it is (the memo kept so far), then without any memo; the memo the first left is put back. */
function bothWays(r: Rig): { kept: Array<[string, string | null]>; fresh: Array<[string, string | null]> } {
  const kept = blamed(r);
  const dir = r.store.layout.blameMemoDir;
  const saved = `${dir}.saved`;
  if (fs.existsSync(dir)) fs.renameSync(dir, saved);
  const fresh = blamed(r);
  fs.rmSync(dir, { recursive: true, force: true });
  if (fs.existsSync(saved)) fs.renameSync(saved, dir);
  return { kept, fresh };
}

function edited(text: string, next: ReturnType<typeof seededRandom>): string {
  const lines = text.split('\n').slice(0, -1);
  const at = next.int(lines.length + 1);
  const op = next.int(3);
  if (op === 0 || lines.length === 0) lines.splice(at, 0, `line ${next.int(1e6)}`);
  else if (op === 1) lines.splice(Math.min(at, lines.length - 1), 1);
  else lines[Math.min(at, lines.length - 1)] = `changed ${next.int(1e6)}`;
  return `${lines.join('\n')}\n`;
}

test('a blame that goes on from its memo answers as one that replays every write, whatever came in between', async () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const next = seededRandom(seed);
    const r = await rig();
    try {
      const ids = [(await r.store.create({ workspaceDir: path.dirname(r.file) })).id, (await r.store.create({ workspaceDir: path.dirname(r.file) })).id];
      for (let step = 0; step < 24; step++) {
        const now = fs.readFileSync(r.file, 'utf8');
        const op = next.int(10);
        if (op < 4) await writeTurn(r, next.pick(ids), `write ${step}`, edited(edited(now, next), next));
        else if (op < 5) await writeTurn(r, next.pick(ids), `late ${step}`, edited(now, next), undefined, true);
        else if (op < 7)
          fs.writeFileSync(r.file, edited(now, next)); // by hand
        else if (op < 8 && r.images.length > 1)
          await writeTurn(r, next.pick(ids), `back ${step}`, next.pick(r.images)); // an earlier image again
        else if (op < 9 && r.images.length > 1) await writeTurn(r, next.pick(ids), `undo ${step}`, next.pick(r.images), `undo-${step}`);
        else {
          const fork = await forkSession(r.store, next.pick(ids));
          ids.push(fork.id);
        }
        const { kept, fresh } = bothWays(r);
        assert.deepEqual(kept, fresh, `seed ${seed}, step ${step}`);
      }
    } finally {
      await r.store.close();
    }
  }
});

test('a blame after one more write reads the new turn only: the turns it followed before are not read again', async () => {
  const r = await rig();
  try {
    const id = (await r.store.create({ workspaceDir: path.dirname(r.file) })).id;
    await writeTurn(r, id, 'the first prompt', 'first\nsecond by a turn\nthird\n');
    assert.equal(blamed(r)[1]![1], `${id} #1 the first prompt`);
    // The first turn's prompt, changed in place to one as long: a blame that read the turn again would say it.
    const log = r.store.layout.agentLog(r.store.locate(id));
    fs.writeFileSync(log, fs.readFileSync(log, 'utf8').replaceAll('the first prompt', 'THE FIRST PROMPT'));
    await writeTurn(r, id, 'the second prompt', 'first\nsecond by a turn\nthird by another\n');
    assert.deepEqual(
      blamed(r).map(([, a]) => a),
      [null, `${id} #1 the first prompt`, `${id} #2 the second prompt`],
    );
    dropBlameMemos(r.store.layout);
    assert.equal(blamed(r)[1]![1], `${id} #1 THE FIRST PROMPT`, 'without the memo every turn is read');
  } finally {
    await r.store.close();
  }
});

test('braid gc drops the memos: a write whose images it removed is followed no further, as without a memo', async () => {
  const r = await rig();
  try {
    const old = (await r.store.create({ workspaceDir: path.dirname(r.file) })).id;
    const recent = (await r.store.create({ workspaceDir: path.dirname(r.file) })).id;
    await writeTurn(r, old, 'write two', 'first\nsecond by a turn\nthird\n');
    await writeTurn(r, recent, 'write three', 'first\nsecond by a turn\nthird by a turn\n');
    assert.deepEqual(
      blamed(r).map(([, a]) => a),
      [null, `${old} #1 write two`, `${recent} #1 write three`],
    );
    const plan = planGc(r.store, { now: Date.now() + 400 * 24 * 3600 * 1000 });
    const onlyOld = { ...plan, sessions: plan.sessions.filter((s) => s.id === old), trash: [] };
    assert.ok(onlyOld.sessions[0]!.checkpoints.hashes.length > 0, "gc removes the old session's images");
    await runGc(r.store, onlyOld);
    assert.deepEqual(
      blamed(r).map(([, a]) => a),
      [null, null, `${recent} #1 write three`],
    );
  } finally {
    await r.store.close();
  }
});
