import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { braidProcess, cliWithScriptedModel } from '../../support/cli';
import { initRepo } from '../../support/gitRepo';
import { realGit } from '../../support/hostileRepo';
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

test('an unchanged repository costs at most 2 git processes a turn; a changed file or a new commit is still seen', async () => {
  const git = initRepo(repo, { 'README.md': '# hi\n', 'src/a.ts': 'export const a = 1;\n' });
  wrapGit();

  const first = await turn(['first question']);
  assert.ok(first.runs.length <= 7, `the first turn started ${first.runs.length} git processes:\n${first.runs.join('\n')}`);
  assert.match(first.context, /branch: main\n/);
  assert.match(first.context, /status:\n\(clean\)/);
  const second = await turn(['--continue', 'second question']);
  const third = await turn(['--continue', 'third question']);
  for (const [name, t] of [
    ['second', second],
    ['third', third],
  ] as const) {
    assert.ok(t.runs.length <= 2, `${name} turn started ${t.runs.length} git processes:\n${t.runs.join('\n')}`);
    assert.doesNotMatch(t.context, /Git context/, 'the same context is not sent again');
  }

  // The facts are a cache: a damaged file costs one full round of git, then is whole again.
  const factsFile = path.join(store, 'sessions', workspaceKey(repo), 'git-facts.json');
  fs.writeFileSync(factsFile, '{"version":1,"entries":{"x":');
  const damaged = await turn(['--continue', 'with a damaged cache']);
  assert.ok(damaged.runs.length > 2, damaged.runs.join('\n'));
  assert.equal(JSON.parse(fs.readFileSync(factsFile, 'utf8')).version, 1);
  assert.ok((await turn(['--continue', 'cached again'])).runs.length <= 2);

  fs.writeFileSync(path.join(repo, 'src/a.ts'), 'export const a = 2;\n');
  const changed = await turn(['--continue', 'after an edit']);
  assert.match(changed.context, /status:\n M src\/a\.ts\n/);

  git('commit', '-q', '-am', 'second commit');
  const committed = await turn(['--continue', 'after a commit']);
  assert.match(committed.context, /status:\n\(clean\)/);
  assert.match(committed.context, /recent commits:\n[0-9a-f]+ second commit\n/);
  git('checkout', '-q', '-b', 'topic');
  const branched = await turn(['--continue', 'after a branch']);
  assert.match(branched.context, /branch: topic\n/);
});
