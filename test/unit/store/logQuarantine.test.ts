import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { runDoctor } from '../../../src/core/store/doctor';
import { ChangeLedger } from '../../../src/core/store/changes';
import { LogFollower } from '../../../src/core/store/logFollower';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { LeaseLostError } from '../../../src/core/store/writerLease';
import { quarantineFileOf, quarantineUnreadable } from '../../../src/core/wire/logQuarantine';
import { WireLogWriter } from '../../../src/core/wire/wireLog';
import { readWireLog } from '../../../src/core/wire/wireReader';
import type { WireRecord } from '../../../src/core/wire/records';
import { entryBytes, quarantined, withQuarantinedLines } from '../../support/quarantine';
import { addTurn, openStore, tempRoots } from '../../support/store';

const roots = tempRoots();
after(roots.cleanup);

/** Lines no reader can read, one of each kind, and lines readers do read (kept). */
const DAMAGE = {
  notJson: '{"v":1,"t":"message","turn":1,"id":"cut sh',
  notARecord: '[1,2,3]',
  missingFields: '{"v":1,"t":"turn_end"}',
  invalidUtf8: Buffer.concat([Buffer.from('{"v":1,"t":"mess'), Buffer.from([0xff, 0xfe]), Buffer.from('age"')]),
  blank: '   ',
  unknownType: '{"v":1,"t":"hologram","shape":"torus","ts":1}',
};

