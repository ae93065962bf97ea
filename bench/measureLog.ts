// The measures of one long session log, run in one child process (each with its own peak memory):
// the newest page, a full replay, the replay for the model with and without compactions, a fork
// and a rewind at the middle turn, each beside its floor or the peer's pattern.
import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../src/core/logger';
import { forkSession } from '../src/core/store/fork';
import { rewindSession } from '../src/core/store/rewind';
import { SessionStore } from '../src/core/store/sessionStore';
import { readContextTail } from '../src/core/wire/contextTail';
import { readNewestPage } from '../src/core/wire/newestPage';
import { HistoryBuilder } from '../src/core/wire/replay';
import { scanWireLog } from '../src/core/wire/wireReader';
import { timed, type Results } from './memory';
import { copyWithFsync, openByParsingWholeLog, parseEveryLine, readTail } from './peers/patterns';

/** What the parent knows of the log: its session, the middle turn and the byte where that turn ends. */
export interface LogTarget {
  readonly storeRoot: string;
  readonly log: string;
  readonly compacted: string;
  readonly sessionId: string;
  readonly middleTurn: number;
  readonly cutOffset: number;
  readonly runs: number;
}

function replay(file: string): unknown {
  const b = new HistoryBuilder();
  scanWireLog(file, (r) => b.add(r));
  return b.build();
}

export async function measureLog(target: LogTarget, wasmPath: string): Promise<Results> {
  const { log, compacted, runs } = target;
  const out: Results = {};
  out.page = await timed(runs + 2, () => readNewestPage(log, 80));
  out.openPeer = await timed(runs, () => openByParsingWholeLog(log, 80));
  out.replay = await timed(runs, () => replay(log));
  out.floor = await timed(runs, () => parseEveryLine(log));
  out.context = await timed(runs, () => readContextTail(log));
  out.contextCompacted = await timed(runs + 2, () => readContextTail(compacted));
  out.replayCompacted = await timed(runs, () => replay(compacted));
  // The index row an operation changes is written off its clock, after it, as a window writes it
  // 100 ms later; the index write is measured on its own.
  const store = await SessionStore.open({ root: target.storeRoot, wasmPath, logger: silentLogger, saveDelayMs: 60_000 });
  const writeIndex = () => store.index.flush();
  try {
    let forkId = '';
    out.fork = await timed(runs, async () => (forkId = (await forkSession(store, target.sessionId, { turn: target.middleTurn })).id), writeIndex);
    out.forkIndexRow = await timed(runs, async () => {
      store.index.putSummary(forkId, store.index.summaryOf(forkId)!);
      await writeIndex();
    });
    const copy = path.join(path.dirname(target.storeRoot), 'fork-floor.jsonl');
    out.forkFloor = await timed(runs, () => copyWithFsync(log, copy, target.cutOffset));
    fs.rmSync(copy, { force: true });
    out.rewindFloor = await timed(runs, () => readTail(log, target.cutOffset));
    const prompt = store.history(target.sessionId).messages.find((m) => m.turn === target.middleTurn + 1 && m.message.role === 'user')!;
    out.rewind = await timed(1, () => rewindSession(store, target.sessionId, prompt.id, { files: false }), writeIndex);
  } finally {
    await store.close();
  }
  return out;
}
