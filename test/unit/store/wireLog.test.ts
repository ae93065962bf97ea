import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { exportJsonl } from '../../../src/core/store/export';
import { readNewestPage } from '../../../src/core/wire/newestPage';
import { replay } from '../../../src/core/wire/replay';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { WireLogWriter } from '../../../src/core/wire/wireLog';
import { writeFileAtomic } from '../../../src/core/fs/atomic';
import { tempDir, userMessage } from '../../support/store';

const dir = tempDir();
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const logFile = () => path.join(dir, `log-${++n}`, 'wire.jsonl');

/** A record's line as the writer lays it out (`v`, the record, `ts`), so a scan can read its type from its head. */
function line(record: object): string {
  return `${JSON.stringify({ v: 1, ...record, ts: 1 })}\n`;
}
const msg = (turn: number, text: string, id = `m${turn}-${text}`) => line({ t: 'message', turn, id, message: userMessage(text) });

test('appends come back in order, stamped with v and ts', async () => {
  const file = logFile();
  const writer = WireLogWriter.open(file);
  await writer.append({ t: 'agent', agentId: 'main', parentAgentId: null, purpose: 'main' });
  await Promise.all([1, 2, 3].map((turn) => writer.append({ t: 'turn_begin', turn, promptId: `p${turn}`, model: null })));
  await writer.close();
  const { records, report } = readWireLog(file);
  assert.deepEqual(
    records.map((r) => r.t),
    ['agent', 'turn_begin', 'turn_begin', 'turn_begin'],
  );
  assert.deepEqual(
    records.slice(1).map((r) => (r as { turn: number }).turn),
    [1, 2, 3],
  );
  assert.ok(records.every((r) => r.v === 1 && typeof r.ts === 'number'));
  assert.equal(report.badLines, 0);
});

test('readWireLog reads the byte range and the record types it is asked for, in order', () => {
  const file = logFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const head = line({ t: 'turn_begin', turn: 1, promptId: 'p1', model: null }) + msg(1, 'a');
  const tail = line({ t: 'turn_end', turn: 1, outcome: 'completed' }) + msg(2, 'b') + line({ t: 'turn_end', turn: 2, outcome: 'completed' });
  fs.writeFileSync(file, head + tail);
  const start = Buffer.byteLength(head);
  assert.deepEqual(
    readWireLog(file).records.map((r) => r.t),
    ['turn_begin', 'message', 'turn_end', 'message', 'turn_end'],
  );
  assert.deepEqual(
    readWireLog(file, { start }).records.map((r) => r.t),
    ['turn_end', 'message', 'turn_end'],
  );
  assert.deepEqual(
    readWireLog(file, { end: start }).records.map((r) => r.t),
    ['turn_begin', 'message'],
  );
  const ends = readWireLog(file, { only: ['turn_end'] });
  assert.deepEqual(
    ends.records.map((r) => (r as { turn: number }).turn),
    [1, 2],
  );
  assert.equal(ends.report.records, 2, 'lines whose head names another type are skipped unparsed');
});

test('a torn last line is ignored, and the next append starts on a fresh line', async () => {
  const file = logFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, msg(1, 'kept') + '{"v":1,"t":"message","turn":2,"id":"x","mess');
  let read = readWireLog(file);
  assert.equal(read.report.tornTail, true);
  assert.equal(read.records.length, 1);
  const writer = WireLogWriter.open(file);
  await writer.append({ t: 'turn_end', turn: 1, outcome: 'completed' }, { durable: true });
  await writer.close();
  read = readWireLog(file);
  assert.deepEqual(
    read.records.map((r) => r.t),
    ['message', 'turn_end'],
  );
  assert.equal(read.report.badLines, 1, 'the torn bytes stay a bad line of their own');
  assert.equal(read.report.tornTail, false);
});

test('a last record missing only its newline is read, not dropped', () => {
  const file = logFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, msg(1, 'a') + msg(1, 'b').trimEnd());
  const read = readWireLog(file);
  assert.equal(read.records.length, 2);
  assert.equal(read.report.unterminated, true);
  assert.equal(read.report.tornTail, false);
});

