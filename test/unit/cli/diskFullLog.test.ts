import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { replay } from '../../../src/core/wire/replay';
import type { TurnEndRecord } from '../../../src/core/wire/records';
import { braidIn, braidProcess, cliWithScriptedModel, execSessionId } from '../../support/cli';
import { quarantined, withQuarantinedLines } from '../../support/quarantine';

// The red team's disk that filled while a session's writer appended: each `braid exec` that ran out
// of room left a line cut short, and the next run went on after it, so the cut lines ended up in
// the middle of the log. `braid doctor --fix` moves them to the quarantine file beside the log.
// The writes run out of room for real (short writes, then ENOSPC) through BRAID_FAULT_LOG_ROOM.
const { root, workspace, server, env } = cliWithScriptedModel('braid-disk-full-');
const data = path.join(root, 'data');

interface Doctor {
  readonly code: number | null;
  readonly findings: Array<{ severity: string; where: string; message: string; fixable: boolean; fixed?: string }>;
}

async function doctor(...args: string[]): Promise<Doctor> {
  const r = await braidIn(['--data-dir', data, 'doctor', '--json', ...args]);
  return { code: r.code, findings: (JSON.parse(r.out) as Doctor).findings };
}

/** `braid exec` in this process; with `room`, in a process of its own whose log writes have that much room (BRAID_FAULT_LOG_ROOM is read from the process's environment). */
async function exec(args: string[], room?: number): Promise<{ code: number | null; err: string }> {
  const argv = ['--data-dir', data, '--workspace', workspace, 'exec', ...args];
  const r = room === undefined ? await braidIn(argv, { env: env() }) : await braidProcess(argv, { ...env(), BRAID_FAULT_LOG_ROOM: String(room) }).exited();
  return { code: r.code, err: r.err };
}

test('a disk that fills while the log is appended: doctor --fix quarantines the cut lines, every completed turn stays', async () => {
  server.enqueue({ kind: 'text', chunks: ['First answer.'] });
  const first = await exec(['first prompt']);
  assert.equal(first.code, 0, first.err);
  const id = execSessionId(first.err, data);

  // Four runs on a disk with a little room: a write past it is cut short, as on a full disk. The
  // cuts fall in a turn_begin, a prompt (its turn left open), the turn_end with which the next run
  // ends that turn `interrupted`, and a turn_begin again.
  for (const room of [90, 500, 40, 500]) {
    const full = await exec(['--session', id, `a prompt while the disk is full (${room})`], room);
    assert.equal(full.code, 1, full.err);
    assert.match(full.err, /no space left on device \(ENOSPC\)/);
  }
  server.enqueue({ kind: 'text', chunks: ['Room again.'] });
  const last = await exec(['--session', id, 'with room again']);
  assert.equal(last.code, 0, last.err);

  const log = fs.readdirSync(path.join(data, 'sessions')).map((key) => path.join(data, 'sessions', key, id, 'agents', 'main', 'wire.jsonl'))[0]!;
  const original = fs.readFileSync(log);
  const readBefore = readWireLog(log);
  assert.equal(readBefore.report.badLines, 4, 'four lines cut short, each in the middle of the log');
  assert.equal(readBefore.report.tornTail, false);
  const conversation = replay(readBefore.records);
  const completed = (records: typeof readBefore.records) =>
    (records.filter((r) => r.t === 'turn_end') as TurnEndRecord[]).filter((r) => r.outcome === 'completed');
  assert.equal(completed(readBefore.records).length, 2);
  const shownBefore = (await braidIn(['--data-dir', data, 'show', id, '--json'])).out;

  const check = await doctor();
  assert.equal(check.code, 1);
  const warned = check.findings.find((f) => f.where.endsWith(`${id}/agents/main`) && /4 unreadable lines/.test(f.message));
  assert.ok(warned?.fixable, JSON.stringify(check.findings));

  const fix = await doctor('--fix');
  assert.equal(fix.code, 0, JSON.stringify(fix.findings));
  assert.match(fix.findings.find((f) => /unreadable line/.test(f.message))?.fixed ?? '', /moved 4 lines .* to agents\/main\/wire\.quarantine\.jsonl/);
  const again = await doctor();
  assert.deepEqual(again.findings, [], 'a second doctor finds nothing');
  assert.equal(again.code, 0);

  const readAfter = readWireLog(log);
  assert.deepEqual(readAfter.report.bad, []);
  assert.deepEqual(readAfter.records, readBefore.records, 'every record is still there, in order');
  assert.deepEqual(replay(readAfter.records), conversation, 'the replayed conversation is the same');
  assert.equal((await braidIn(['--data-dir', data, 'show', id, '--json'])).out, shownBefore);

  // The quarantine file holds the four lines, each with its place in the old log, and nothing is lost.
  const entries = quarantined(log);
  assert.equal(entries.length, 4);
  for (const e of entries) {
    assert.equal(e.logBytes, original.length);
    assert.ok(original.subarray(e.offset, e.offset + e.length).equals(Buffer.from(e.text ?? e.base64 ?? '', e.text !== undefined ? 'utf8' : 'base64')));
    assert.equal(original[e.offset + e.length], 10, 'each was a line in the middle');
  }
  assert.ok(withQuarantinedLines(log).equals(original), 'the log and its quarantine file together hold every byte the log had');

  // The session goes on after the repair, and the index agrees with the replaced log: turns 1 and
  // 3 completed, 2 interrupted, 4 after the repair.
  server.enqueue({ kind: 'text', chunks: ['After the repair.'] });
  const next = await exec(['--session', id, 'after the repair']);
  assert.equal(next.code, 0, next.err);
  assert.equal(completed(readWireLog(log).records).length, 3);
  const listed = JSON.parse((await braidIn(['--data-dir', data, '--workspace', workspace, 'list', '--json'])).out) as Array<{ turnCount: number }>;
  assert.deepEqual(
    listed.map((row) => row.turnCount),
    [4],
  );
  assert.deepEqual((await doctor()).findings, []);
});
