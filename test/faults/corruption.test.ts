import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runDoctor, type DoctorReport } from '../../src/core/store/doctor';
import { readWireLog, scanWireLog } from '../../src/core/wire/wireReader';
import {
  APP_DIR,
  OTHER_DIR,
  braid,
  buildFixture,
  indexFileOf,
  foldersOf,
  linesOf,
  seededRandom,
  snapshotFiles,
  type Fixture,
  type ShownMessage,
} from '../support/corruptStore';
import { trials } from '../support/faults';
import { withQuarantinedLines } from '../support/quarantine';
import { addTurn, openStore, recordingLogger, tempDir } from '../support/store';
import { readSessionFolder } from '../../src/core/format/summary';

// Damage to every file of a store, one fault per trial on a copy of a fixture store (turns, a
// fork, a compaction, a subagent, two workspaces). Each trial checks: a clear message (what, where,
// what to do) on stderr or the store's logger; no crash (list, show, export, writing a turn to an
// intact session); every whole record still read; then `doctor --fix` (CLI or runDoctor) leaves no
// error or fixable finding, the index agreeing with disk, state.json rebuilt, and no byte of a log
// or a damaged file lost (kept aside, never deleted; a log's unreadable lines in its quarantine file).
const SEED = Number(process.env.BRAID_CORRUPTION_SEED ?? Date.now() % 2 ** 31);
console.log(`corruption seed ${SEED} (replay with BRAID_CORRUPTION_SEED=${SEED})`);

const base = tempDir('braid-corrupt-');
let fixture: Fixture;
let trialNo = 0;
before(async () => {
  fixture = await buildFixture(path.join(base, 'fixture'));
});
after(() => fs.rmSync(base, { recursive: true, force: true }));

/** What a fault did, for the checks. */
interface Damage {
  readonly label: string;
  readonly kind: 'index' | 'state' | 'log' | 'folder';
  readonly session?: string;
  readonly file?: string;
  /** The damaged file as the fault left it: none of these bytes may be lost. */
  readonly damaged?: Buffer;
  /** Log lines the damage did not touch: each must still be read. */
  readonly untouched?: string[];
  /** Message ids that must be read besides the untouched ones' (records the fault added). */
  readonly added?: string[];
}

type Rng = ReturnType<typeof seededRandom>;

function ids(): string[] {
  return Object.values(fixture.ids);
}

function sessionDir(root: string, id: string): string {
  return foldersOf(root).get(id)!;
}

/** A log of the fixture: a main log, or the subagent's. */
function pickLog(rng: Rng, root: string): { session: string; file: string } {
  const session = rng.pick(ids());
  const sub = session === fixture.ids.a && rng.next() < 0.4;
  return { session, file: path.join(sessionDir(root, session), 'agents', sub ? fixture.subagent : 'main', 'wire.jsonl') };
}

/** Whole lines of `before` whose bytes, and the newline before them, lie outside [from, to). */
function untouchedLines(before: Buffer, from: number, to: number): string[] {
  return linesOf(before)
    .filter((l) => before[l.end - 1] === 10 && (l.end <= from || l.start - 1 >= to))
    .map((l) => l.text)
    .filter((t) => t.trim());
}

/** The raw text of every record a reader reads from a log. */
function rawRecords(file: string): Set<string> {
  const raw = new Set<string>();
  scanWireLog(file, (_r, _o, _l, text) => raw.add(text));
  return raw;
}

/** Overwrites `n` bytes at `offset` (the file keeps its length unless the bytes run past the end). */
function overwrite(file: string, offset: number, bytes: Buffer, keepMtime: boolean): { before: Buffer; damaged: Buffer } {
  const before = fs.readFileSync(file);
  const stat = fs.statSync(file);
  const damaged = Buffer.from(before);
  bytes.copy(damaged, offset, 0, Math.max(0, Math.min(bytes.length, damaged.length - offset)));
  fs.writeFileSync(file, damaged);
  if (keepMtime) fs.utimesSync(file, stat.atime, stat.mtime); // bit rot does not touch mtimes
  return { before, damaged };
}