test('blank lines, unknown types, newer versions and junk are tolerated; unknown records are kept on copy', () => {
  const file = logFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const future = `${JSON.stringify({ v: 7, t: 'message', ts: 1, turn: 1, id: 'f', message: userMessage('from the future'), extra: { nested: true } })}\n`;
  const unknown = `${JSON.stringify({ v: 1, t: 'hologram', ts: 1, payload: 42 })}\n`;
  fs.writeFileSync(file, `${msg(1, 'one')}\n   \n${unknown}not json at all\n[1,2]\n{"v":1,"t":"message"}\n${future}`);
  const read = readWireLog(file);
  assert.equal(read.report.blankLines, 2);
  assert.equal(read.report.unknownRecords, 1);
  assert.equal(read.report.newerRecords, 1);
  assert.equal(read.report.badLines, 3);
  assert.deepEqual(
    read.report.bad.map((b) => b.reason),
    ['not-json', 'not-a-record', 'missing-fields'],
  );
  assert.deepEqual(
    replay(read.records).messages.map((m) => m.id),
    ['m1-one', 'f'],
  );
  // The newest page counts the lines it skipped (blank lines and unknown types are not damage).
  assert.equal(readNewestPage(file).skippedLines, 3);
  assert.equal(readNewestPage(file, 1).skippedLines, 0, 'only lines read for the page count');
  const copy = exportJsonl(file).text;
  assert.ok(copy.includes('"hologram"'), 'unknown record kept on copy');
  assert.ok(!copy.includes('not json'), 'unreadable lines are not copied');
});

test('invalid UTF-8 is reported, and a line that still parses is read', () => {
  const file = logFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const good = Buffer.from(msg(1, 'caf\u00e9'));
  const bad = Buffer.from(msg(1, 'XX'));
  const at = bad.indexOf('XX');
  bad[at] = 0xff;
  bad[at + 1] = 0xfe;
  fs.writeFileSync(file, Buffer.concat([good, bad, Buffer.from([0x7b, 0xff, 0x0a])]));
  const read = readWireLog(file);
  assert.equal(read.records.length, 2);
  assert.equal(read.report.invalidUtf8Lines, 1);
  assert.equal(read.report.bad[0]?.reason, 'invalid-utf8');
});

test('a 10 MB line is read whole; the newest page reader crosses it', async () => {
  const file = logFile();
  const writer = WireLogWriter.open(file);
  await writer.append({ t: 'message', turn: 1, id: 'before', message: userMessage('before') });
  await writer.append({ t: 'message', turn: 1, id: 'huge', message: userMessage('x'.repeat(10 * 1024 * 1024)) });
  await writer.append({ t: 'message', turn: 1, id: 'after', message: userMessage('after') });
  await writer.close();
  const read = readWireLog(file);
  assert.deepEqual(
    read.records.map((r) => (r as { id: string }).id),
    ['before', 'huge', 'after'],
  );
  const page = readNewestPage(file, 2);
  assert.deepEqual(
    page.messages.map((m) => m.id),
    ['huge', 'after'],
  );
  const older = readNewestPage(file, 2, page.before);
  assert.deepEqual(
    older.messages.map((m) => m.id),
    ['before'],
  );
});

test('the newest page of a big log reads only its end', async () => {
  const file = logFile();
  const writer = WireLogWriter.open(file);
  const batch = [];
  for (let i = 0; i < 20_000; i++)
    batch.push({ t: 'message' as const, turn: 1 + Math.floor(i / 4), id: `m${i}`, message: userMessage(`message number ${i} ${'lorem ipsum '.repeat(10)}`) });
  await writer.append(batch);
  await writer.close();
  const size = fs.statSync(file).size;
  const page = readNewestPage(file, 80);
  assert.equal(page.messages.length, 80);
  assert.equal(page.messages.at(-1)?.id, 'm19999');
  assert.equal(page.messages[0]?.id, 'm19920');
  assert.ok(page.bytesRead < size / 10, `read ${page.bytesRead} of ${size} bytes`);
});

