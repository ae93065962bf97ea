import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { messageText } from '../../src/core/format/messageText';
import { readState } from '../../src/core/format/sessionState';
import { replay } from '../../src/core/wire/replay';
import { readWireLog } from '../../src/core/wire/wireReader';
import { runDoctor } from '../../src/core/store/doctor';
import { trials } from '../support/faults';
import { openStore, repoRoot, tempDir, wasmPath } from '../support/store';

// A child appends turns in a loop and is killed with SIGKILL at random moments (in appends,
// state writes and index saves). After every kill, each turn the child saw reach turn_end must
// still be there, and the log must replay.
const KILLS = trials('BRAID_CRASH_KILLS', 200, 600);
const LANES = 2;
const worker = path.join(repoRoot, 'out', 'test', 'workers', 'appendWorker.cjs');
const root = tempDir('braid-crash-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

/**
 * Runs the worker until it has ended `turns` turns, then kills it `delayMs` later: somewhere in
 * the next turn's appends, state writes or index save, whatever the machine's speed.
 */
function runUntilKilled(sessionId: string, turns: number, delayMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, root, sessionId, wasmPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let armed = false;
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (!armed && out.includes('ready') && (out.match(/^ended /gm)?.length ?? 0) >= turns) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`worker exited with ${code}: ${err}`));
      else
        resolve(
          out
            .split('\n')
            .filter((l) => l.startsWith('ended '))
            .map((l) => l.slice(6)),
        );
    });
  });
}

test(`${KILLS} SIGKILLs during appends lose no turn that reached turn_end`, async () => {
  const store = await openStore(root);
  const sessions = await Promise.all(Array.from({ length: LANES }, () => store.create({ workspaceDir: '/crash' })));
  await store.close();
  const ended: string[][] = sessions.map(() => []);
  let kills = 0;
  let awaited = 0;
  await Promise.all(
    sessions.map(async (session, lane) => {
      const dir = path.join(root, 'sessions', session.workspaceKey, session.id);
      while (kills < KILLS) {
        kills++;
        const turns = Math.floor(Math.random() * 3);
        awaited += turns;
        ended[lane]!.push(...(await runUntilKilled(session.id, turns, Math.random() * 40)));
        const log = path.join(dir, 'agents', 'main', 'wire.jsonl');
        // SIGKILL never splits a write(); a power cut can. Now and then leave the tail of a record
        // cut short, as a power cut would, for the next run to cope with.
        if (Math.random() < 0.3)
          fs.appendFileSync(
            log,
            '{"v":1,"t":"message","turn":9,"id":"cut","message":{"role":"user","content":"cu'.slice(0, 5 + Math.floor(Math.random() * 60)),
          );
        const { records, report } = readWireLog(log);
        const history = replay(records);
        const begun = new Set(history.turnBegins.map((r) => r.turn));
        const completed = new Set(history.turnEnds.filter((r) => r.outcome === 'completed').map((r) => r.turn));
        // A turn counts as kept only whole: its turn_begin, its prompt and its completed turn_end.
        const prompts = new Set(
          history.messages.filter((m) => m.message.role === 'user' && begun.has(m.turn) && completed.has(m.turn)).map((m) => messageText(m.message)),
        );
        const lost = ended[lane]!.filter((p) => !prompts.has(p));
        assert.deepEqual(lost, [], `after kill ${kills}: turns that had ended are missing`);
        assert.ok(report.badLines <= kills, 'at most one bad line per kill');
        readState(path.join(dir, 'state.json')); // never a half-written state.json
      }
    }),
  );
  assert.ok(ended.flat().length >= awaited, `turns completed across the kills: ${ended.flat().length}`);

  const recovered = await openStore(root);
  const findings = (await runDoctor(recovered, { fix: true })).findings.filter((f) => f.severity === 'error' || !f.fixed);
  assert.deepEqual(
    findings.filter((f) => f.severity === 'error'),
    [],
  );
  for (const session of sessions) {
    const row = recovered.index.get(session.id);
    assert.ok(row, 'indexed');
    assert.ok(recovered.history(session.id).messages.length >= 2 * ended[sessions.indexOf(session)]!.length);
  }
  await recovered.close();
});