const faults: Record<string, { count: number; apply: (rng: Rng, root: string) => Promise<Damage> | Damage }> = {
  'random bytes in index.sqlite': {
    count: trials('BRAID_CORRUPT_INDEX', 6, 300),
    apply(rng, root) {
      const file = indexFileOf(root, rng.pick([APP_DIR, OTHER_DIR]));
      const size = fs.statSync(file).size;
      const offset = rng.next() < 0.3 ? rng.int(100) : rng.int(size);
      const { damaged } = overwrite(file, offset, rng.bytes(1 + rng.int(24)), rng.next() < 0.5);
      return { label: `${path.relative(root, file)} at ${offset}`, kind: 'index', file, damaged };
    },
  },
  'random bytes in state.json': {
    count: trials('BRAID_CORRUPT_STATE', 6, 300),
    apply(rng, root) {
      const session = rng.pick(ids());
      const file = path.join(sessionDir(root, session), 'state.json');
      const offset = rng.int(fs.statSync(file).size);
      const { damaged } = overwrite(file, offset, rng.bytes(1 + rng.int(8)), rng.next() < 0.5);
      return { label: `state.json of ${session} at ${offset}`, kind: 'state', session, file, damaged };
    },
  },
  'random bytes in the middle of a wire log': {
    count: trials('BRAID_CORRUPT_LOG', 8, 400),
    apply(rng, root) {
      const { session, file } = pickLog(rng, root);
      const size = fs.statSync(file).size;
      const offset = Math.floor(size * 0.1) + rng.int(Math.floor(size * 0.8));
      const bytes = rng.bytes(1 + rng.int(48));
      const { before, damaged } = overwrite(file, offset, bytes, rng.next() < 0.5);
      return {
        label: `${path.relative(root, file)} at ${offset}+${bytes.length}`,
        kind: 'log',
        session,
        file,
        damaged,
        untouched: untouchedLines(before, offset, offset + bytes.length),
      };
    },
  },
  'a file cut short': {
    count: trials('BRAID_CORRUPT_TRUNCATE', 8, 400),
    apply(rng, root) {
      const which = rng.pick(['index', 'state', 'log'] as const);
      const picked = which === 'log' ? pickLog(rng, root) : { session: rng.pick(ids()), file: '' };
      const file =
        which === 'index'
          ? indexFileOf(root, rng.pick([APP_DIR, OTHER_DIR]))
          : which === 'state'
            ? path.join(sessionDir(root, picked.session), 'state.json')
            : picked.file;
      const before = fs.readFileSync(file);
      const length = rng.next() < 0.25 ? 0 : rng.int(before.length);
      fs.truncateSync(file, length);
      const damaged = fs.readFileSync(file);
      const label = `${path.relative(root, file)} cut to ${length} of ${before.length} bytes`;
      if (which === 'index') return { label, kind: 'index', file, damaged };
      if (which === 'state') return { label, kind: 'state', session: picked.session, file, damaged };
      return { label, kind: 'log', session: picked.session, file, damaged, untouched: untouchedLines(before, length, before.length) };
    },
  },
  'invalid UTF-8 and a 10 MB line in a wire log': {
    count: trials('BRAID_CORRUPT_HUGE', 2, 24),
    apply(rng, root) {
      const session = rng.pick(ids());
      const file = path.join(sessionDir(root, session), 'agents', 'main', 'wire.jsonl');
      const before = fs.readFileSync(file);
      const lines = linesOf(before);
      const at = lines[1 + rng.int(lines.length - 1)]!.start; // after the agent line, at a line boundary
      const badText = Buffer.concat([
        Buffer.from('{"v":1,"t":"message","turn":1,"id":"msg_bad_utf8","message":{"role":"user","content":"bad '),
        Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
        Buffer.from(' bytes","timestamp":1}}\n'),
      ]);
      const junk = Buffer.concat([Buffer.from([0xff, 0xfe, 0x80, 0x7b]), Buffer.from('not a record\n')]);
      const hugeLength = 10 * 1024 * 1024;
      const huge =
        rng.next() < 0.5
          ? Buffer.from(`{"v":1,"t":"x_attachment","data":"${'x'.repeat(hugeLength)}"}\n`)
          : Buffer.from(`{"v":1,"t":"message","turn":1,"id":"msg_huge_cut","message":{"role":"user","content":"${'y'.repeat(hugeLength)}\n`);
      fs.writeFileSync(file, Buffer.concat([before.subarray(0, at), badText, junk, huge, before.subarray(at)]));
      return {
        label: `${path.relative(root, file)}: bad UTF-8, junk and a 10 MB line at ${at}`,
        kind: 'log',
        session,
        file,
        damaged: fs.readFileSync(file),
        untouched: lines.map((l) => l.text).filter((t) => t.trim()),
        added: ['msg_bad_utf8'],
      };
    },
  },
  'records from a newer Braid': {
    count: trials('BRAID_CORRUPT_FUTURE', 3, 100),
    apply(rng, root) {
      const { session, file } = pickLog(rng, root);
      const before = fs.readFileSync(file);
      const lines = linesOf(before);
      const at = lines[1 + rng.int(lines.length - 1)]?.start ?? before.length;
      const future = [
        {
          v: 2,
          t: 'message',
          turn: 1,
          id: 'msg_from_v2',
          message: { role: 'user', content: 'written by a newer Braid', timestamp: 1, mood: 'new' },
          ts: 1,
          provenance: { by: 'v2' },
        },
        { v: 1, t: 'hologram', ts: 1, frames: [1, 2, 3] },
        { v: 9, t: 'turn_weather', ts: 1 },
      ]
        .map((r) => `${JSON.stringify(r)}\n`)
        .join('');
      fs.writeFileSync(file, Buffer.concat([before.subarray(0, at), Buffer.from(future), before.subarray(at)]));
      const main = file.includes(`${path.sep}main${path.sep}`);
      return {
        label: `${path.relative(root, file)}: newer records at ${at}`,
        kind: 'log',
        session,
        file,
        damaged: fs.readFileSync(file),
        untouched: [...lines.map((l) => l.text), ...future.trim().split('\n')],
        added: main ? ['msg_from_v2'] : [],
      };
    },
  },
  'a session folder removed while a writer has it open': {
    count: trials('BRAID_CORRUPT_REMOVED', 3, 100),
    async apply(rng, root) {
      const session = rng.pick(ids());
      const logger = recordingLogger();
      const store = await openStore(root, { logger });
      const writer = await store.openWriter(session);
      const midTurn = rng.next() < 0.5;
      if (midTurn) await writer.beginTurn('p-removed', null);
      fs.rmSync(sessionDir(root, session), { recursive: true, force: true });
      const gone = new RegExp(`folder of session ${session} was removed while it was open.*(restore|start a new)`);
      if (midTurn) await assert.rejects(writer.endTurn('completed'), gone);
      await assert.rejects(writer.beginTurn('p-after', null), gone);
      assert.equal(store.index.get(session), undefined, 'the lists drop a session whose folder is gone');
      await writer.close();
      assert.throws(() => store.get(session), new RegExp(`session ${session} does not exist`));
      await store.close();
      return { label: `${session} removed${midTurn ? ' mid-turn' : ''}`, kind: 'folder', session };
    },
  },
};