/** A session with two turns, then each kind of damage in its main log between the turns, a subagent log with a cut line, and a third turn. */
async function damagedSession(store: SessionStore): Promise<{ id: string; main: string; sub: string }> {
  const session = await store.create({ workspaceDir: '/quarantine' });
  const dir = store.locate(session.id);
  const main = store.layout.agentLog(dir);
  let writer = await store.openWriter(session.id);
  await addTurn(writer, 'first', 'one');
  const sub = writer.openAgentLog('agent_sub', 'helper');
  await sub.append({ t: 'agent', agentId: 'agent_sub', parentAgentId: 'main', purpose: 'task' });
  await sub.close();
  await writer.close();
  const lines = Object.values(DAMAGE).map((d) => (typeof d === 'string' ? Buffer.from(d) : d));
  fs.appendFileSync(main, Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
  fs.appendFileSync(store.layout.agentLog(dir, 'agent_sub'), '{"v":1,"t":"message","tu\n');
  writer = await store.openWriter(session.id);
  await addTurn(writer, 'second', 'two');
  await writer.close();
  return { id: session.id, main, sub: store.layout.agentLog(dir, 'agent_sub') };
}

test('doctor --fix moves exactly the unreadable lines of a main and a subagent log to their quarantine files; nothing is lost', async () => {
  const root = roots.root();
  const store = await openStore(root);
  const { id, main, sub } = await damagedSession(store);
  const before = { main: fs.readFileSync(main), sub: fs.readFileSync(sub) };
  const read = readWireLog(main);
  assert.equal(read.report.badLines, 4);
  const history = store.history(id);

  const check = await runDoctor(store, { fix: false });
  const unreadable = check.findings.filter((f) => /unreadable line/.test(f.message));
  assert.deepEqual(unreadable.map((f) => [f.where.split('/').at(-1), f.fixable, f.fixed]).sort(), [
    ['agent_sub', true, undefined],
    ['main', true, undefined],
  ]);
  assert.deepEqual(fs.readFileSync(main), before.main, 'without --fix nothing changes');

  const fix = await runDoctor(store, { fix: true });
  assert.deepEqual(
    fix.findings.filter((f) => (f.fixable || f.severity === 'error') && !f.fixed),
    [],
  );
  const again = await runDoctor(store, { fix: false });
  assert.deepEqual(
    again.findings.map((f) => f.message),
    ['1 record of unknown types skipped (kept on copy)'],
    'only the unknown record is left: it reads',
  );

  const after = readWireLog(main);
  assert.equal(after.report.badLines, 0);
  assert.equal(after.report.blankLines, 1, 'a blank line reads (it is passed over): it stays');
  assert.deepEqual(after.records, read.records);
  assert.deepEqual(store.history(id), history);
  assert.deepEqual(
    quarantined(main).map((e) => [e.line, e.reason, e.newline, e.text !== undefined]),
    [
      [7, 'not-json', true, true],
      [8, 'not-a-record', true, true],
      [9, 'missing-fields', true, true],
      [10, 'invalid-utf8', true, false],
    ],
  );
  assert.deepEqual(entryBytes(quarantined(main)[3]!), DAMAGE.invalidUtf8, 'bytes that are not UTF-8 are kept exactly, in base64');
  assert.ok(withQuarantinedLines(main).equals(before.main));
  assert.ok(withQuarantinedLines(sub).equals(before.sub));
  assert.equal(fs.readFileSync(sub, 'utf8').split('\n').filter(Boolean).length, 1);
  // The index row follows the replaced log (its size is how drift is found).
  assert.equal(store.index.summaryOf(id)?.logBytes, fs.statSync(main).size);
  assert.ok(store.currentRow(store.locate(id)));
  await store.close();
});

test('a torn last line: left alone while the session has a live writer, quarantined once its writer is gone', async () => {
  const root = roots.root();
  const store = await openStore(root);
  const session = await store.create({ workspaceDir: '/torn' });
  const writer = await store.openWriter(session.id);
  await addTurn(writer, 'first', 'one');
  const log = store.layout.agentLog(store.locate(session.id));
  fs.appendFileSync(log, 'not a record\n{"v":1,"t":"message","turn":2,"id":"m');
  const bytes = fs.readFileSync(log);

  // The writer holds the lease: the torn line may be its write in progress.
  const busy = await runDoctor(store, { fix: true });
  const torn = busy.findings.find((f) => /torn/.test(f.message))!;
  assert.equal(torn.fixed, undefined);
  assert.match(torn.message, new RegExp(`process ${process.pid} .* is writing the session .* left alone`));
  assert.deepEqual(fs.readFileSync(log), bytes, 'the log is not touched');
  assert.equal(fs.existsSync(quarantineFileOf(log)), false);

  await writer.close();
  const fixed = await runDoctor(store, { fix: true });
  assert.ok(fixed.findings.filter((f) => /torn|unreadable/.test(f.message)).every((f) => f.fixed));
  assert.deepEqual(
    quarantined(log).map((e) => [e.reason, e.newline, e.text]),
    [
      ['not-json', true, 'not a record'],
      ['torn', false, '{"v":1,"t":"message","turn":2,"id":"m'],
    ],
  );
  assert.ok(fs.readFileSync(log).equals(bytes.subarray(0, bytes.indexOf('not a record'))));
  assert.deepEqual((await runDoctor(store, { fix: false })).findings, []);
  // The next writer appends after a whole line.
  const next = await store.openWriter(session.id);
  await addTurn(next, 'second', 'two');
  await next.close();
  assert.equal(readWireLog(log).report.badLines, 0);
  await store.close();
});

test('a line too long to hold is quarantined a piece at a time, in base64', () => {
  const dir = roots.root();
  const log = path.join(dir, 'wire.jsonl');
  const record = '{"v":1,"t":"turn_end","turn":1,"outcome":"completed","ts":1}';
  const long = `{"v":1,"t":"message","text":"${'é'.repeat(200)}"}`; // 400+ bytes, over the 64 held below
  fs.writeFileSync(log, `${record}\n${long}\n${record}\n${long}`);
  const original = fs.readFileSync(log);
  const result = quarantineUnreadable(log, { fence: () => undefined, sizes: { chunkBytes: 16, maxLineBytes: 64 } });
  assert.deepEqual(result && [result.lines, result.bytes], [2, 2 * Buffer.byteLength(long) + 1]);
  assert.equal(fs.readFileSync(log, 'utf8'), `${record}\n${record}\n`);
  assert.deepEqual(
    quarantined(log).map((e) => [e.line, e.reason, e.newline, e.base64 !== undefined]),
    [
      [2, 'too-long', true, true],
      [4, 'too-long', false, true],
    ],
  );
  assert.ok(withQuarantinedLines(log).equals(original));
});

test('a repair stopped before the rename leaves the old log whole; the next one finishes it', async () => {
  const root = roots.root();
  const store = await openStore(root);
  const { main } = await damagedSession(store);
  await store.close();
  const bytes = fs.readFileSync(main);
  let checks = 0;
  // The lease is lost right before the rename (its second check): the lines are in the quarantine file already.
  const fence = () => {
    if (++checks === 2) throw new LeaseLostError();
  };
  assert.throws(() => quarantineUnreadable(main, { fence }), LeaseLostError);
  assert.deepEqual(fs.readFileSync(main), bytes, 'the log is the old one, whole');
  assert.deepEqual(
    fs.readdirSync(path.dirname(main)).filter((n) => n.includes('.tmp-')),
    [],
    'no temp file is left',
  );
  assert.equal(quarantined(main).length, 4);
  const result = quarantineUnreadable(main, { fence: () => undefined, now: Date.now() + 1 });
  assert.equal(result?.lines, 4);
  assert.equal(quarantined(main).length, 8, 'the cut-short repair named them once already: they are named again, with the later time');
  assert.equal(readWireLog(main).report.badLines, 0);
});

test('a follower and the Changes ledger notice the replaced log and read it again from its start', async () => {
  const root = roots.root();
  const store = await openStore(root);
  const { id, main } = await damagedSession(store);
  const batches: Array<{ records: WireRecord[]; fromStart: boolean }> = [];
  const follower = new LogFollower(main, (records, fromStart) => batches.push({ records, fromStart }));
  const ledger = new ChangeLedger(main);
  const version = ledger.read().version;
  await runDoctor(store, { fix: true });
  // The session goes on: more bytes than the doctor took out, so the old offsets land inside the new file.
  const writer = await store.openWriter(id);
  await addTurn(writer, 'third, a prompt long enough to pass the old end of the log', 'three');
  await writer.close();
  const expected = readWireLog(main).records;
  follower.check();
  assert.deepEqual(
    batches.map((b) => b.fromStart),
    [true],
  );
  assert.deepEqual(batches[0]!.records, expected, 'every record of the new file, none misread');
  assert.ok(ledger.read().version > version);
  follower.check();
  assert.equal(batches.length, 1, 'nothing new: nothing handed over again');
  await store.close();
});

test('the repaired log is a new file: a writer that opened the old one before the repair writes nothing into it', async () => {
  // A writer whose lease was taken over holds the old file open: what it might still write lands there, not in the log.
  const dir = roots.root();
  const log = path.join(dir, 'wire.jsonl');
  fs.writeFileSync(log, '{"v":1,"t":"turn_end","turn":1,"outcome":"completed","ts":1}\nnot a record\n');
  const stale = WireLogWriter.open(log);
  quarantineUnreadable(log, { fence: () => undefined });
  await stale.append({ t: 'turn_end', turn: 2, outcome: 'completed' });
  await stale.close();
  assert.equal(readWireLog(log).records.length, 1);
});
