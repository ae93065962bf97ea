import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Message } from '@mariozechner/pi-ai';
import { promptText } from '../../src/core/format/messageText';
import { closeOpenToolCalls } from '../../src/core/wire/toolCalls';
import { replay } from '../../src/core/wire/replay';
import { readWireLog } from '../../src/core/wire/wireReader';
import { workspaceKey } from '../../src/core/workspace/workspaceKey';
import { runBraid, spawnBraid } from '../support/children';
import { assertIndexAgrees, doctorFinds, trials } from '../support/faults';
import { ScriptedModelServer, type RecordedRequest, type ScriptedReply } from '../support/modelServer';
import { tempDir } from '../support/store';
import { readSessionFolder } from '../../src/core/format/summary';

// `braid exec` (the CLI bundled like the product, its own process) is killed with SIGKILL at a
// random moment of a turn that cannot end by itself (the model stalls, or a tool runs and the
// model stalls after it); then `braid exec --continue` must run at once. Every turn that had
// ended is still there, a killed turn that began is ended `interrupted` with its tool calls
// closed, and the doctor leaves nothing to repair.
const TRIALS = trials('BRAID_CLI_KILLS', 10, 100);
const root = tempDir('braid-cli-kill-');
const data = path.join(root, 'store');
const workspace = path.join(root, 'project');
after(() => fs.rmSync(root, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The model's answers, decided by the request: what the last message says. */
function reply(request: RecordedRequest): ScriptedReply {
  const last = JSON.stringify(request.body.messages?.at(-1) ?? '');
  const role = request.body.messages?.at(-1)?.role;
  if (role === 'tool') return { kind: 'stall', chunks: ['Looked; now thinking'] };
  if (last.includes('kill-read')) return { kind: 'toolCalls', calls: [{ id: `call_${Date.now()}`, name: 'read_file', arguments: '{"path":"README.md"}' }] };
  if (last.includes('kill-bash')) return { kind: 'toolCalls', calls: [{ id: `call_${Date.now()}`, name: 'bash', arguments: '{"command":"sleep 1"}' }] };
  if (last.includes('kill-')) return { kind: 'stall', chunks: ['Partial ', 'answer'] };
  const n = /go-on (\d+)/.exec(last)?.[1] ?? '?';
  return { kind: 'text', chunks: [`Answer ${n}.`] };
}

test(`${TRIALS} SIGKILLs of braid exec mid-turn: exec --continue runs at once and loses no ended turn`, async (t) => {
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'README.md'), '# Project\n');
  const server = new ScriptedModelServer(reply);
  const env = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: await server.start() };
  const braid = (args: string[]) => ['--data-dir', data, '--workspace', workspace, ...args];
  try {
    const first = await runBraid(braid(['exec', 'go-on 0']), env);
    assert.equal(first.code, 0, first.err);
    const ended = ['go-on 0'];
    let midTurn = 0;
    for (let i = 1; i <= TRIALS; i++) {
      const kind = ['kill-text', 'kill-read', 'kill-bash'][Math.floor(Math.random() * 3)]!;
      const killed = spawnBraid(braid(['exec', '--yes', '--continue', `${kind} ${i}`]), env);
      // Every other trial is killed once the turn shows output (then a little later); the others
      // at any moment from the start (opening the store, taking the lease, beginning the turn).
      if (i % 2 === 0) {
        for (let waited = 0; !killed.out() && killed.child.exitCode === null && waited < 20_000; waited += 10) await sleep(10);
        await sleep(Math.random() * 200);
      } else {
        await sleep(Math.random() * 2000);
      }
      killed.child.kill('SIGKILL');
      const { signal } = await killed.exit;
      assert.equal(signal, 'SIGKILL', `trial ${i}: exec ended by itself: ${killed.err()}`);

      const next = await runBraid(braid(['exec', '--continue', `go-on ${i}`]), env);
      assert.equal(next.code, 0, `trial ${i}: exec --continue after the kill: ${next.err}`);
      assert.equal(next.out, `Answer ${i}.\n`);
      ended.push(`go-on ${i}`);

      const id = fs.readdirSync(path.join(data, 'sessions', workspaceKey(workspace))).find((n) => n.startsWith('ses_'))!;
      const dir = path.join(data, 'sessions', workspaceKey(workspace), id);
      const history = replay(readWireLog(path.join(dir, 'agents', 'main', 'wire.jsonl')).records);
      const prompts = history.messages.filter((m) => m.message.role === 'user').map((m) => ({ turn: m.turn, text: promptText(m.message) }));
      const texts = new Set(prompts.map((p) => p.text));
      assert.deepEqual(
        ended.filter((p) => !texts.has(p)),
        [],
        `trial ${i}: turns that had ended are missing`,
      );
      const killedTurn = prompts.find((p) => p.text === `${kind} ${i}`)?.turn;
      if (killedTurn !== undefined) {
        midTurn++;
        assert.equal(history.turnEnds.find((e) => e.turn === killedTurn)?.outcome, 'interrupted', `trial ${i}: the killed turn`);
      }
      assert.deepEqual(
        closeOpenToolCalls(
          history.messages.map((m) => m.message as Message),
          '',
        ),
        [],
        `trial ${i}: a tool call left without a result`,
      );
      assert.equal(history.openTurn, null);
      const { state } = readSessionFolder(dir).summary;
      assert.deepEqual([state.status, state.turnCount], ['idle', history.nextTurn - 1], `trial ${i}: the session's status and turns`);
    }
    t.diagnostic(`kills: ${TRIALS}; landed in a turn that had begun: ${midTurn}; before it began: ${TRIALS - midTurn}; turns kept: ${ended.length}`);
    assert.ok(midTurn > 0, 'some kills landed mid-turn');
  } finally {
    await server.close();
  }
  const doctor = await doctorFinds(data);
  assert.deepEqual(doctor.left, []);
  await assertIndexAgrees(data);
});