/** The CLI's answers across a trial, with everything it said on stderr. */
class Transcript {
  stderr = '';
  constructor(
    private readonly root: string,
    private readonly label: string,
  ) {}
  async run(args: string[], expectCode = 0): Promise<string> {
    const r = await braid(this.root, args);
    this.stderr += r.err;
    assert.equal(r.code, expectCode, `${this.label}: braid ${args.join(' ')} exited ${r.code}: ${r.err}`);
    return r.out;
  }
  async shown(id: string): Promise<ShownMessage[]> {
    return (JSON.parse(await this.run(['show', id, '--json'])) as { messages: ShownMessage[] }).messages;
  }
  async doctor(): Promise<DoctorReport> {
    const r = await braid(this.root, ['doctor', '--json']);
    return JSON.parse(r.out) as DoctorReport;
  }
}

const openFindings = (report: DoctorReport) => report.findings.filter((f) => (f.severity === 'error' || f.fixable) && !f.fixed);

async function runTrial(kind: string, n: number): Promise<void> {
  const seed = SEED + ++trialNo * 7919;
  const rng = seededRandom(seed);
  const root = path.join(base, `t${trialNo}`);
  fs.cpSync(fixture.root, root, { recursive: true, preserveTimestamps: true });
  const damage = await faults[kind]!.apply(rng, root);
  const label = `${kind} #${n} (seed ${seed}): ${damage.label}`;
  const cli = new Transcript(root, label);
  const gone = damage.kind === 'folder' ? damage.session : undefined;

  // No crash: list, show, export of every session; the index lists exactly the folders.
  const listed = (JSON.parse(await cli.run(['list', '--all', '--json'])) as Array<{ id: string }>).map((r) => r.id).sort();
  assert.deepEqual(listed, [...foldersOf(root).keys()].sort(), `${label}: list --all shows the folders on disk`);
  if (gone) {
    assert.ok(!listed.includes(gone), label);
    const r = await braid(root, ['show', gone]);
    assert.equal(r.code, 1, label);
    assert.match(r.err, new RegExp(`^braid: session ${gone} does not exist .*trash`), label);
  }
  for (const id of listed) {
    const shown = await cli.shown(id);
    await cli.run(['export', id, '--format', 'md']);
    const jsonl = await cli.run(['export', id, '--format', 'jsonl']);
    const mainLogDamaged = damage.kind === 'log' && id === damage.session && damage.file!.includes(`${path.sep}main${path.sep}`);
    if (!mainLogDamaged) {
      assert.deepEqual(shown, fixture.messages.get(id), `${label}: the intact conversation of ${id} reads as written`);
      continue;
    }
    // Every record the damage did not touch is read; records a fault added are read too.
    const exported = new Set(jsonl.split('\n'));
    for (const line of damage.untouched!) assert.ok(exported.has(line), `${label}: an untouched record is missing from export: ${line.slice(0, 120)}`);
    const shownIds = new Set(shown.map((m) => m.id));
    const wanted = fixture.messages.get(id)!.filter((m) => damage.untouched!.some((l) => l.includes(`"id":"${m.id}"`)));
    for (const m of wanted) assert.ok(shownIds.has(m.id), `${label}: message ${m.id} (turn ${m.turn}) lost`);
    for (const added of damage.added ?? []) assert.ok(shownIds.has(added), `${label}: ${added} not read`);
  }
  if (damage.kind === 'log' && !damage.file!.includes(`${path.sep}main${path.sep}`)) {
    const kept = rawRecords(damage.file!);
    for (const line of damage.untouched!) assert.ok(kept.has(line), `${label}: a subagent record is lost: ${line.slice(0, 120)}`);
  }

  // A clear message: what is wrong, where, and what happens or what to do.
  const before = await cli.doctor();
  cli.stderr += before.findings.map((f) => `doctor: ${f.severity} ${f.where}: ${f.message}\n`).join('');
  checkMessages(damage, cli.stderr, before, label);

  // The store keeps working: a turn appended to an intact session.
  const intact = listed.find((id) => id !== damage.session)!;
  await appendTurn(root, intact, `after damage ${trialNo}`, label);

  // doctor --fix, by the CLI or by the core.
  if (n % 2 === 0) {
    const r = await braid(root, ['doctor', '--fix']);
    assert.equal(r.code, 0, `${label}: doctor --fix left something: ${r.out}${r.err}`);
  } else {
    const store = await openStore(root, { logger: recordingLogger() });
    const report = await runDoctor(store, { fix: true });
    await store.close();
    assert.deepEqual(openFindings(report), [], `${label}: runDoctor --fix left something`);
  }
  await checkRepaired(root, damage, label, cli);
  if (damage.session && damage.kind !== 'folder') await appendTurn(root, damage.session, `after repair ${trialNo}`, label);
}