test('a page cursor past the end of the log (from a hostile page) reads the newest page, never bytes the file does not have', () => {
  const file = logFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, [msg(1, 'a'), msg(2, 'b'), msg(3, 'c')].join(''));
  const size = fs.statSync(file).size;
  const newest = readNewestPage(file, 2);
  for (const offset of [size, size + 1, size + 3 * 1024 * 1024 + 7, Number.MAX_SAFE_INTEGER]) {
    const started = Date.now();
    const page = readNewestPage(file, 2, { offset, minRewind: Number.POSITIVE_INFINITY });
    assert.deepEqual(
      page.messages.map((m) => m.id),
      newest.messages.map((m) => m.id),
      `offset ${offset}`,
    );
    assert.deepEqual(page.before, newest.before, `offset ${offset}`);
    assert.equal(page.skippedLines, 0, `offset ${offset}: no line of bytes past the end`);
    assert.ok(page.bytesRead <= size, `offset ${offset}: read ${page.bytesRead} of ${size} bytes`);
    assert.ok(Date.now() - started < 1_000, `offset ${offset}: took ${Date.now() - started} ms`);
  }
});

test('rewind drops the rewound turns from the effective history and the next turn reuses the number', () => {
  const file = logFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, [msg(1, 'a'), msg(2, 'b'), msg(3, 'c'), line({ t: 'rewind', toTurn: 2, messageId: 'm2-b', files: false }), msg(2, 'b2')].join(''));
  const history = replay(readWireLog(file).records);
  assert.deepEqual(
    history.messages.map((m) => m.id),
    ['m1-a', 'm2-b2'],
  );
  assert.equal(history.nextTurn, 3);
  assert.deepEqual(
    readNewestPage(file).messages.map((m) => m.id),
    ['m1-a', 'm2-b2'],
  );
  assert.ok(fs.readFileSync(file, 'utf8').includes('m3-c'), 'rewound records stay in the file');
});

test('a message whose role or content was damaged is a bad line, not a message readers cannot render', () => {
  const file = logFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const damaged = [
    { v: 1, t: 'message', ts: 1, turn: 1, id: 'r', message: { role: '\ufffdser', content: 'hi' } },
    { v: 1, t: 'message', ts: 1, turn: 1, id: 'a', message: { role: 'assistant', content: 'not blocks' } },
    { v: 1, t: 'message', ts: 1, turn: 1, id: 'u', message: { role: 'user', content: 42 } },
    { v: 1, t: 'message', ts: 1, turn: 1, id: 'b', message: { role: 'assistant', content: [{ type: 'text', tÿxt: 'a damaged key' }] } },
    { v: 1, t: 'message', ts: 1, turn: 1, id: 'c', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'x', name: 'read_file' }] } },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n');
  const future = JSON.stringify({
    v: 1,
    t: 'message',
    ts: 1,
    turn: 1,
    id: 'f',
    message: {
      role: 'assistant',
      content: [
        { type: 'hologram', shape: 'torus' },
        { type: 'text', text: 'known' },
      ],
    },
  });
  fs.writeFileSync(file, `${msg(1, 'one')}\n${damaged}\n${future}\n`);
  const read = readWireLog(file);
  assert.equal(read.report.badLines, 5);
  assert.deepEqual(
    replay(read.records).messages.map((m) => m.id),
    ['m1-one', 'f'],
    'a block of a type Braid does not know is left to readers',
  );
});

test('a write to a full disk names the file it was for', { skip: !fs.existsSync('/dev/full') }, async () => {
  // /dev/full accepts opens and fails every write with ENOSPC, as a full disk does.
  const log = path.join(dir, 'full', 'wire.jsonl');
  fs.mkdirSync(path.dirname(log));
  fs.symlinkSync('/dev/full', log);
  const writer = WireLogWriter.open(log);
  await assert.rejects(writer.append({ t: 'message', turn: 1, id: 'm1', message: userMessage('hi') }, { durable: true }), {
    message: `cannot write ${log}: no space left on device (ENOSPC)`,
    code: 'ENOSPC',
  });
  const state = path.join(dir, 'gone', 'state.json');
  assert.throws(() => writeFileAtomic(state, '{}'), { message: `cannot write ${state}: no such file or directory (ENOENT)`, code: 'ENOENT' });
});
