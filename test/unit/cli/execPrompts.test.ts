import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { MessageRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { braidIn, execSessionId, filesNamed } from '../../support/cli';
import { StoreLayout } from '../../../src/core/format/layout';
import { storeShortForms } from '../../../src/core/format/sessionShortIds';
import { initRepo } from '../../support/gitRepo';
import { ScriptedModelServer } from '../../support/modelServer';
import { openStore, sessionIdsIn, tempDir } from '../../support/store';
import { readSessionFolder } from '../../../src/core/format/summary';

// `braid exec` tells the truth about its prompt: it runs it (resuming a queue a closed window
// left paused) or says why not with a non-zero exit; a blocked prompt leaves nothing behind; a
// session's tools act in the session's own folder; exit 0 only for a turn that is saved.
const root = tempDir('braid-exec-prompts-');
const server = new ScriptedModelServer();
let env: NodeJS.ProcessEnv = {};
const folderA = path.join(root, 'a');
const folderB = path.join(root, 'b');

before(async () => {
  fs.mkdirSync(folderA);
  fs.mkdirSync(folderB);
  env = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: await server.start() };
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const braid = (store: string, workspace: string, args: string[], extra: { env?: NodeJS.ProcessEnv; onOut?: (t: string) => void } = {}) =>
  braidIn(['--data-dir', store, '--workspace', workspace, ...args], { env: { ...env, ...extra.env }, ...(extra.onOut ? { onOut: extra.onOut } : {}) });

function sessionDir(store: string, workspace: string, id: string): string {
  return path.join(store, 'sessions', workspaceKey(workspace), id);
}

function userPrompts(dir: string): string[] {
  return (readWireLog(path.join(dir, 'agents', 'main', 'wire.jsonl')).records.filter((r) => r.t === 'message') as MessageRecord[])
    .filter((m) => m.message.role === 'user')
    .map((m) => {
      const c = m.message.content;
      return typeof c === 'string' ? c : (c.at(-1) as { text: string }).text;
    });
}

async function newSession(store: string, workspace: string): Promise<string> {
  server.enqueue({ kind: 'text', chunks: ['Hello.'] });
  const first = await braid(store, workspace, ['exec', 'hello']);
  assert.equal(first.code, 0, first.err);
  return execSessionId(first.err, store);
}

test('a queue a closed window left paused is resumed: the earlier prompt runs, then this one, and exec says so', async () => {
  const store = path.join(root, 'store-queue');
  const id = await newSession(store, folderA);
  // A window closed with a prompt queued: the queue is kept, paused.
  const s = await openStore(store);
  await s.update(id, (state) => ({
    ...state,
    queue: [{ promptId: 'prm_earlier0000000001', text: 'the earlier prompt', messageKey: 'earlier-1', queuedAt: Date.now() }],
    paused: { reason: 'window-closed' },
  }));
  await s.close();
  server.enqueue({ kind: 'text', chunks: ['Answer to the earlier prompt.'] }, { kind: 'text', chunks: ['Answer to yours.'] });
  const r = await braid(store, folderA, ['exec', '--session', id, 'the new prompt']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /had 1 prompt queued, paused when a window closed; resuming its queue/);
  assert.match(r.out, /Answer to the earlier prompt\.[\s\S]*Answer to yours\.\n$/);
  const dir = sessionDir(store, folderA, id);
  assert.deepEqual(userPrompts(dir), ['hello', 'the earlier prompt', 'the new prompt']);
  const { state } = readSessionFolder(dir).summary;
  assert.deepEqual([state.queue, state.paused, state.turnCount], [[], null, 3]);
});

test("a blocked first prompt is refused with the hook's message and leaves no session and no lock", async () => {
  const store = path.join(root, 'store-blocked');
  const hook = { BRAID_PROMPT_HOOK: 'cat >/dev/null; echo "no secrets" >&2; exit 2' };
  const r = await braid(store, folderA, ['exec', 'my password is hunter2'], { env: hook });
  assert.equal(r.code, 1);
  assert.match(r.err, /^braid: the prompt was blocked by the UserPromptSubmit hook: no secrets\n$/);
  assert.deepEqual(sessionIdsIn(path.join(store, 'sessions', workspaceKey(folderA))), []);
  assert.equal(JSON.parse((await braid(store, folderA, ['list', '--json'])).out).length, 0);
  // A blocked prompt in a session with turns: refused, the session unchanged and not locked.
  const id = await newSession(store, folderA);
  const blocked = await braid(store, folderA, ['exec', '--continue', 'again hunter2'], { env: hook });
  assert.equal(blocked.code, 1);
  assert.match(blocked.err, /blocked by the UserPromptSubmit hook: no secrets/);
  assert.equal(readSessionFolder(sessionDir(store, folderA, id)).summary.state.turnCount, 1);
  assert.deepEqual(filesNamed(store, 'writer.lock'), []);
  assert.deepEqual(filesNamed(store, 'state.lock'), []);
});

test("exec --session from another folder acts in the session's folder and says so; a folder that is gone is refused", async () => {
  const store = path.join(root, 'store-elsewhere');
  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  const id = await newSession(store, home);
  server.enqueue(
    { kind: 'toolCalls', calls: [{ id: 'w1', name: 'write_file', arguments: '{"path":"notes.txt","content":"from the session"}' }] },
    { kind: 'text', chunks: ['Written.'] },
  );
  const r = await braid(store, folderB, ['exec', '--session', id, '--yes', 'write notes.txt']);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.err,
    new RegExp(
      `session ${storeShortForms(new StoreLayout(store))(id)} works in ${home.replace(/[/\\]/g, '.')}; its tools act there, not in ${folderB.replace(/[/\\]/g, '.')}`,
    ),
  );
  assert.equal(fs.readFileSync(path.join(home, 'notes.txt'), 'utf8'), 'from the session');
  assert.equal(fs.existsSync(path.join(folderB, 'notes.txt')), false);
  fs.rmSync(home, { recursive: true });
  const requests = server.requests.length;
  const gone = await braid(store, folderB, ['exec', '--session', id, 'hello?']);
  assert.equal(gone.code, 1);
  assert.match(gone.err, /^braid: session [0-9A-Z]{6,} works in .*home, which no longer exists; restore that folder to continue it, or start a new session\n$/);
  assert.equal(server.requests.length, requests, 'no model call');
});

test('the data folder removed while exec streams: exit 1, one line saying the turn was not saved, no stack, no advice to continue', async () => {
  const store = path.join(root, 'store-removed');
  server.enqueue({ kind: 'text', chunks: ['Part one. ', 'Part two. ', 'Part three.'], chunkDelayMs: 150 });
  let removed = false;
  const r = await braid(store, folderA, ['exec', 'a long answer please'], {
    onOut: () => {
      if (!removed) fs.rmSync(store, { recursive: true, force: true });
      removed = true;
    },
  });
  assert.ok(removed);
  assert.equal(r.code, 1, r.err);
  assert.match(
    r.err,
    /^braid: the turn was not saved: the session's log could not be written \(its folder was removed: the folder of session ses_\w+ was removed while it was open/m,
  );
  assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(r.err, /continue with/);
});

test('the prompt exec sends starts on a line of its own after the git reminder, however the server joins the text parts', async () => {
  const store = path.join(root, 'store-reminder');
  const repo = path.join(root, 'repo');
  initRepo(repo, { 'README.md': '# hi\n' });
  server.enqueue({ kind: 'text', chunks: ['Hi.'] });
  const seen = server.requests.length;
  const r = await braid(store, repo, ['exec', 'What does this project do?']);
  assert.equal(r.code, 0, r.err);
  const user = server.requests[seen]!.body.messages!.find((m) => m.role === 'user')!;
  const parts = (user.content as { type: string; text: string }[]).map((p) => p.text);
  assert.match(parts[0]!, /^<system-reminder>\nGit context of the workspace:\n[\s\S]*\n<\/system-reminder>\n$/);
  // OpenAI's APIs join a message's text parts with nothing between them.
  assert.match(parts.join(''), /\n<\/system-reminder>\nWhat does this project do\?$/);
});
