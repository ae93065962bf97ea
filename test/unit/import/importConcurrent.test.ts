import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { importSessions } from '../../../src/core/import/importer';
import { StoreLayout } from '../../../src/core/format/layout';
import { IndexFile } from '../../../src/core/index/indexFile';
import { deleteSessionRow } from '../../../src/core/index/indexRows';
import { loadSqlJs } from '../../../src/core/index/sqlite';
import { silentLogger } from '../../../src/core/logger';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { braidIn, braidProcess } from '../../support/cli';
import { numberedTurns, writeClaudeSession } from '../../support/sourceSessions';
import { openStore, tempDir, wasmPath } from '../../support/store';

// Two imports of one source at once, one of them killed; a session a cut-short import left
// published; a session an older importer wrote. What is published holds the whole source, what
// is reported happened, and a re-import repairs what an earlier one left short.
let root: string;
let data: string;
let workspace: string;
let source: string;
const TURNS = 3000;
const MARCH = Date.UTC(2026, 2, 5, 9, 0);
beforeEach(() => {
  root = tempDir('braid-import-race-');
  data = path.join(root, 'data');
  workspace = path.join(root, 'project');
  fs.mkdirSync(workspace);
  source = writeClaudeSession(path.join(root, 'projects', '-project'), { id: 'big', cwd: workspace, turns: numberedTurns(TURNS), startMs: MARCH });
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const braid = (args: string[]) => braidIn(['--data-dir', data, ...args], { cwd: workspace });

async function withStore<T>(fn: (store: SessionStore) => Promise<T>): Promise<T> {
  const store = await openStore(data);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The published sessions' turn counts, read from their logs (not from what any import said). */
async function publishedTurns(): Promise<number[]> {
  return withStore(async (store) => store.index.list({ limit: 10 }).map((row) => store.history(row.id).turnBegins.length));
}

test('two imports of one new source at once, the later one killed as the first ends: what is published is whole, and what the first says is true', async () => {
  for (let trial = 0; trial < 3; trial++) {
    fs.rmSync(data, { recursive: true, force: true });
    const args = ['--data-dir', data, '--workspace', workspace, 'import', '--json', source];
    // The second starts while the first is building the session, and dies once the first is done:
    // sharing one build folder, the first published the second's half-written copy.
    const first = braidProcess(args, {});
    await new Promise((r) => setTimeout(r, 150 + trial * 150));
    const second = braidProcess(args, {});
    const done = await first.exited(60_000);
    second.kill('SIGKILL');
    await second.exited(10_000).catch(() => undefined);
    assert.equal(done.code, 0, done.err);
    const [outcome] = (JSON.parse(done.out) as { outcomes: Array<{ action: string; turns?: number; reason?: string }> }).outcomes;
    assert.ok(outcome?.action === 'imported' || outcome?.action === 'unchanged', JSON.stringify(outcome));
    assert.equal(outcome.turns, TURNS, `it says what the published session holds (${outcome.reason ?? ''})`);
    assert.deepEqual(await publishedTurns(), [TURNS], `trial ${trial}: one session, whole`);
    const again = await braid(['import', '--json', source]);
    assert.deepEqual(
      (JSON.parse(again.out) as { outcomes: Array<{ action: string }> }).outcomes.map((o) => o.action),
      ['unchanged'],
    );
  }
});

test('an import that finds its session unchanged lists it, though the process that published it died before recording its row', async () => {
  const small = writeClaudeSession(path.join(root, 'projects', '-project'), { id: 'small', cwd: workspace, turns: numberedTurns(3), startMs: MARCH });
  const first = await braid(['import', '--json', small]);
  const id = (JSON.parse(first.out) as { outcomes: Array<{ sessionId: string }> }).outcomes[0]!.sessionId;
  // As a publisher killed between the rename and its row: the folder is there, the index knows nothing of it.
  const layout = new StoreLayout(data);
  const file = new IndexFile(layout, workspaceKey(workspace), await loadSqlJs(wasmPath), silentLogger);
  assert.equal(file.open().kind, 'ready');
  file.use((db) => deleteSessionRow(db, id));
  file.close();
  assert.deepEqual(await publishedTurns(), []);
  const again = await braid(['import', '--json', small]);
  assert.deepEqual(
    (JSON.parse(again.out) as { outcomes: Array<{ action: string }> }).outcomes.map((o) => o.action),
    ['unchanged'],
  );
  assert.deepEqual(await publishedTurns(), [3], 'listed with no catching up with the folders');
});

test('a session an import left cut short (no end record, fewer turns) is written again whole by the next import, each model call counted once', async () => {
  const first = await braid(['import', '--json', source]);
  const id = (JSON.parse(first.out) as { outcomes: Array<{ sessionId: string }> }).outcomes[0]!.sessionId;
  const log = await withStore(async (store) => store.layout.agentLog(store.locate(id)));
  // As an import that died mid-way left it before builds were private: its first lines, cut at a line.
  const lines = fs.readFileSync(log, 'utf8').split('\n');
  fs.writeFileSync(log, `${lines.slice(0, Math.floor(lines.length * 0.4)).join('\n')}\n`);
  await withStore(async (store) => store.index.rebuildFromFolders());
  assert.ok((await publishedTurns())[0]! < TURNS);
  const again = await braid(['import', '--json', source]);
  const [outcome] = (JSON.parse(again.out) as { outcomes: Array<{ action: string; reason: string; turns: number }> }).outcomes;
  assert.equal(outcome?.action, 'repaired');
  assert.match(outcome.reason, /ended before it was complete/);
  assert.equal(outcome.turns, TURNS);
  await withStore(async (store) => {
    const history = store.history(id);
    assert.equal(history.turnBegins.length, TURNS);
    assert.equal(history.messages.length, TURNS * 2, 'each message once in the conversation');
    assert.equal(store.get(id).usage.input, TURNS * 10, 'each model call counted once');
  });
  const third = await braid(['import', '--json', source]);
  assert.equal((JSON.parse(third.out) as { outcomes: Array<{ action: string }> }).outcomes[0]?.action, 'unchanged');
  const doctor = await braid(['doctor']);
  assert.doesNotMatch(doctor.out, /turn|unreadable/i, doctor.out);
});

test('a session an older importer wrote (its context not told from prompts) is written again with today’s mapping; its automatic title follows', async () => {
  const file = writeClaudeSession(path.join(root, 'projects', '-project'), {
    id: 'older',
    cwd: workspace,
    startMs: MARCH,
    before: [{ type: 'user', message: { role: 'user', content: '<command-name>/clear</command-name>\n<command-message>clear</command-message>' } }],
    turns: numberedTurns(2),
  });
  const id = await withStore(async (store) => {
    const [o] = await importSessions(store, { from: 'claude-code', paths: [file], dryRun: false, wasmPath });
    const dir = store.locate(o!.sessionId!);
    // What importer 1 wrote: no `injected` marks, the command as the title.
    const log = store.layout.agentLog(dir);
    fs.writeFileSync(
      log,
      fs
        .readFileSync(log, 'utf8')
        .replace(/,"injected":\{[^}]*\}/g, '')
        .replace(/"importer":2/g, '"importer":1'),
    );
    await store.update(o!.sessionId!, (s) => ({ ...s, title: '<command-name>/clear</command-name> <command-message>clear</command-message>' }));
    return o!.sessionId!;
  });
  const again = await braid(['import', '--json', file]);
  const [outcome] = (JSON.parse(again.out) as { outcomes: Array<{ action: string; reason: string }> }).outcomes;
  assert.equal(outcome?.action, 'repaired', outcome?.reason);
  assert.match(outcome.reason, /older Braid/);
  await withStore(async (store) => {
    assert.equal(store.get(id).title, 'Prompt 1');
    assert.equal(store.index.get(id)?.firstPrompt, 'Prompt 1');
    assert.equal(
      readWireLog(store.layout.agentLog(store.locate(id))).records.filter((r) => r.t === 'rewind').length,
      1,
      'one conversation-only rewind, then the turns again',
    );
  });
});
