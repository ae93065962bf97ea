import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readIgnoredPaths } from '../../../src/core/git/ignoredPaths';
import { rankFiles } from '../../../src/vscode/chat/mentionRank';
import { initRepo } from '../../support/gitRepo';

/** A repository whose .gitignore ignores node_modules/, *.log and .env, with files of each kind on disk. */
function repository(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-ignored-'));
  initRepo(dir, { '.gitignore': 'node_modules/\n*.log\n.env\n', 'README.md': '# app\n', 'src/app.ts': 'export {};\n' });
  const write = (name: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), 'x\n');
  };
  for (let i = 0; i < 28; i++) write(`node_modules/pkg${i}/README.md`);
  for (const name of ['build.log', 'src/debug.log', '.env', 'src/new.ts', 'docs/README.md']) write(name);
  return dir;
}

/** Every file under `dir` but .git's, as VS Code's file search lists them ('/' separated). */
function listing(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((p) => !p.startsWith('.git/'));
}

test('git names what .gitignore ignores: ignored folders whole, ignored files one by one, untracked files not', async () => {
  const dir = repository();
  try {
    const ignored = await readIgnoredPaths(dir);
    assert.ok(ignored, 'git read the ignored paths');
    assert.equal(ignored.size, 4); // node_modules/, build.log, src/debug.log, .env
    for (const p of ['node_modules', 'node_modules/pkg3/README.md', 'build.log', 'src/debug.log', '.env']) assert.equal(ignored.has(p), true, p);
    for (const p of ['README.md', 'src/app.ts', 'src/new.ts', 'docs/README.md', 'node_modules_x/a', 'src']) assert.equal(ignored.has(p), false, p);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a folder in no repository has no ignored list', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-no-repo-'));
  try {
    assert.equal(await readIgnoredPaths(dir), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('@ lists no ignored file unless the query names its folder or its whole name, and then after the others', async () => {
  const dir = repository();
  try {
    const ignored = await readIgnoredPaths(dir);
    const files = listing(dir);
    assert.deepEqual(rankFiles('READ', files, ignored, 50), ['README.md', 'docs/README.md']);
    assert.deepEqual(rankFiles('log', files, ignored, 50), [], 'ignored logs are not listed for a part of their name');
    const inFolder = rankFiles('node_modules/READ', files, ignored, 50);
    assert.equal(inFolder.length, 28, 'naming the ignored folder lists its files');
    assert.ok(inFolder.every((p) => p.startsWith('node_modules/')));
    assert.deepEqual(rankFiles('.env', files, ignored, 50), ['.env']);
    // Asked for, an ignored file ranks below a tracked one that matches as well.
    const both = rankFiles('debug.log', [...files, 'src/debug.log.md'], ignored, 50);
    assert.deepEqual(both, ['src/debug.log.md', 'src/debug.log']);
    // The empty query lists files (shortest paths first), none ignored.
    const first = rankFiles('', files, ignored, 5);
    assert.equal(first.length, 5);
    assert.ok(!first.some((p) => ignored!.has(p)));
    // Without a list (no git, an untrusted workspace) nothing is held back.
    assert.equal(rankFiles('READ', files, undefined, 50).length, 30);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
