// The rows of one long session log (1k, 10k or 100k records with tool outputs of 2 to 14 KB): the
// newest page against parsing the whole log, a full replay against JSON.parse of every line, the
// replay for the model with 10 compactions against none, and a fork and a rewind at the middle
// turn against their floors (an in-process copy of the kept bytes with fsync; reading the dropped tail).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/core/logger';
import { readSessionSummary } from '../../src/core/format/summary';
import { SessionStore } from '../../src/core/store/sessionStore';
import type { BenchContext } from '../context';
import { generateLogOfRecords, withCompactions } from '../generate';
import type { LogTarget } from '../measureLog';
import { fmt, overFloor, plain, versus } from '../table';

export async function measureLogOf(ctx: BenchContext, records: number): Promise<void> {
  const load = os.loadavg()[0]!.toFixed(1);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-log-'));
  try {
    const storeRoot = path.join(root, 'store');
    const setup = await SessionStore.open({ root: storeRoot, wasmPath: ctx.wasmPath, logger: silentLogger, saveDelayMs: 0 });
    const session = await setup.create({ workspaceDir: '/bench/log' });
    const log = setup.layout.agentLog(setup.locate(session.id));
    const generated = generateLogOfRecords(log, records);
    const dir = setup.locate(session.id);
    setup.index.rereadFolder(dir);
    await setup.close();
    const compacted = path.join(root, 'compacted.jsonl');
    const compactedMb = withCompactions(log, compacted, 10) / 1024 / 1024;
    const middleTurn = Math.max(1, Math.floor(generated.records / 8 / 2));
    // Where the middle turn ends, from the session's turn map: the fork's cut.
    const cut = { offset: readSessionSummary(dir).summary.fold.turns.find((t) => t.turn === middleTurn)!.end };
    const target: LogTarget = { storeRoot, log, compacted, sessionId: session.id, middleTurn, cutOffset: cut.offset, runs: ctx.quick ? 3 : 5 };
    const m = (await ctx.measure('braidMeasures', { kind: 'log', args: { log: target } })).log!;
    const mb = generated.bytes / 1024 / 1024;
    const name = `${records / 1000}k-record log (${mb.toFixed(mb < 10 ? 1 : 0)} MB)`;
    ctx.add(name, versus(`open the newest page (80 messages)`, m.page!, '(c) parse the whole log', m.openPeer!));
    ctx.add(name, overFloor(`full replay (${(mb / (m.replay!.ms / 1000)).toFixed(0)} MB/s)`, m.replay!, 'JSON.parse of every line', m.floor!));
    ctx.add(
      name,
      versus(
        `replay for the model, 10 compactions (${compactedMb.toFixed(compactedMb < 10 ? 1 : 0)} MB)`,
        m.contextCompacted!,
        'the same without compactions',
        m.context!,
      ),
    );
    const keptMb = (cut.offset / 1024 / 1024).toFixed(1);
    ctx.add(name, overFloor(`fork at the middle turn`, m.fork!, `the kept bytes copied in process, fsynced [${keptMb} MB]`, m.forkFloor!));
    ctx.add(name, plain("the fork's index row, written after it (its search text and fold; a window writes it 100 ms after the fork)", fmt(m.forkIndexRow!)));
    const droppedMb = ((generated.bytes - cut.offset) / 1024 / 1024).toFixed(1);
    ctx.describe(name, `Load average ${load} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end.`);
    ctx.add(name, overFloor(`rewind to the middle turn`, m.rewind!, `the dropped bytes read [${droppedMb} MB]`, m.rewindFloor!));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
