import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { StoreLayout } from '../../../src/core/format/layout';
import { readSessionFolder } from '../../../src/core/format/summary';
import { schemaVersionOf, SCHEMA_VERSION } from '../../../src/core/index/schema';
import { loadSqlJs } from '../../../src/core/index/sqlite';
import type { TurnBeginRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { braidIn, cliWithScriptedModel, execSessionId } from '../../support/cli';
import { initRepo } from '../../support/gitRepo';
import { wasmPath } from '../../support/store';

// Each turn records the git branch the workspace was on as it began (turn_begin's `branch`); a
// session's summary and index row keep its last turn's branch and every branch its turns ran on;
// `braid list --branch` and `braid search --branch` find the sessions that ran a turn on it.
// `braid exec` runs in this process against a real repository.
const { root, server, env } = cliWithScriptedModel('braid-branch-');
const repo = path.join(root, 'repo');
const plain = path.join(root, 'plain'); // no repository around it
const store = path.join(root, 'store');
const layout = new StoreLayout(store);

const braid = (workspace: string, ...args: string[]) => braidIn(['--data-dir', store, '--workspace', workspace, ...args], { env: env() });

/** One `braid exec` turn; returns the session's id. */
async function turn(workspace: string, ...args: string[]): Promise<string> {
  server.enqueue({ kind: 'text', chunks: ['Done.'] });
  const r = await braid(workspace, 'exec', ...args);
  assert.equal(r.code, 0, r.err);
  return execSessionId(r.err, store);
}

function turnBegins(workspace: string, id: string): TurnBeginRecord[] {
  return readWireLog(layout.agentLog(layout.sessionDir(workspaceKey(workspace), id))).records.filter((r): r is TurnBeginRecord => r.t === 'turn_begin');
}

async function listed(workspace: string, ...args: string[]): Promise<Array<{ id: string; branch: string | null }>> {
  const r = await braid(workspace, ...args, '--json');
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as Array<{ id: string; branch: string | null }>).map(({ id, branch }) => ({ id, branch }));
}

/** The index's branch column and branch table of a workspace, as the file on disk holds them. */
async function indexBranches(workspace: string): Promise<{ version: number | undefined; last: Record<string, string | null>; all: Record<string, string[]> }> {
  const SQL = await loadSqlJs(wasmPath);
  const db = new SQL.Database(fs.readFileSync(layout.indexFile(workspaceKey(workspace))));
  try {
    const last = Object.fromEntries(
      (db.exec('SELECT id, branch FROM sessions')[0]?.values ?? []).map(([id, branch]) => [id as string, branch as string | null]),
    );
    const all: Record<string, string[]> = {};
    const pairs = db.exec('SELECT s.id, b.branch FROM session_branches b JOIN sessions s ON s.seq = b.session_seq ORDER BY s.id, b.branch')[0]?.values ?? [];
    for (const [id, branch] of pairs) (all[id as string] ??= []).push(branch as string);
    const orphans = db.exec('SELECT count(*) FROM session_branches WHERE session_seq NOT IN (SELECT seq FROM sessions)')[0]!.values[0]![0];
    assert.equal(orphans, 0, 'no branch row outlives its session');
    return { version: schemaVersionOf(db), last, all };
  } finally {
    db.close();
  }
}

let onFeature = ''; // turns on main, then feature/x, then a detached HEAD
let onMain = ''; // one turn on main, after the other's
let outside = ''; // in a folder outside any repository

test('each turn records the branch it began on; a detached HEAD and a folder outside git record none', async () => {
  const git = initRepo(repo, { 'README.md': '# hi\n' });
  fs.mkdirSync(plain);
  onFeature = await turn(repo, 'zebra first, on main');
  git('checkout', '-q', '-b', 'feature/x');
  await turn(repo, '--session', onFeature, 'zebra second, on feature');
  git('checkout', '-q', '--detach');
  await turn(repo, '--session', onFeature, 'zebra third, detached');
  git('checkout', '-q', 'main');
  onMain = await turn(repo, 'zebra again, on main');
  outside = await turn(plain, 'zebra outside git');

  assert.deepEqual(
    turnBegins(repo, onFeature).map((r) => r.branch),
    ['main', 'feature/x', undefined],
  );
  assert.ok(!('branch' in turnBegins(repo, onFeature)[2]!), 'a detached HEAD writes no branch field');
  assert.deepEqual(
    turnBegins(repo, onMain).map((r) => r.branch),
    ['main'],
  );
  assert.ok(!('branch' in turnBegins(plain, outside)[0]!), 'outside a repository: no branch field');
});

