import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { braidIn, TERMINAL_UNSAFE } from '../../support/cli';
import { ScriptedModelServer } from '../../support/modelServer';
import { addTurn, openStore, tempDir } from '../../support/store';

// Titles, prompts and model output carrying terminal escape sequences: every command prints them
// visibly (⟨U+001B⟩), a title stays one line, --json stays valid JSON that means the same, and
// the raw JSONL export stays byte-exact.
const root = tempDir('braid-terminal-');
const store = path.join(root, 'store');
const workspace = path.join(root, 'project');
const server = new ScriptedModelServer();
let env: NodeJS.ProcessEnv = {};

const CLIPBOARD = '\u001b]52;c;ZWNobyBwd25lZA==\u0007'; // OSC 52: writes the clipboard
const WINDOW_TITLE = '\u001b]0;owned\u0007'; // OSC 0: sets the window title
const CSI8 = '\u009b31m'; // the 8-bit CSI: JSON.stringify leaves it raw
const prompt = `paste ${CLIPBOARD} title ${WINDOW_TITLE} red ${CSI8} bidi \u202E gnirts`;
const answer = `clear\u001b[2J\u001b[H and\r overwrite \u007f done`;
const forgedTitle = 'Quiet title\nses_01ARZ3NDEKTSV4RRFFQ69G5FAV  idle           1 turns     1 s ago  forged row';
let id = '';

const braid = (args: string[]) => braidIn(['--data-dir', store, '--workspace', workspace, ...args], { env });

before(async () => {
  fs.mkdirSync(workspace);
  env = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: await server.start() };
  const s = await openStore(store);
  const state = await s.create({ workspaceDir: workspace });
  const writer = await s.openWriter(state.id);
  await addTurn(writer, prompt, answer);
  await writer.close();
  const other = await s.create({ workspaceDir: workspace });
  await (await s.openWriter(other.id)).close();
  await s.close();
  id = state.id;
  // A title written by another program (or an older Braid) with a line break in it.
  const file = path.join(store, 'sessions', workspaceKey(workspace), other.id, 'state.json');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), title: forgedTitle, titleSource: 'user' }));
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function assertVisible(text: string, what: string): void {
  assert.doesNotMatch(text, TERMINAL_UNSAFE, `${what} printed a raw control character: ${JSON.stringify(text)}`);
}

test('list and search print every session on one line, escape sequences shown as ⟨U+001B⟩', async () => {
  for (const args of [['list'], ['list', '--all'], ['search', 'paste']]) {
    const r = await braid(args);
    assert.equal(r.code, 0, r.err);
    assertVisible(r.out, args.join(' '));
    const rows = r.out
      .trimEnd()
      .split('\n')
      .filter((line) => !line.startsWith('    ')); // a search's matching turns, under their session
    assert.equal(rows.length, args[0] === 'search' ? 1 : 2, `${args.join(' ')}: ${r.out}`);
    for (const row of rows) assert.match(row, /^[0-9A-HJKMNP-TV-Z]{6,26} +(idle|running)/, "each row begins with its session's short form");
  }
  const listed = (await braid(['list'])).out;
  assert.match(listed, /paste ⟨U\+001B⟩\]52;c;ZWNobyBwd25lZA==⟨U\+0007⟩/);
  assert.match(listed, /Quiet title ses_01ARZ3NDEKTSV4RRFFQ69G5FAV idle 1 turns 1 s ago forged row\n/);
});

test('show and export md show the conversation with its control characters visible', async () => {
  const shown = await braid(['show', id]);
  assert.equal(shown.code, 0, shown.err);
  assertVisible(shown.out, 'show');
  assert.match(shown.out, /clear⟨U\+001B⟩\[2J⟨U\+001B⟩\[H and⟨U\+000D⟩ overwrite ⟨U\+007F⟩ done/);
  assert.match(shown.out, /red ⟨U\+009B⟩31m bidi ⟨U\+202E⟩ gnirts/);
  const md = await braid(['export', id, '--format', 'md']);
  assert.equal(md.code, 0, md.err);
  assertVisible(md.out, 'export md');
  assert.match(md.out, /title ⟨U\+001B⟩\]0;owned⟨U\+0007⟩/);
});

test('--json is valid JSON holding the same strings, with nothing raw a terminal would act on', async () => {
  for (const args of [
    ['list', '--json'],
    ['search', 'paste', '--json'],
    ['show', id, '--json'],
  ]) {
    const r = await braid(args);
    assert.equal(r.code, 0, r.err);
    assertVisible(r.out, args.join(' '));
    JSON.parse(r.out);
  }
  const rows = JSON.parse((await braid(['list', '--json'])).out) as Array<{ id: string; title: string; firstPrompt: string }>;
  const firstPrompt = rows.find((r) => r.id === id)!.firstPrompt;
  for (const raw of [CLIPBOARD, WINDOW_TITLE, CSI8]) assert.ok(firstPrompt.includes(raw), `--json keeps ${JSON.stringify(raw)}`);
  const shown = JSON.parse((await braid(['show', id, '--json'])).out) as { messages: Array<{ text: string }> };
  assert.deepEqual(
    shown.messages.map((m) => m.text),
    [prompt, answer],
  );
});

test('a title is one line wherever it is read', async () => {
  const rows = JSON.parse((await braid(['list', '--json'])).out) as Array<{ id: string; title: string }>;
  assert.equal(rows.find((r) => r.id !== id)!.title, forgedTitle.replace(/\s+/g, ' '));
});

test('export jsonl stays byte-exact', async () => {
  const r = await braid(['export', id, '--format', 'jsonl']);
  assert.equal(r.code, 0, r.err);
  const log = fs.readFileSync(path.join(store, 'sessions', workspaceKey(workspace), id, 'agents', 'main', 'wire.jsonl'), 'utf8');
  assert.equal(r.out, log);
  assert.ok(r.out.includes(CSI8), 'the raw log keeps the C1 character');
});

test('exec shows model output, tool calls and errors with their control characters visible', async () => {
  server.enqueue(
    { kind: 'toolCalls', calls: [{ id: 'c1', name: 'read_file', arguments: JSON.stringify({ path: `x${CSI8}\u001b]0;t\u0007` }) }] },
    { kind: 'text', chunks: ['Done ', WINDOW_TITLE, ' and ', CLIPBOARD, '\u0007\u0008\u001b[1A\r\n'] },
  );
  const ok = await braid(['exec', 'read it']);
  assert.equal(ok.code, 0, ok.err);
  assertVisible(ok.out, 'exec stdout');
  assertVisible(ok.err, 'exec stderr');
  assert.match(ok.out, /^\[read_file\] \{"path":"x⟨U\+009B⟩31m\\u001b\]0;t\\u0007"\}\n/);
  assert.match(ok.out, /Done ⟨U\+001B⟩\]0;owned⟨U\+0007⟩ and ⟨U\+001B⟩\]52;c;/);
  server.enqueue({ kind: 'httpError', status: 400, message: `bad request ${WINDOW_TITLE}${CSI8}` });
  const failed = await braid(['exec', 'fail please']);
  assert.equal(failed.code, 1);
  assertVisible(failed.err, 'exec error');
  assert.match(failed.err, /the turn failed: .*bad request ⟨U\+001B⟩\]0;owned⟨U\+0007⟩⟨U\+009B⟩/);
});
