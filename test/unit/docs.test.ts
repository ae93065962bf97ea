import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { deadCitations, deadLinks, deadPaths, filesUnder, headings, type DeadPointer } from '../support/docLinks';

const root = process.env.BRAID_REPO_ROOT ?? process.cwd();
const exists = (repoPath: string) => fs.existsSync(path.join(root, repoPath));
const read = (repoPath: string) =>
  exists(repoPath) && fs.statSync(path.join(root, repoPath)).isFile() ? fs.readFileSync(path.join(root, repoPath), 'utf8') : undefined;
const docs = ['README.md', ...filesUnder(root, 'docs', ['.md'])];
const sectionsOf = (doc: string) => {
  const text = read(`docs/${doc}`);
  return text === undefined ? undefined : headings(text);
};
const listed = (dead: DeadPointer[]) => dead.map((d) => `${d.file}:${d.line} ${d.target}`);

test('every path the docs name (src/, media/, test/, scripts/, bench/) exists', () => {
  assert.ok(docs.includes('docs/architecture.md') && docs.includes('docs/reference.md'), 'the docs are found');
  assert.deepEqual(listed(docs.flatMap((doc) => deadPaths(doc, read(doc)!, exists))), []);
});

test('every "docs/<file>.md, <Section>" a comment or doc cites names a section that exists', () => {
  // This spec and its helper hold made-up citations on purpose.
  const examples = new Set(['test/unit/docs.test.ts', 'test/support/docLinks.ts']);
  const sources = [...['src', 'media/src', 'test', 'bench', 'scripts'].flatMap((dir) => filesUnder(root, dir, ['.ts', '.mjs', '.css'])), ...docs].filter(
    (f) => !examples.has(f),
  );
  assert.ok(sources.length > 100, 'the sources are found');
  assert.deepEqual(listed(sources.flatMap((file) => deadCitations(file, read(file)!, sectionsOf))), []);
});

test('every link between the docs leads to a file and, with an anchor, to a heading', () => {
  assert.deepEqual(listed(docs.flatMap((doc) => deadLinks(doc, read(doc)!, read))), []);
});

test('the checks catch a missing path, a missing bare file, an unknown section and a dead anchor', () => {
  const there = new Set(['src/core/session/session.ts', 'src/core/session/events.ts']);
  const table = '| the seam | `src/core/session/session.ts`, `events.ts`, `gone.ts` |\nsee src/core/session/missing.ts and `src/core/**/*.ts`';
  assert.deepEqual(listed(deadPaths('x.md', table, (p) => there.has(p))), [
    'x.md:1 gone.ts (read as src/core/session/gone.ts)',
    'x.md:2 src/core/session/missing.ts',
  ]);
  const reference = '# Reference\n\n## Turns and prompts\n\n## Compaction: long sessions\n';
  const comment =
    '/** As docs/reference.md, Turns and prompts, in order. */\n// docs/reference.md (Compaction) and docs/reference.md, Stream\n// frames: gone.\nsee docs/other.md, Anything';
  assert.deepEqual(listed(deadCitations('y.ts', comment, (doc) => (doc === 'reference.md' ? headings(reference) : undefined))), [
    'y.ts:2 docs/reference.md, Stream frames',
    'y.ts:4 docs/other.md, Anything',
  ]);
  const links = 'See [the seam](reference.md#turns-and-prompts), [x](reference.md#no-such), [y](gone.md).';
  assert.deepEqual(listed(deadLinks('docs/z.md', links, (p) => (p === 'docs/reference.md' ? reference : undefined))), [
    'docs/z.md:1 reference.md#no-such',
    'docs/z.md:1 gone.md',
  ]);
});
