import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { braidProcess, cliWithScriptedModel } from '../../support/cli';
import { initRepo } from '../../support/gitRepo';
import { realGit } from '../../support/hostileRepo';
import { listSessionFolders, StoreLayout } from '../../../src/core/format/layout';
import type { TurnBeginRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';

// How many git processes a `braid exec` turn starts, each turn a fresh process as a user runs it:
// a `git` first on PATH logs each run (its arguments) and hands over to the real git. The
// repository's facts are kept in the data folder (git-facts.json) between processes; only the
// status is asked each turn.
const { root, server, env } = cliWithScriptedModel('braid-exec-git-');
const repo = path.join(root, 'repo');
const bin = path.join(root, 'bin');
const log = path.join(root, 'git-runs.log');
const store = path.join(root, 'store');

function wrapGit(): void {
  fs.mkdirSync(bin, { recursive: true });
  const script = `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit()}' "$@"\n`;
  fs.writeFileSync(path.join(bin, 'git'), script, { mode: 0o755 });
}

/** One `braid exec` turn in a process of its own; returns the git runs it made and the git context the model was sent. */
async function turn(args: string[]): Promise<{ runs: string[]; context: string }> {
  fs.rmSync(log, { force: true });
  server.enqueue({ kind: 'text', chunks: ['Done.'] });
  const seen = server.requests.length;
  const r = await braidProcess(['--data-dir', store, '--workspace', repo, 'exec', ...args], {
    ...env(),
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
  }).exited();
  assert.equal(r.code, 0, r.err);
  const runs = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  const user = server.requests[seen]!.body.messages!.filter((m) => m.role === 'user').pop()!;
  const context = (user.content as { type: string; text: string }[]).map((p) => p.text).join('');
  return { runs, context };
}

test('an unchanged repository costs at most 2 git processes a turn; an edit, a new branch and a commit are still seen', async () => {
  const git = initRepo(repo, { 'README.md': '# hi\n', 'src/a.ts': 'export const a = 1;\n' });
  wrapGit();

  const first = await turn(['first question']);
  assert.ok(first.runs.length <= 7, `the first turn started ${first.runs.length} git processes:\n${first.runs.join('\n')}`);
  assert.match(first.context, /branch: main\n/);
  assert.match(first.context, /status:\n\(clean\)/);
  const second = await turn(['--continue', 'second question']);
  assert.ok(second.runs.length <= 2, `the second turn started ${second.runs.length} git processes:\n${second.runs.join('\n')}`);
  assert.doesNotMatch(second.context, /Git context/, 'the same context is not sent again');

  // An edit in the work tree changes nothing in .git: the status, asked every turn, sees it. The
  // facts are a cache: a damaged file costs one full round of git, then is whole again.
  fs.writeFileSync(path.join(repo, 'src/a.ts'), 'export const a = 2;\n');
  const factsFile = path.join(store, 'sessions', workspaceKey(repo), 'git-facts.json');
  fs.writeFileSync(factsFile, '{"version":1,"entries":{"x":');
  const edited = await turn(['--continue', 'after an edit']);
  assert.match(edited.context, /status:\n M src\/a\.ts\n/);
  assert.ok(edited.runs.length > 2, edited.runs.join('\n'));
  assert.equal((JSON.parse(fs.readFileSync(factsFile, 'utf8')) as { version: number }).version, 1);
  const again = await turn(['--continue', 'nothing changed since']);
  assert.ok(again.runs.length <= 2, again.runs.join('\n'));

  git('checkout', '-q', '-b', 'topic');
  git('commit', '-q', '-am', 'second commit');
  const committed = await turn(['--continue', 'after a commit on a new branch']);
  assert.match(committed.context, /branch: topic\n/);
  assert.match(committed.context, /status:\n\(clean\)/);
  assert.match(committed.context, /recent commits:\n[0-9a-f]+ second commit\n/);

  // Each turn's turn_begin names the branch, from the same facts (no git process of its own).
  const [session] = listSessionFolders(new StoreLayout(store));
  const begins = readWireLog(path.join(session!.dir, 'agents', 'main', 'wire.jsonl')).records.filter((r): r is TurnBeginRecord => r.t === 'turn_begin');
  assert.deepEqual(
    begins.map((r) => r.branch),
    ['main', 'main', 'main', 'main', 'topic'],
  );
});
