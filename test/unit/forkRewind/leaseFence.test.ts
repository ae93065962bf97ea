import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { runDoctor } from '../../../src/core/store/doctor';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import type { WireRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { spawnBraid, spawnWorker } from '../../support/children';
import { ScriptedModelServer } from '../../support/modelServer';
import { addTurn, openStore, tempDir, wasmPath } from '../../support/store';
import { readSessionFolder } from '../../../src/core/format/summary';

// A writer paused for longer than its lease (SIGSTOP, or asleep right after a lease check) while
// another process takes the lease over and writes: when it goes on, what it writes lands nowhere,
// each later attempt is refused with one clear sentence, and the log keeps a clean turn structure.
// The lease times are shortened here (BRAID_LEASE_STALE_MS, read by every process); the
// product's stay 10 s / 30 s.
const STALE_MS = 800;
process.env.BRAID_LEASE_STALE_MS = String(STALE_MS);
const LOST = /another process took over writing this session/;
const root = tempDir('braid-lease-fence-');
after(() => fs.rmSync(root, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** After the paused writer's lease expired: opens the session here (taking the lease over), ends the open turn and adds `turns` turns. */
async function takeOver(store: SessionStore, id: string, turns: number): Promise<void> {
  await sleep(STALE_MS * 1.5);
  const writer = await store.openWriter(id);
  assert.equal(await writer.recover(), true, "the paused writer's open turn was ended interrupted");
  for (let n = 0; n < turns; n++) await addTurn(writer, `taken over ${n}`, 'written after the takeover');
  await writer.close();
}

function turnMarks(records: WireRecord[]): string[] {
  return records.filter((r) => r.t === 'turn_begin' || r.t === 'turn_end').map((r) => `${r.t} ${(r as { turn: number }).turn}`);
}

/** The session after the paused writer went on: only the other process's turns, state as it left it. */
async function assertUntouched(store: SessionStore, id: string, title: string, turns: number): Promise<void> {
  const records = readWireLog(path.join(store.locate(id), 'agents', 'main', 'wire.jsonl')).records;
  assert.equal(JSON.stringify(records).includes('the paused answer'), false, 'the paused writer appended after the takeover');
  assert.deepEqual(turnMarks(records), Array.from({ length: turns }, (_, i) => [`turn_begin ${i + 1}`, `turn_end ${i + 1}`]).flat());
  const { state } = readSessionFolder(store.locate(id)).summary;
  assert.deepEqual([state.title, state.turnCount, state.status], [title, turns, 'idle']);
  assert.deepEqual(
    (await runDoctor(store, { fix: false })).findings.filter((f) => f.where.includes(id)),
    [],
  );
}

test('a writer whose lease was taken over while it was stopped cannot append or write state when it resumes', async () => {
  const store = await openStore(root);
  const session = await store.create({ workspaceDir: '/fence', title: 'Fenced' });
  const paused = spawnWorker('pausedWriter', [root, session.id, wasmPath, 'between']);
  await paused.printed('began 1');
  paused.child.kill('SIGSTOP');
  try {
    await takeOver(store, session.id, 2);
  } finally {
    paused.child.kill('SIGCONT');
  }
  paused.child.stdin!.write('go\n');
  assert.equal((await paused.exit).code, 0, paused.err());
  const result = JSON.parse(
    paused
      .out()
      .split('\n')
      .find((l) => l.startsWith('{'))!,
  ) as Record<string, string | null>;
  for (const what of ['append', 'state', 'end']) assert.match(result[what] ?? 'it was written', LOST, what);
  await assertUntouched(store, session.id, 'Fenced', 3);
  await store.close();
});

for (const where of ['log', 'state'] as const) {
  test(`a writer asleep right after its lease check, before its ${where === 'log' ? 'append' : 'state.json write'}: that write lands nowhere after a takeover`, async () => {
    const store = await openStore(root);
    const session = await store.create({ workspaceDir: '/window', title: 'Before the window' });
    const paused = spawnWorker('pausedWriter', [root, session.id, wasmPath, where, String(STALE_MS * 5)]);
    await paused.printed('in the window');
    await takeOver(store, session.id, 1);
    assert.equal((await paused.exit).code, 0, paused.err());
    const result = JSON.parse(
      paused
        .out()
        .split('\n')
        .find((l) => l.startsWith('{'))!,
    ) as Record<string, string | null>;
    // An append made after its check goes to the file the takeover replaced: the writer learns of
    // the loss at its next write. A state.json write finds its temp file gone and says why.
    for (const what of where === 'log' ? ['state', 'end'] : ['state', 'append', 'end']) assert.match(result[what] ?? 'it was written', LOST, what);
    await assertUntouched(store, session.id, 'Before the window', 2);
    await store.close();
  });
}

test('braid exec stopped mid-answer past its lease: when it goes on, the turn fails with one sentence on stderr and nothing more is written', async () => {
  const server = new ScriptedModelServer();
  const env = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: await server.start() };
  const data = path.join(root, 'cli');
  const workspace = path.join(root, 'project');
  fs.mkdirSync(workspace, { recursive: true });
  server.enqueue({ kind: 'text', chunks: ['Streaming ', 'slowly ', 'along.'], chunkDelayMs: 300 });
  const cli = spawnBraid(['--data-dir', data, '--workspace', workspace, 'exec', 'Take your time'], env);
  await cli.printed('Streaming');
  cli.child.kill('SIGSTOP');
  const store = await openStore(data);
  try {
    // The CLI writes its index after the turn: the new session is found from its folder.
    await store.index.catchUpWithFolders();
    try {
      await takeOver(store, store.index.list({})[0]!.id, 1);
    } finally {
      cli.child.kill('SIGCONT');
    }
    assert.equal((await cli.exit).code, 1);
    assert.match(cli.err(), /^braid: the turn failed: another process took over writing this session .*open the session again/m);
    const id = store.index.list({})[0]!.id;
    const records = readWireLog(path.join(store.locate(id), 'agents', 'main', 'wire.jsonl')).records;
    assert.deepEqual(turnMarks(records), ['turn_begin 1', 'turn_end 1', 'turn_begin 2', 'turn_end 2'], 'nothing of the stopped CLI after the takeover');
    assert.equal(JSON.stringify(records).includes('along.'), false);
    assert.deepEqual([store.get(id).turnCount, store.get(id).status], [2, 'idle']);
  } finally {
    await store.close();
    await server.close();
  }
});
