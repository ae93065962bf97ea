import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shareRemote } from '../../../src/core/share/remote';
import { keptRemote, ShareMemory, type KeptValues } from '../../../src/vscode/share/shareMemory';

// What a workspace remembers of its pushes, pulls and syncs (workspaceState in VS Code, a map here):
// the remote last named, which the next input box starts with, and the last push, pull and sync,
// which the Sessions view's description and the status bar's tooltip show.

function values(initial: Record<string, unknown> = {}): KeptValues & { map: Map<string, unknown> } {
  const map = new Map(Object.entries(initial));
  return { map, get: <T>(key: string) => map.get(key) as T | undefined, update: async (key, value) => void map.set(key, value) };
}

const MINUTE = 60_000;

test('there is no remote before the first push or pull; the one named last is kept', async () => {
  const memory = new ShareMemory(values());
  assert.equal(memory.remote, undefined);
  await memory.rememberRemote('origin');
  assert.equal(memory.remote, 'origin');
  await memory.rememberRemote('/srv/sessions.git');
  assert.equal(memory.remote, '/srv/sessions.git');
  assert.equal(new ShareMemory(values({ 'braid.share.remote': 42 })).remote, undefined, 'a value that is not text is no remote');
  assert.equal(new ShareMemory(values({ 'braid.share.remote': '  ' })).remote, undefined);
});

test("the remote is kept as typed when it is a git remote's name, else as shown: never with its password", async () => {
  const noNames = async () => undefined;
  const withToken = await shareRemote('https://me:s3cret@example.com/me/sessions.git', '/w', noNames);
  assert.equal(keptRemote('https://me:s3cret@example.com/me/sessions.git', withToken, false), 'https://me@example.com/me/sessions.git');
  const relative = await shareRemote('../sessions.git', '/home/me/project', noNames);
  assert.equal(keptRemote('../sessions.git', relative, false), '/home/me/sessions.git');
  const byName = await shareRemote('origin', '/w', async () => 'https://me:s3cret@example.com/x.git');
  assert.equal(keptRemote(' origin ', byName, true), 'origin');
});

test('the description says the newer of the last push and pull, as time passes', async () => {
  const memory = new ShareMemory(values());
  assert.equal(memory.description(), undefined, 'nothing before the first');
  assert.deepEqual(memory.tooltipLines(), []);
  const at = Date.parse('2025-03-01T10:00:00Z');
  await memory.record({ kind: 'push', at, remote: 'file:///srv/s.git', sessions: 3 });
  assert.equal(memory.description(at + 10_000), 'pushed just now');
  assert.equal(memory.description(at + 2 * MINUTE + 5_000), 'pushed 2 min ago');
  await memory.record({ kind: 'pull', at: at + 5 * MINUTE, remote: 'origin-url', sessions: 1 });
  assert.equal(memory.description(at + 65 * MINUTE), 'pulled 1 h ago');
  assert.equal(memory.latest()?.kind, 'pull');
  const lines = memory.tooltipLines();
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^Last push: 3 sessions to file:\/\/\/srv\/s\.git \(.+\)$/);
  assert.match(lines[1]!, /^Last pull: 1 session new or updated from origin-url \(.+\)$/);
});

test('a push older than the last pull does not hide it, and a newer one does', async () => {
  const memory = new ShareMemory(values());
  await memory.record({ kind: 'pull', at: 2 * MINUTE, remote: 'r', sessions: 0 });
  await memory.record({ kind: 'push', at: MINUTE, remote: 'r', sessions: 1 });
  assert.equal(memory.latest()?.kind, 'pull');
  await memory.record({ kind: 'push', at: 3 * MINUTE, remote: 'r', sessions: 1 });
  assert.equal(memory.latest()?.kind, 'push');
});

test('what is kept malformed is no event', () => {
  const memory = new ShareMemory(values({ 'braid.share.lastPush': { at: 'yesterday', remote: 'r', sessions: 1 }, 'braid.share.lastPull': 'pulled' }));
  assert.equal(memory.last('push'), undefined);
  assert.equal(memory.last('pull'), undefined);
  assert.equal(memory.description(), undefined);
});

test('recording an event tells the listeners, until they stop listening', async () => {
  const memory = new ShareMemory(values());
  let heard = 0;
  const stop = memory.onDidChange(() => heard++);
  await memory.record({ kind: 'push', at: 1, remote: 'r', sessions: 1 });
  assert.equal(heard, 1);
  stop();
  await memory.record({ kind: 'pull', at: 2, remote: 'r', sessions: 1 });
  assert.equal(heard, 1);
});

test('the last sync is kept with what came in and went out, and the description says the newest of the three', async () => {
  const memory = new ShareMemory(values());
  const at = Date.parse('2025-03-01T10:00:00Z');
  await memory.record({ kind: 'push', at, remote: 'r', sessions: 1 });
  await memory.record({ kind: 'sync', at: at + MINUTE, remote: 'file:///srv/s.git', sessions: 2, sent: 1 });
  assert.equal(memory.description(at + MINUTE + 10_000), 'synced just now');
  assert.deepEqual(memory.last('sync'), { kind: 'sync', at: at + MINUTE, remote: 'file:///srv/s.git', sessions: 2, sent: 1 });
  assert.match(memory.tooltipLines().at(-1)!, /^Last sync with file:\/\/\/srv\/s\.git: 2 sessions in, 1 out \(.+\)$/);
  await memory.record({ kind: 'pull', at: at + 2 * MINUTE, remote: 'r', sessions: 0 });
  assert.equal(memory.latest()?.kind, 'pull', 'a newer pull is said over the sync');
});