function checkMessages(damage: Damage, stderr: string, doctor: DoctorReport, label: string): void {
  const said = (re: RegExp) => re.test(stderr);
  if (damage.kind === 'index') {
    // Found at load (the index is rebuilt at once, the damaged file kept aside), or only by the
    // doctor's deeper check (it says it can rebuild it, and --fix does).
    if (said(/warning: \S+\/index\.sqlite is (corrupt|empty)/)) {
      assert.ok(
        said(/warning: \S+\/index\.sqlite is (corrupt|empty).*rebuilding it from the session folders/),
        `${label}: says what it does about the index: ${stderr}`,
      );
      if (damage.damaged!.length > 0) assert.deepEqual(fs.readFileSync(`${damage.file}.corrupt`), damage.damaged, `${label}: the damaged index is kept aside`);
    } else if (said(/index\.sqlite is corrupt/)) {
      assert.ok(
        said(/index\.sqlite is corrupt \(.+\); it can be rebuilt from the session folders/),
        `${label}: the doctor says what is wrong with the index: ${stderr}`,
      );
    }
    return; // undetected damage is held to the index agreeing with disk after the doctor (checkRepaired)
  }
  if (damage.kind === 'state') {
    let plausible: boolean;
    try {
      const parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(damage.damaged!)) as { id?: unknown; workspaceKey?: unknown };
      plausible = parsed.id === damage.session && typeof parsed.workspaceKey === 'string' && /^wd_[a-z0-9-]*_[0-9a-f]{12}$/.test(parsed.workspaceKey);
    } catch {
      plausible = false;
    }
    // Damage that leaves a valid state of this session reads like a hand edit; any other is reported.
    if (!plausible)
      assert.ok(said(new RegExp(`${damage.session}.*state\\.json (is|has|names|lacks).*rebuilt`)), `${label}: no clear message about state.json: ${stderr}`);
    return;
  }
  if (damage.kind === 'log') {
    const { report } = readWireLog(damage.file!);
    const agentDir = path.basename(path.dirname(damage.file!));
    const where = `${damage.session}/agents/${agentDir}`;
    if (report.badLines > 0 || report.invalidUtf8Lines > 0) {
      assert.ok(
        doctor.findings.some((f) => f.where.endsWith(where) && /unreadable line|invalid UTF-8/.test(f.message)),
        `${label}: doctor names the damaged log`,
      );
      if (agentDir === 'main')
        assert.ok(
          said(new RegExp(`session ${damage.session}: .*(unreadable line|invalid UTF-8).*braid doctor`)),
          `${label}: reading the session says lines were skipped: ${stderr}`,
        );
    }
    if (report.tornTail)
      assert.ok(
        doctor.findings.some((f) => f.where.endsWith(where) && /torn/.test(f.message) && f.fixable),
        `${label}: doctor names the torn tail`,
      );
    if (report.newerRecords > 0)
      assert.ok(
        doctor.findings.some((f) => f.where.endsWith(where) && /newer Braid/.test(f.message) && f.severity === 'info'),
        label,
      );
  }
}

