import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { listSessionFolders } from '../../src/core/format/layout';
import { sweepPartials } from '../../src/core/store/fork';
import { readState } from '../../src/core/format/sessionState';
import { replay } from '../../src/core/wire/replay';
import { readWireLog } from '../../src/core/wire/wireReader';
import { assertIndexAgrees, doctorFinds, runUntilKilled, trials } from '../support/faults';
import { addTurn, openStore, tempDir, wasmPath } from '../support/store';

// A process forking a session is killed with SIGKILL at random moments, many times. Every fork
// that is visible must be whole; partial folders stay invisible and are swept; the source never
// changes.
const KILLS = trials('BRAID_FORK_KILLS', 100, 400);
const root = tempDir('braid-forkcrash-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

test(`${KILLS} SIGKILLs during forks never leave a visible partial session, and the source is untouched`, async () => {
  const store = await openStore(root);
  const source = await store.create({ workspaceDir: '/fork-crash' });
  const writer = await store.openWriter(source.id);
  for (let t = 1; t <= 4; t++) await addTurn(writer, `prompt ${t} ${'words '.repeat(400)}`, `answer ${t} ${'more '.repeat(2000)}`);
  await writer.close();
  const sourceDir = store.locate(source.id);
  const digest = () =>
    createHash('sha256')
      .update(fs.readFileSync(path.join(sourceDir, 'agents', 'main', 'wire.jsonl')))
      .update(fs.readFileSync(path.join(sourceDir, 'state.json')))
      .digest('hex');
  const before = digest();
  await store.close();

  for (let i = 0; i < KILLS; i++) await runUntilKilled('forkWorker', [root, source.id, wasmPath, '4'], Math.random() * 80);

  const layout = (await openStore(root)).layout;
  let forks = 0;
  for (const folder of listSessionFolders(layout)) {
    if (folder.id === source.id) continue;
    forks++;
    const state = readState(path.join(folder.dir, 'state.json'));
    assert.equal(state.forkedFrom?.sessionId, source.id);
    const { records, report } = readWireLog(path.join(folder.dir, 'agents', 'main', 'wire.jsonl'));
    assert.equal(report.badLines, 0);
    assert.equal(records.at(-1)!.t, 'forked', 'a visible fork is complete');
    const history = replay(records);
    assert.equal(history.turnBegins.length, state.forkedFrom?.turn ?? 4);
    assert.equal(history.openTurn, null);
  }
  assert.ok(forks > 0, 'some forks completed between the kills');
  assert.equal(digest(), before, 'the source never changed');
  const recheck = await openStore(root);
  sweepPartials(recheck, undefined, Date.now() + 60 * 60 * 1000);
  const leftovers = fs.readdirSync(path.join(root, 'sessions', source.workspaceKey)).filter((n) => n.startsWith('.partial-'));
  assert.deepEqual(leftovers, []);
  await recheck.close();
  assert.deepEqual((await doctorFinds(root)).left, []);
  await assertIndexAgrees(root);
});
