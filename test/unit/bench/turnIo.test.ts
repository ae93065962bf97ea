import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { countsBetween, FsCounter } from '../../../bench/turnIo/fsCounter';
import { sectionOf, withColumnFigures } from '../../../bench/resultsSection';
import { TURN_IO_SECTION } from '../../../bench/turnIo/runTurnIo';
import { writeFileAtomic } from '../../../src/core/fs/atomic';
import { withFileLock } from '../../../src/core/fs/fileLock';
import { tempRoots } from '../../support/store';

// The per-turn state I/O bench's counting and its RESULTS.md section (bench/turnIo/).
const roots = tempRoots();
after(roots.cleanup);

test('the fs counter names a state.json replace, its two fsyncs, a read and a lock by file', async () => {
  const root = roots.root();
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const counter = new FsCounter(workspace).install();
  try {
    const before = counter.snapshot();
    await withFileLock(path.join(root, 'state.lock'), { staleMs: 10_000, timeoutMs: 1_000 }, () => writeFileAtomic(path.join(root, 'state.json'), '{}\n'));
    fs.readFileSync(path.join(root, 'state.json'));
    fs.readFileSync(path.join(root, 'state.json'), 'utf8');
    fs.writeFileSync(path.join(workspace, 'notes.txt'), 'x');
    const counts = countsBetween(before, counter.snapshot());
    assert.equal(counts.get('renameSync state.json'), 1);
    assert.equal(counts.get('fsyncSync state.json'), 1, 'the temp file');
    assert.equal(counts.get('fsyncSync state.json (folder)'), 1, 'the folder, after the rename');
    assert.equal(counts.get('readFileSync state.json'), 2);
    assert.equal(counts.get('lock state.lock'), 1);
    assert.equal(counts.get('writeFileSync workspace'), 1);
    assert.equal(counts.get('openSync state.json'), 1, 'the temp file; readFileSync opening its file is not counted again');
  } finally {
    counter.uninstall();
  }
  const after = counter.snapshot();
  fs.readFileSync(path.join(root, 'state.json'));
  assert.deepEqual(counter.snapshot(), after, 'nothing is counted once uninstalled');
});

test('a run fills its column of the section and keeps the other column, the notes and the rest of RESULTS.md', () => {
  const base = '# Benchmark results\n\n| measure | x |\n| --- | --- |\n| a | 1 |\n';
  const before = withColumnFigures(
    base,
    TURN_IO_SECTION,
    'How.',
    [
      ['plain turn: state.json writes', '4'],
      ['gone: reads', '9'],
    ],
    'before',
    'commit aaa',
  );
  const both = withColumnFigures(
    `${before}\n## Later section\n\nkept\n`,
    TURN_IO_SECTION,
    'How.',
    [['plain turn: state.json writes', '1']],
    'after',
    'commit bbb',
  );
  assert.ok(both.startsWith(base));
  assert.match(both, /\| plain turn: state\.json writes \| 4 \| 1 \|/);
  assert.match(both, /\| gone: reads \| 9 \| {2}\|/);
  assert.match(both, /- before: commit aaa\n- after: commit bbb/);
  assert.match(both, /\n\n## Later section\n\nkept\n$/);
  assert.equal(sectionOf(both, TURN_IO_SECTION.heading).match(/## Per-turn state I\/O/g)?.length, 1);

  // A later before run that no longer writes "gone: reads" (a row renamed): its old figure goes, and the row with it.
  const renamed = withColumnFigures(both, TURN_IO_SECTION, 'How.', [['plain turn: state.json writes', '5']], 'before', 'commit ccc');
  assert.match(renamed, /\| plain turn: state\.json writes \| 5 \| 1 \|/);
  assert.doesNotMatch(renamed, /gone: reads/, 'a row no column measures any more is dropped');
  const afterOnly = withColumnFigures(renamed, TURN_IO_SECTION, 'How.', [['new name', '2']], 'after', 'commit ddd');
  assert.match(afterOnly, /\| plain turn: state\.json writes \| 5 \| {2}\|/, "the after run's stale figure leaves, the before figure stays");
  assert.match(afterOnly, /\| new name \| {2}\| 2 \|/);

  // What the section says after its table, written by hand, stays through the next run.
  const explained = afterOnly.replace(
    '\n\n## Later section',
    '\n\nWhy: a profile says so.\n\n| a table | of | its own |\n\n- after: a point\n\n## Later section',
  );
  const rerun = withColumnFigures(explained, TURN_IO_SECTION, 'How.', [['new name', '3']], 'after', 'commit eee');
  assert.match(
    rerun,
    /- after: commit eee\n\n\| per turn \| before \| after \|\n\| --- \| --- \| --- \|\n\| new name \| {2}\| 3 \|\n\| plain turn: state\.json writes \| 5 \| {2}\|\n\nWhy: a profile says so\.\n\n\| a table \| of \| its own \|\n\n- after: a point\n\n## Later section\n\nkept\n$/,
  );
});
