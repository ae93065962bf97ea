import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { braidIn } from '../../support/cli';
import { ScriptedModelServer, type RecordedRequest } from '../../support/modelServer';
import { tempDir } from '../../support/store';

// A Claude Code or Copilot user's skills, slash commands and instruction files work in `braid
// exec` unchanged: skills listed in the system prompt (the same bytes each time), the skill tool,
// a skill's script only through the approved bash tool, "/name args" expanded and sent,
// copilot-instructions always, .github/instructions when a file they apply to is read.
const root = tempDir('braid-skills-cli-');
const server = new ScriptedModelServer();
const home = path.join(root, 'home');
const config = path.join(root, 'config');
let env: NodeJS.ProcessEnv = {};

before(async () => {
  env = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: await server.start(), HOME: home, XDG_CONFIG_HOME: config };
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function workspace(name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

const braid = (ws: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
  braidIn(['--data-dir', path.join(root, 'store'), '--workspace', ws, ...args], { env: { ...env, ...extra } });

/** The requests a braid run made (from `from` on). */
const requestsSince = (from: number) => server.requests.slice(from);

function systemOf(request: RecordedRequest): string {
  const m = request.body.messages?.find((x) => x.role === 'system' || x.role === 'developer');
  return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content);
}

/** Every text the request sends in its messages of a role, joined. */
function textsOf(request: RecordedRequest, role: string): string {
  return (request.body.messages ?? [])
    .filter((m) => m.role === role)
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

const skillMd = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

// A Claude Code user's own skills and commands, where Claude Code keeps them.
write(path.join(home, '.claude/skills/changelog/SKILL.md'), skillMd('changelog', 'Write a changelog entry', 'Read git log, then write CHANGELOG.md.'));
write(path.join(home, '.claude/skills/changelog/scripts/mark.sh'), `#!/bin/sh\necho ran > "$1"\n`);
write(
  path.join(home, '.claude/commands/review.md'),
  '---\ndescription: Review a file\nargument-hint: [file]\n---\nReview $1 carefully. All arguments: $ARGUMENTS\n',
);

test('braid skills lists the skills and commands of every folder with their origin and file; --json too', async () => {
  const ws = workspace('listing');
  write(path.join(ws, '.claude/skills/deploy/SKILL.md'), skillMd('deploy', 'Deploy the app', 'Run make deploy.'));
  write(path.join(ws, '.github/prompts/explain.prompt.md'), '---\ndescription: Explain code\n---\nExplain it.');
  write(path.join(ws, '.claude/commands/review.md'), 'The project review, hidden by the user one');
  const text = await braid(ws, ['skills']);
  assert.equal(text.code, 0, text.err);
  assert.match(
    text.out,
    /Skills\n {2}changelog {2}Write a changelog entry\n {6}user, ~\/\.claude\/skills\/changelog\/SKILL\.md\n {2}deploy {2}Deploy the app\n {6}project, \.claude\/skills\/deploy\/SKILL\.md\n/,
  );
  assert.match(text.out, /\/explain {2}Explain code\n {6}project, \.github\/prompts\/explain\.prompt\.md/);
  assert.match(text.out, /\/review \[file\] {2}Review a file\n {6}user, ~\/\.claude\/commands\/review\.md/);
  assert.match(text.out, /review {2}\(\.claude\/commands\/review\.md\) is hidden by ~\/\.claude\/commands\/review\.md/);
  const json = await braid(ws, ['skills', '--json']);
  const facts = JSON.parse(json.out) as { skills: { name: string; origin: string; file: string }[]; commands: { name: string; shadowedBy?: string }[] };
  assert.deepEqual(
    facts.skills.map((s) => [s.name, s.origin, s.file]),
    [
      ['changelog', 'user', path.join(home, '.claude/skills/changelog/SKILL.md')],
      ['deploy', 'project', path.join(ws, '.claude/skills/deploy/SKILL.md')],
    ],
  );
  assert.deepEqual(
    facts.commands.map((c) => [c.name, c.shadowedBy ?? null]),
    [
      ['explain', null],
      ['review', null],
      ['review', path.join(home, '.claude/commands/review.md')],
    ],
  );
});

test('the system prompt lists the skills sorted, the same bytes across sessions and after files are touched; a changed skill changes it', async () => {
  const ws = workspace('prompt');
  write(path.join(ws, '.github/skills/zeta/SKILL.md'), skillMd('zeta', 'Last by name', 'Z.'));
  write(path.join(ws, '.braid/skills/alpha/SKILL.md'), skillMd('alpha', 'First by name', 'A.'));
  const from = server.requests.length;
  const systems: string[] = [];
  for (let i = 0; i < 3; i++) {
    if (i === 2) {
      const later = new Date(Date.now() + 60_000);
      for (const f of ['.github/skills/zeta/SKILL.md', '.braid/skills/alpha/SKILL.md']) fs.utimesSync(path.join(ws, f), later, later);
    }
    server.enqueue({ kind: 'text', chunks: ['Done.'] });
    const r = await braid(ws, ['exec', `prompt ${i}`]);
    assert.equal(r.code, 0, r.err);
  }
  for (const request of requestsSince(from)) systems.push(systemOf(request));
  assert.equal(systems.length, 3);
  assert.equal(new Set(systems).size, 1, 'the same system prompt, byte for byte');
  const lines = systems[0]!.split('\n').filter((l) => l.startsWith('- '));
  assert.deepEqual(lines, [
    '- alpha: First by name (.braid/skills/alpha/SKILL.md)',
    '- changelog: Write a changelog entry (~/.claude/skills/changelog/SKILL.md)',
    '- zeta: Last by name (.github/skills/zeta/SKILL.md)',
  ]);
  write(path.join(ws, '.github/skills/zeta/SKILL.md'), skillMd('zeta', 'Changed', 'Z.'));
  server.enqueue({ kind: 'text', chunks: ['Done.'] });
  assert.equal((await braid(ws, ['exec', 'after the change'])).code, 0);
  assert.match(systemOf(server.requests.at(-1)!), /- zeta: Changed \(/);
});

test("the skill tool returns a user skill's instructions and files; its script runs only through the bash tool, and only when approved", async () => {
  const ws = workspace('skill-tool');
  const marker = path.join(ws, 'marker.txt');
  const script = path.join(home, '.claude/skills/changelog/scripts/mark.sh');
  const script_call = (id: string) => ({
    kind: 'toolCalls' as const,
    calls: [{ id, name: 'bash', arguments: JSON.stringify({ command: `sh ${script} ${marker}` }) }],
  });
  for (const yes of [false, true]) {
    const from = server.requests.length;
    server.enqueue(
      { kind: 'toolCalls', calls: [{ id: `call_skill_${yes}`, name: 'skill', arguments: JSON.stringify({ name: 'changelog' }) }] },
      script_call(`call_bash_${yes}`),
      { kind: 'text', chunks: ['Done.'] },
    );
    const r = await braid(ws, ['exec', ...(yes ? ['--yes'] : []), 'write the changelog']);
    assert.equal(r.code, 0, r.err);
    const [, afterSkill] = requestsSince(from);
    const skillResult = textsOf(afterSkill!, 'tool');
    assert.match(skillResult, /Read git log, then write CHANGELOG\.md\./);
    assert.match(skillResult, /Its files: scripts\/mark\.sh/);
    assert.equal(fs.existsSync(marker), yes, yes ? 'approved (--yes): the script ran' : 'not approved: the script did not run');
  }
});

test('"/name args" sends the command\'s expansion, the typed line first; an unknown /name is a usage error that sends nothing; //x sends /x', async () => {
  const ws = workspace('commands');
  write(path.join(ws, '.claude/commands/git/fix.md'), 'Fix issue #$1 on branch $2.');
  let from = server.requests.length;
  server.enqueue({ kind: 'text', chunks: ['Reviewed.'] });
  let r = await braid(ws, ['exec', '/review src/a.ts quickly']);
  assert.equal(r.code, 0, r.err);
  let user = textsOf(requestsSince(from)[0]!, 'user');
  assert.match(user, /\/review src\/a\.ts quickly\\n\\nReview src\/a\.ts carefully\. All arguments: src\/a\.ts quickly/);
  from = server.requests.length;
  server.enqueue({ kind: 'text', chunks: ['Fixed.'] });
  r = await braid(ws, ['exec', '/git:fix 42 main']);
  assert.equal(r.code, 0, r.err);
  assert.match(textsOf(requestsSince(from)[0]!, 'user'), /Fix issue #42 on branch main\./);
  from = server.requests.length;
  r = await braid(ws, ['exec', '/nope at all']);
  assert.equal(r.code, 2);
  assert.match(r.err, /\/nope is not a command here \(braid skills lists them\)/);
  assert.equal(server.requests.length, from, 'nothing was sent');
  server.enqueue({ kind: 'text', chunks: ['Ok.'] });
  r = await braid(ws, ['exec', '//nope as text']);
  assert.equal(r.code, 0, r.err);
  user = textsOf(server.requests.at(-1)!, 'user');
  assert.match(user, /\/nope as text/);
  assert.doesNotMatch(user, /\/\/nope/);
});

test('copilot-instructions.md is given always; an applyTo instruction only after a matching file is read, and once', async () => {
  const ws = workspace('instructions');
  write(path.join(ws, '.github/copilot-instructions.md'), 'Always answer in English.');
  write(path.join(ws, '.github/instructions/ts.instructions.md'), '---\napplyTo: "**/*.ts"\n---\nTS_RULE: no any.\n');
  write(path.join(ws, 'notes.md'), 'notes');
  write(path.join(ws, 'src/a.ts'), 'export const a = 1;');
  const from = server.requests.length;
  const read = (id: string, file: string) => ({ kind: 'toolCalls' as const, calls: [{ id, name: 'read_file', arguments: JSON.stringify({ path: file }) }] });
  server.enqueue(read('call_md', 'notes.md'), read('call_ts', 'src/a.ts'), read('call_ts2', 'src/a.ts'), { kind: 'text', chunks: ['Read.'] });
  const r = await braid(ws, ['exec', 'read things']);
  assert.equal(r.code, 0, r.err);
  const [first, afterMd, afterTs, afterTs2] = requestsSince(from);
  assert.match(textsOf(first!, 'user'), /Instructions from \.github\/copilot-instructions\.md in the workspace:\\nAlways answer in English\./);
  const count = (req: RecordedRequest) => textsOf(req, 'tool').split('TS_RULE').length - 1;
  assert.equal(count(afterMd!), 0, 'notes.md is not a .ts file');
  assert.equal(count(afterTs!), 1, 'given after src/a.ts was read');
  assert.match(
    textsOf(afterTs!, 'tool'),
    /Instructions from \.github\/instructions\/ts\.instructions\.md in the workspace \(for files matching \*\*\/\*\.ts\)/,
  );
  assert.equal(count(afterTs2!), 1, 'not given a second time');
  // The next turn has it in its context: reading the file again does not give it again; a changed one is given.
  server.enqueue(read('call_ts3', 'src/a.ts'), { kind: 'text', chunks: ['Read.'] });
  assert.equal((await braid(ws, ['exec', '--continue', 'again'])).code, 0);
  assert.equal(count(server.requests.at(-1)!), 1, 'told in an earlier turn: not given again');
  write(path.join(ws, '.github/instructions/ts.instructions.md'), '---\napplyTo: "**/*.ts"\n---\nTS_RULE: no any, no casts.\n');
  server.enqueue(read('call_ts4', 'src/a.ts'), { kind: 'text', chunks: ['Read.'] });
  assert.equal((await braid(ws, ['exec', '--continue', 'once more'])).code, 0);
  assert.equal(count(server.requests.at(-1)!), 2, 'changed: given again');
  assert.match(textsOf(server.requests.at(-1)!, 'tool'), /TS_RULE: no any, no casts\./);
});
