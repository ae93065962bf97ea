import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, test } from 'node:test';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { WireLogWriter } from '../../../src/core/wire/wireLog';
import { LOG_WRITE_ATTEMPTS } from '../../../src/core/wire/writeRetry';
import { tempDir } from '../../support/store';

// A log write that fails for a moment (EAGAIN, EINTR, EBUSY) is tried again from where it stopped;
// one that keeps failing past the bound fails the append. BRAID_FAULT_LOG_ERRORS makes the errors
// (src/core/fs/faults.ts): each log write in turn throws the next code of its list, then they work.
const dir = tempDir();
after(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => delete process.env.BRAID_FAULT_LOG_ERRORS);
let n = 0;
const logFile = () => path.join(dir, `log-${++n}`, 'wire.jsonl');

const begin = (turn: number) => ({ t: 'turn_begin' as const, turn, promptId: `p${turn}`, model: null });

test('errors that pass are retried: every line is whole, once, in order, after short writes cut between them', async () => {
  const file = logFile();
  const writer = WireLogWriter.open(file);
  // The first append is cut short, then fails three times (it goes on from the byte the short
  // write reached), the fourth attempt works; the others meet fewer errors, short writes between.
  process.env.BRAID_FAULT_LOG_ERRORS = 'short,EAGAIN,EINTR,EBUSY,ok,short,EBUSY,ok,EAGAIN,short,EINTR,ok,EINTR';
  await Promise.all([1, 2, 3, 4].map((turn) => writer.append(begin(turn), { durable: true })));
  await writer.close();
  const { records, report } = readWireLog(file);
  assert.equal(report.badLines, 0);
  assert.equal(report.tornTail, false);
  assert.deepEqual(
    records.map((r) => (r as { turn: number }).turn),
    [1, 2, 3, 4],
  );
  const text = fs.readFileSync(file, 'utf8');
  assert.equal(text.split('\n').filter(Boolean).length, 4, 'four lines, none doubled or cut');
  assert.equal(writer.bytes, Buffer.byteLength(text));
});

test('an error that lasts past the bound fails the append, and the writer refuses what follows', async () => {
  const file = logFile();
  const writer = WireLogWriter.open(file);
  await writer.append(begin(1));
  process.env.BRAID_FAULT_LOG_ERRORS = Array(LOG_WRITE_ATTEMPTS).fill('EAGAIN').join(',');
  const started = Date.now();
  await assert.rejects(writer.append(begin(2)), (err: NodeJS.ErrnoException) => err.code === 'EAGAIN' && err.message.includes(file));
  assert.ok(Date.now() - started >= 100, 'it waited between attempts (10 + 20 + 40 + 80 ms)');
  assert.equal(writer.failed, true);
  delete process.env.BRAID_FAULT_LOG_ERRORS;
  await assert.rejects(writer.append(begin(3)), /EAGAIN/, 'refused after a lasting failure, though the disk works again');
  await writer.close();
  assert.deepEqual(
    readWireLog(file).records.map((r) => (r as { turn: number }).turn),
    [1],
  );
});

test('a lasting error is not retried', async () => {
  const file = logFile();
  const writer = WireLogWriter.open(file);
  process.env.BRAID_FAULT_LOG_ERRORS = 'ENOSPC';
  await assert.rejects(writer.append(begin(1)), /ENOSPC/);
  await writer.close();
  assert.equal(fs.readFileSync(file, 'utf8'), '');
});