test("the summary keeps the last turn's branch and every branch, and so does the index", async () => {
  const { summary } = readSessionFolder(layout.sessionDir(workspaceKey(repo), onFeature));
  assert.equal(summary.branch, 'feature/x', 'the last turn that recorded one (the detached turn recorded none)');
  assert.deepEqual(summary.branches, ['main', 'feature/x']);
  assert.equal(readSessionFolder(layout.sessionDir(workspaceKey(plain), outside)).summary.branch, null);

  const index = await indexBranches(repo);
  assert.equal(index.version, SCHEMA_VERSION);
  assert.deepEqual(index.last, { [onFeature]: 'feature/x', [onMain]: 'main' });
  assert.deepEqual(index.all, { [onFeature]: ['feature/x', 'main'], [onMain]: ['main'] });
  assert.deepEqual((await indexBranches(plain)).all, {});
});

test('list and search --branch find the sessions that ran a turn on that branch; lines and --json show the last one', async () => {
  assert.deepEqual(await listed(repo, 'list', '--branch', 'feature/x'), [{ id: onFeature, branch: 'feature/x' }]);
  assert.deepEqual(await listed(repo, 'list', '--branch', 'main'), [
    { id: onMain, branch: 'main' },
    { id: onFeature, branch: 'feature/x' },
  ]);
  assert.deepEqual(await listed(repo, 'list', '--branch', 'feature'), [], 'the exact name, not a part of it');
  assert.deepEqual(await listed(repo, 'list', '--all', '--branch', 'main'), [
    { id: onMain, branch: 'main' },
    { id: onFeature, branch: 'feature/x' },
  ]);
  assert.deepEqual(
    (await listed(repo, 'list', '--all')).find((s) => s.id === outside),
    { id: outside, branch: null },
  );

  assert.deepEqual(await listed(repo, 'search', 'zebra', '--branch', 'feature/x'), [{ id: onFeature, branch: 'feature/x' }]);
  assert.deepEqual(
    (await listed(repo, 'search', 'zebra', '--all', '--branch', 'main')).map((s) => s.id),
    [onMain, onFeature],
  );
  assert.equal((await listed(repo, 'search', 'zebra', '--all')).length, 3);

  const lines = (await braid(repo, 'list', '--all')).out.split('\n').filter(Boolean);
  assert.match(
    lines.find((l) => l.includes('zebra first'))!,
    /zebra first, on main {2}\(feature\/x\) {2}\//,
    "the title (the first prompt's), then the last turn's branch, then the folder",
  );
  assert.match(
    lines.find((l) => l.includes('zebra again'))!,
    /zebra again, on main {2}\(main\)/,
  );
  assert.doesNotMatch(
    lines.find((l) => l.includes('zebra outside'))!,
    /\(/,
    'no branch, nothing shown',
  );
  const found = (await braid(repo, 'search', 'zebra', '--branch', 'feature/x')).out;
  assert.match(found.split('\n')[0]!, /\(feature\/x\)$/);
  const none = await braid(repo, 'list', '--branch', 'nowhere');
  assert.equal(none.code, 0, none.err);
  assert.match(none.out, /^No sessions on branch nowhere for .*\(on any branch\): braid list --all --branch nowhere\n$/);
});

test("a rewind takes its turns' branches out of the summary, the index and the filter", async () => {
  const r = await braid(repo, 'rewind', onFeature, '--turn', '2');
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(await listed(repo, 'list', '--branch', 'feature/x'), []);
  assert.deepEqual(
    (await listed(repo, 'list', '--branch', 'main')).find((s) => s.id === onFeature),
    { id: onFeature, branch: 'main' },
  );
  const index = await indexBranches(repo);
  assert.deepEqual(index.all[onFeature], ['main']);
  assert.equal(index.last[onFeature], 'main');
});

test('an index of schema 8 (no branches) is rebuilt from the logs with them', async () => {
  const file = layout.indexFile(workspaceKey(repo));
  const SQL = await loadSqlJs(wasmPath);
  const db = new SQL.Database(fs.readFileSync(file));
  db.run('DROP TABLE session_branches');
  db.run('ALTER TABLE sessions DROP COLUMN branch');
  db.run("UPDATE meta SET value = '8' WHERE key = 'schema_version'");
  fs.writeFileSync(file, db.export());
  db.close();

  assert.deepEqual((await listed(repo, 'list', '--branch', 'main')).map((s) => s.id).sort(), [onMain, onFeature].sort());
  const index = await indexBranches(repo);
  assert.equal(index.version, SCHEMA_VERSION);
  assert.deepEqual(index.all, { [onFeature]: ['main'], [onMain]: ['main'] });
});

test("a deleted session's branches leave the index with it", async () => {
  const r = await braid(repo, 'delete', onMain);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(
    (await listed(repo, 'list', '--branch', 'main')).map((s) => s.id),
    [onFeature],
  );
  assert.deepEqual((await indexBranches(repo)).all, { [onFeature]: ['main'] }); // and no row of the deleted session's
});