async function appendTurn(root: string, id: string, prompt: string, label: string): Promise<void> {
  const store = await openStore(root);
  const writer = await store.openWriter(id);
  // A cut log can end inside a turn: a session opening it ends that turn first (as Session does).
  if (writer.openTurn !== null) await writer.endTurn('interrupted', 'the log was cut short');
  await addTurn(writer, prompt, 'ok');
  await writer.close();
  await store.close();
  const shown = (JSON.parse((await braid(root, ['show', id, '--json'])).out) as { messages: ShownMessage[] }).messages;
  assert.ok(
    shown.some((m) => m.text === prompt),
    `${label}: a turn appended to ${id} reads back`,
  );
}

async function checkRepaired(root: string, damage: Damage, label: string, cli: Transcript): Promise<void> {
  const after = await cli.doctor();
  assert.deepEqual(openFindings(after), [], `${label}: doctor still finds: ${JSON.stringify(after.findings)}`);
  assert.equal(after.findings.filter((f) => f.severity === 'error').length, 0, label);
  const folders = foldersOf(root);
  const rows = JSON.parse(await cli.run(['list', '--all', '--json'])) as Array<{
    id: string;
    title: string;
    status: string;
    workspaceKey: string;
    archived: boolean;
    turnCount: number;
    messageCount: number;
  }>;
  assert.deepEqual(rows.map((r) => r.id).sort(), [...folders.keys()].sort(), `${label}: the index lists the folders`);
  for (const row of rows) {
    // As the store reads it: a key lost to damage reads as its default, like a hand edit.
    const { state } = readSessionFolder(folders.get(row.id)!).summary;
    assert.equal(state.id, row.id, label);
    for (const field of ['title', 'status', 'workspaceKey', 'archived', 'turnCount'] as const)
      assert.deepEqual(row[field], state[field], `${label}: index ${field} of ${row.id}`);
    assert.equal(row.messageCount, (await cli.shown(row.id)).length, `${label}: index messageCount of ${row.id}`);
  }
  // No byte lost: every log keeps what it had (the damage included: unreadable lines are in its
  // quarantine file, each with its place); broken files are kept aside.
  for (const [id, dir] of folders) {
    const now = snapshotFiles(dir);
    const original = snapshotFiles(path.join(fixture.root, path.relative(root, dir)));
    for (const [rel, bytes] of original) {
      if (!rel.endsWith('wire.jsonl')) continue;
      const expected = damage.file === path.join(dir, rel) ? damage.damaged! : bytes;
      const kept = now.has(rel) ? withQuarantinedLines(path.join(dir, rel)) : undefined;
      assert.ok(kept?.subarray(0, expected.length).equals(expected), `${label}: ${id}/${rel} lost bytes`);
    }
    if (damage.kind === 'state' && damage.session === id && !now.get('state.json')!.equals(damage.damaged!)) {
      assert.ok(
        [...now].some(([rel, b]) => rel.startsWith('state.json.broken-') && b.equals(damage.damaged!)),
        `${label}: the broken state.json is kept aside`,
      );
    }
  }
}

test('the intact fixture passes the doctor with no finding', async () => {
  const root = path.join(base, 'intact');
  fs.cpSync(fixture.root, root, { recursive: true, preserveTimestamps: true });
  const r = await braid(root, ['doctor', '--json']);
  assert.equal(r.code, 0, r.out);
  assert.deepEqual((JSON.parse(r.out) as DoctorReport).findings, []);
});

for (const [kind, fault] of Object.entries(faults)) {
  test(`${kind}: ${fault.count} trial(s)`, async () => {
    for (let n = 0; n < fault.count; n++) await runTrial(kind, n);
  });
}
