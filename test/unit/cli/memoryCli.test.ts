import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { MemoryRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { braidIn, cliWithScriptedModel, execSessionId } from '../../support/cli';
import { spawnBraid } from '../../support/children';

// `braid memory`: has the model update the memory and sets it from stdin as real processes; shows
// it, and refuses bad text and a failed update (changing nothing), run in this process.
const { root, workspace, server, env } = cliWithScriptedModel('braid-memory-cli-');

async function braid(args: readonly string[], stdin?: string): Promise<{ code: number | null; out: string; err: string }> {
  const run = spawnBraid(args, env());
  run.child.stdin!.end(stdin ?? '');
  const { code } = await run.exit;
  return { code, out: run.out(), err: run.err() };
}

const store = path.join(root, 'store');
const base = ['--data-dir', store, '--workspace', workspace];
let id = '';
const memories = () =>
  readWireLog(path.join(store, 'sessions', fs.readdirSync(path.join(store, 'sessions'))[0]!, id, 'agents', 'main', 'wire.jsonl')).records.filter(
    (r): r is MemoryRecord => r.t === 'memory',
  );

/** The session the tests share: one turn made by braid exec (at the first test, when the server is up). */
async function session(): Promise<void> {
  if (id) return;
  server.enqueue({ kind: 'text', chunks: ['Noted: tabs.'] });
  const made = await braidIn([...base, 'exec', 'we indent with tabs in this project'], { env: env() });
  assert.equal(made.code, 0, made.err);
  id = execSessionId(made.err, store);
}

test('braid memory: none yet says how to get one; --update has the model write it and prints it', async () => {
  await session();
  const none = await braidIn([...base, 'memory', id], { env: env() });
  assert.equal(none.code, 0, none.err);
  assert.equal(none.out, '');
  assert.match(none.err, /has no memory yet; braid memory \S+ --update asks the model for one/);

  server.enqueue({ kind: 'text', chunks: ['- preference: indent with tabs\n- file: src/index.ts is the entry'] });
  const updated = await braid([...base, 'memory', id, '--update']);
  assert.equal(updated.code, 0, updated.err);
  assert.equal(updated.out, '- file: src/index.ts is the entry\n- preference: indent with tabs\n');
  assert.match(JSON.stringify(server.requests.at(-1)?.body), /we indent with tabs in this project/, 'the model saw the conversation');
  assert.equal(memories().at(-1)?.by, 'model');
});

test("braid memory --set - writes the facts of stdin as the user's; --json prints the record", async () => {
  await session();
  const set = await braid([...base, 'memory', id, '--set', '-'], '# mine\n- decision: tabs, never spaces\n');
  assert.equal(set.code, 0, set.err);
  assert.equal(set.out, '- decision: tabs, never spaces\n');
  const last = memories().at(-1)!;
  assert.deepEqual([last.by, last.facts], ['user', [{ kind: 'decision', text: 'tabs, never spaces' }]]);
  const json = await braidIn([...base, 'memory', id, '--json'], { env: env() });
  assert.equal(json.code, 0, json.err);
  assert.deepEqual(JSON.parse(json.out), { by: 'user', turn: 1, ts: last.ts, facts: last.facts });
});

test('bad text, a failed update and both options change nothing and exit non-zero', async () => {
  await session();
  const before = memories().length;
  const file = path.join(root, 'too-long.md');
  fs.writeFileSync(file, `- note: ${'x'.repeat(601)}\n`);
  const bad = await braidIn([...base, 'memory', id, '--set', file], { env: env() });
  assert.equal(bad.code, 1);
  assert.match(bad.err, /braid: the memory was not changed: line 1 is 601 characters long/);
  server.enqueue({ kind: 'httpError', status: 400, message: 'no memory today' });
  const failed = await braidIn([...base, 'memory', id, '--update'], { env: env() });
  assert.equal(failed.code, 1);
  assert.match(failed.err, /braid: the memory was not updated \(.*no memory today.*\); it stays as it was/);
  const both = await braidIn([...base, 'memory', id, '--update', '--set', file], { env: env() });
  assert.equal(both.code, 2);
  assert.equal(memories().length, before, 'none wrote a record');
});
