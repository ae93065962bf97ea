import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { discoverCommands, expandCommand, slashInvocation } from '../../../src/core/setup/skills/commands';
import { FrontMatterError, readFrontMatter } from '../../../src/core/setup/skills/frontMatter';
import type { SetupPlaces } from '../../../src/core/setup/skills/places';
import { appliesTo, discoverScopedInstructions } from '../../../src/core/setup/skills/scopedInstructions';
import { discoverSkills, skillsPrompt } from '../../../src/core/setup/skills/skills';
import { tempDir } from '../../support/store';

// Skills, commands and scoped instructions are read from the files people already have, in the
// folders Claude Code, Copilot and Braid use; a project's only in a trusted workspace.
const root = tempDir('braid-skills-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const skill = (name: string, description: string, body = 'Do the thing.') => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

/** A workspace, a home and a Braid config folder, each with files. */
function places(name: string, trusted = true): SetupPlaces {
  const base = path.join(root, name);
  const p = { workspaceDir: path.join(base, 'ws'), home: path.join(base, 'home'), userConfigDir: path.join(base, 'config', 'braid'), trusted };
  fs.mkdirSync(p.workspaceDir, { recursive: true });
  fs.mkdirSync(p.home, { recursive: true });
  return p;
}

test('front matter: plain, quoted and block values, lists in both forms; a broken one names its line', () => {
  const f = readFrontMatter(
    [
      '---',
      'name: pdf',
      'description: "Fill \\"PDF\\" forms: text, fields"',
      "quoted: 'it''s'",
      'applyTo: [ "**/*.ts", src/** ]',
      'arguments:',
      '  - file',
      '  - focus',
      'long: >',
      '  one',
      '  two',
      '---',
      'Body',
    ].join('\n'),
  );
  assert.equal(f.fields.get('description'), 'Fill "PDF" forms: text, fields');
  assert.equal(f.fields.get('quoted'), "it's");
  assert.deepEqual(f.fields.get('applyto'), ['**/*.ts', 'src/**']);
  assert.deepEqual(f.fields.get('arguments'), ['file', 'focus']);
  assert.equal(f.fields.get('long'), 'one two');
  assert.equal(f.body, 'Body');
  assert.equal(readFrontMatter('no front matter').body, 'no front matter');
  assert.throws(() => readFrontMatter('---\nname: x\n'), /no closing ---/);
  assert.throws(
    () => readFrontMatter('---\nname: x\njust words\n---\n'),
    (e: unknown) => e instanceof FrontMatterError && /line 3/.test(e.message),
  );
  assert.throws(() => readFrontMatter('---\nname: x\nname: y\n---\n'), /given twice/);
  assert.throws(() => readFrontMatter('---\nname: "x\n---\n'), /not closed/);
});

test('skills are found in every folder; on a name clash the user wins; the list is sorted and named by path', () => {
  const p = places('every');
  write(path.join(p.workspaceDir, '.claude/skills/claude-one/SKILL.md'), skill('claude-one', 'From .claude'));
  write(path.join(p.workspaceDir, '.github/skills/github-one/SKILL.md'), skill('github-one', 'From .github'));
  write(path.join(p.workspaceDir, '.braid/skills/braid-one/SKILL.md'), skill('braid-one', 'From .braid'));
  write(path.join(p.userConfigDir, 'skills/user-braid/SKILL.md'), skill('user-braid', 'From the Braid config'));
  write(path.join(p.home, '.claude/skills/user-claude/SKILL.md'), skill('user-claude', 'From ~/.claude'));
  write(path.join(p.workspaceDir, '.claude/skills/shared/SKILL.md'), skill('shared', 'The project one'));
  write(path.join(p.home, '.claude/skills/shared/SKILL.md'), skill('shared', 'The user one'));
  write(path.join(p.workspaceDir, '.claude/skills/broken/SKILL.md'), '---\nname: Broken Name\ndescription: x\n---\n');
  write(path.join(p.workspaceDir, '.claude/skills/no-skill-md/README.md'), 'not a skill');
  const found = discoverSkills(p);
  assert.deepEqual(
    found.items.map((s) => [s.name, s.origin, s.source, s.shown]),
    [
      ['braid-one', 'project', '.braid/skills', '.braid/skills/braid-one/SKILL.md'],
      ['claude-one', 'project', '.claude/skills', '.claude/skills/claude-one/SKILL.md'],
      ['github-one', 'project', '.github/skills', '.github/skills/github-one/SKILL.md'],
      ['shared', 'user', '~/.claude/skills', '~/.claude/skills/shared/SKILL.md'],
      ['user-braid', 'user', `${p.userConfigDir}/skills`, `${p.userConfigDir}/skills/user-braid/SKILL.md`],
      ['user-claude', 'user', '~/.claude/skills', '~/.claude/skills/user-claude/SKILL.md'],
    ],
  );
  assert.deepEqual(
    found.shadowed.map(({ item, by }) => [item.shown, by.shown]),
    [['.claude/skills/shared/SKILL.md', '~/.claude/skills/shared/SKILL.md']],
  );
  assert.deepEqual(
    found.problems.map((x) => x.file),
    ['.claude/skills/broken/SKILL.md'],
  );
  assert.match(found.problems[0]!.reason, /lowercase letters/);
  assert.equal(skillsPrompt(found.items).split('\n').at(-1), '- user-claude: From ~/.claude (~/.claude/skills/user-claude/SKILL.md)');
});

test('an untrusted workspace has no project skills or commands; the user keeps theirs', () => {
  const p = places('untrusted', false);
  write(path.join(p.workspaceDir, '.claude/skills/project/SKILL.md'), skill('project', 'Project'));
  write(path.join(p.workspaceDir, '.claude/commands/deploy.md'), 'Deploy it');
  write(path.join(p.home, '.claude/skills/mine/SKILL.md'), skill('mine', 'Mine'));
  assert.deepEqual(
    discoverSkills(p).items.map((s) => s.name),
    ['mine'],
  );
  assert.deepEqual(discoverCommands(p).items, []);
  assert.deepEqual(
    discoverSkills({ ...p, trusted: true }).items.map((s) => s.name),
    ['mine', 'project'],
  );
});

test("a project's skill that is a link out of the workspace is not read; a user's linked skill folder is", () => {
  const p = places('links');
  const outside = path.join(root, 'links', 'outside');
  write(path.join(outside, 'evil/SKILL.md'), skill('evil', 'Outside'));
  write(path.join(outside, 'linked/SKILL.md'), skill('linked', 'Linked by the user'));
  fs.mkdirSync(path.join(p.workspaceDir, '.claude/skills'), { recursive: true });
  fs.symlinkSync(path.join(outside, 'evil'), path.join(p.workspaceDir, '.claude/skills/evil'));
  fs.mkdirSync(path.join(p.workspaceDir, '.github'), { recursive: true });
  fs.symlinkSync(outside, path.join(p.workspaceDir, '.github/skills'));
  fs.mkdirSync(path.join(p.home, '.claude/skills'), { recursive: true });
  fs.symlinkSync(path.join(outside, 'linked'), path.join(p.home, '.claude/skills/linked'));
  const found = discoverSkills(p);
  assert.deepEqual(
    found.items.map((s) => s.name),
    ['linked'],
  );
  assert.deepEqual(found.problems, [], 'a link in a project folder is not looked into at all');
});

test('commands: .claude/commands with sub-folders joined by ":", .github/prompts/*.prompt.md, user folders; descriptions and hints', () => {
  const p = places('commands');
  write(path.join(p.workspaceDir, '.claude/commands/review.md'), '---\ndescription: Review a file\nargument-hint: [file] [focus]\n---\nReview $1 for $2.\n');
  write(path.join(p.workspaceDir, '.claude/commands/frontend/test.md'), '# Run the frontend tests\nnpm test -- $ARGUMENTS\n');
  write(
    path.join(p.workspaceDir, '.github/prompts/explain.prompt.md'),
    '---\ndescription: Explain code\nmode: ask\n---\nExplain ${input:topic:what to explain}.\n',
  );
  write(path.join(p.workspaceDir, '.github/prompts/notes.md'), 'not a prompt file');
  write(path.join(p.userConfigDir, 'commands/standup.md'), 'Write my standup.');
  write(path.join(p.home, '.claude/commands/commit.md'), '---\ndescription: Commit\n---\nCommit the staged changes.');
  write(path.join(p.workspaceDir, '.claude/commands/commit.md'), 'The project commit');
  const found = discoverCommands(p);
  assert.deepEqual(
    found.items.map((c) => [c.name, c.description, c.origin, c.argumentHint ?? null]),
    [
      ['commit', 'Commit', 'user', null],
      ['explain', 'Explain code', 'project', null],
      ['frontend:test', 'Run the frontend tests', 'project', null],
      ['review', 'Review a file', 'project', '[file] [focus]'],
      ['standup', 'Write my standup.', 'user', null],
    ],
  );
  assert.deepEqual(
    found.shadowed.map(({ item }) => item.shown),
    ['.claude/commands/commit.md'],
  );
  const byName = new Map(found.items.map((c) => [c.name, c]));
  assert.equal(expandCommand(byName.get('review')!, 'src/a.ts "error handling"'), '/review src/a.ts "error handling"\n\nReview src/a.ts for error handling.');
  assert.equal(expandCommand(byName.get('frontend:test')!, '--watch'), '/frontend:test --watch\n\n# Run the frontend tests\nnpm test -- --watch');
  assert.equal(expandCommand(byName.get('explain')!, 'topic=closures'), '/explain topic=closures\n\nExplain closures.\n\nARGUMENTS: topic=closures');
  assert.equal(expandCommand(byName.get('explain')!, ''), '/explain\n\nExplain ${input:topic:what to explain}.');
  assert.equal(expandCommand(byName.get('standup')!, 'short please'), '/standup short please\n\nWrite my standup.\n\nARGUMENTS: short please');
  assert.deepEqual(slashInvocation('/frontend:test  a b '), { name: 'frontend:test', args: 'a b' });
  assert.equal(slashInvocation('/usr/bin/env is missing'), null);
});

test('scoped instructions: applyTo globs, comma-separated; a file without applyTo applies to nothing', () => {
  const p = places('instructions');
  write(path.join(p.workspaceDir, '.github/instructions/ts.instructions.md'), '---\napplyTo: "**/*.ts,**/*.tsx"\n---\nUse strict types.\n');
  write(path.join(p.workspaceDir, '.github/instructions/none.instructions.md'), 'No front matter.\n');
  const { items } = discoverScopedInstructions(p.workspaceDir);
  assert.deepEqual(
    items.map((i) => [i.file, i.applyTo]),
    [
      ['.github/instructions/none.instructions.md', []],
      ['.github/instructions/ts.instructions.md', ['**/*.ts', '**/*.tsx']],
    ],
  );
  const ts = items[1]!;
  assert.deepEqual(
    ['src/a.ts', 'b.tsx', 'src/a.js', '.hidden/c.ts'].map((f) => appliesTo(ts, f)),
    [true, true, false, true],
  );
  assert.equal(appliesTo(items[0]!, 'src/a.ts'), false);
});
