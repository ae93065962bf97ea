import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { nativeSqlite } from '../../../bench/indexScale/nativeSqlite';
import { writeRealisticSessions } from '../../../bench/indexScale/realisticStore';
import { OUTPUT_WORD, PROMPT_WORD, storeShape } from '../../../bench/indexScale/storeShape';
import { drawn } from '../../../bench/turnOps/sessionShape';
import { random } from '../../../bench/benchInputs';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { openStore, repoRoot, tempRoots } from '../../support/store';

// The index-scale benchmark's realistic stores (bench/indexScale/realisticStore.ts): the store and
// its peers must hold the same sessions, and the planted words must be where the rows say they are,
// or the figures set beside Braid's mean nothing.
const roots = tempRoots();
after(roots.cleanup);

const WORKSPACES = 3;

function generated(count: number) {
  const root = roots.root();
  const workspaceDir = (n: number) => path.join(root, 'workspaces', `workspace-${n}`);
  const stateDb = path.join(root, 'state.sqlite');
  const measured = writeRealisticSessions(path.join(root, 'store'), stateDb, {
    count,
    workspaces: WORKSPACES,
    longTurns: 40,
    shape: storeShape(repoRoot),
    workspaceDir,
    say: () => {},
  });
  return { store: path.join(root, 'store'), stateDb, measured, workspaceDir };
}

/** The session ids whose main log holds `word` as a word (what `grep -rlw` finds). */
function holding(storeRoot: string, word: string): string[] {
  const found: string[] = [];
  const sessions = path.join(storeRoot, 'sessions');
  for (const key of fs.readdirSync(sessions))
    for (const id of fs.readdirSync(path.join(sessions, key)).filter((n) => n.startsWith('ses_'))) {
      if (new RegExp(`\\b${word}\\b`).test(fs.readFileSync(path.join(sessions, key, id, 'agents', 'main', 'wire.jsonl'), 'utf8'))) found.push(id);
    }
  return found.sort();
}

test('the store opens as Braid wrote it: every session listed with its turns, the measured ones 20 and the long length', async () => {
  const { store, measured, workspaceDir } = generated(60);
  const opened = await openStore(store);
  try {
    const rows = [0, 1, 2].flatMap((n) => opened.index.list({ workspaceKey: workspaceKey(workspaceDir(n)) }));
    assert.equal(rows.length, 60);
    const turns = new Map(rows.map((r) => [r.id, r.turnCount]));
    assert.equal(turns.get(measured.short.id), 20);
    assert.equal(turns.get(measured.long.id), 40);
    assert.ok(rows.every((r) => r.turnCount >= 3));
  } finally {
    await opened.close();
  }
});

test('the planted words are each in their 2% of sessions, the prompt word found by a search of the prompts', async () => {
  const { store } = generated(150);
  const promptHolders = holding(store, PROMPT_WORD);
  const outputHolders = holding(store, OUTPUT_WORD);
  assert.equal(promptHolders.length, WORKSPACES, 'one session in 50 of each workspace');
  assert.equal(outputHolders.length, WORKSPACES);
  assert.equal(promptHolders.filter((id) => outputHolders.includes(id)).length, 0);
  const opened = await openStore(store);
  try {
    const found = opened.index.search(PROMPT_WORD, {}).map((r) => r.id);
    assert.deepEqual(found.sort(), promptHolders);
  } finally {
    await opened.close();
  }
});

test('the Codex-style state database holds a row per session with its workspace', () => {
  const { store, stateDb, workspaceDir } = generated(30);
  const { command, args } = nativeSqlite().command(
    stateDb,
    `SELECT count(*), count(DISTINCT cwd) FROM threads WHERE cwd LIKE '${path.dirname(workspaceDir(0))}%'`,
  );
  const out = spawnSync(command, args, { encoding: 'utf8' }).stdout.trim();
  assert.equal(out, '30|3');
  assert.ok(fs.existsSync(path.join(store, 'sessions')));
});

test("sizes drawn from the store's cut points stay within them, tool outputs around 1 KB at the median", () => {
  const shape = storeShape(repoRoot);
  const next = random(7);
  const outputs = Array.from({ length: 4001 }, () => drawn(shape.turn.toolOutputChars, next)).sort((a, b) => a - b);
  assert.ok(outputs[0]! >= shape.turn.toolOutputChars[0]! && outputs.at(-1)! <= 65_536);
  assert.ok(Math.abs(outputs[2000]! - 1024) < 150, `median ${outputs[2000]}`);
  const turns = Array.from({ length: 2001 }, () => drawn(shape.turns, next));
  assert.ok(Math.min(...turns) >= 3 && Math.max(...turns) <= 150);
});
