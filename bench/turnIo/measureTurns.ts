import fs from 'node:fs';
import path from 'node:path';
import type { Session } from '../../src/core/session/session';
import type { SessionStore } from '../../src/core/store/sessionStore';
import type { ScriptedModelServer, ScriptedReply } from '../../test/support/modelServer';
import { median } from '../table';
import { attachChatView } from './chatView';
import { openBenchSession, openBenchStore } from './benchSession';
import { countsBetween, FsCounter } from './fsCounter';

/** One kind of turn measured: a plain prompt and answer, or one tool call first; with or without the Chat view. */
export interface Variant {
  readonly tool: boolean;
  readonly chatView: boolean;
}

/** A variant's figures: fs calls per turn (means over the measured turns), frames per turn, turn times. */
export interface VariantResult {
  readonly variant: Variant;
  readonly turns: number;
  /** "function file" -> calls per turn, e.g. "readFileSync state.json" -> 4. */
  readonly perTurn: Map<string, number>;
  readonly framesPerTurn: number | undefined;
  readonly turnMs: number[];
}

/** Long enough for the index's delayed save (100 ms after a change) to happen within its turn's count. */
const SETTLE_MS = 250;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the model answers in one turn. */
function replies(tool: boolean, turn: number): ScriptedReply[] {
  const usage = { prompt: 120 + turn, completion: 12 };
  const answer: ScriptedReply = { kind: 'text', chunks: ['The answer ', 'is 42.'], usage };
  if (!tool) return [answer];
  const call = { id: `call_${turn}`, name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) };
  return [{ kind: 'toolCalls', calls: [call], usage }, answer];
}

/**
 * Runs one warm-up turn and `turns` measured turns in a new session of a fresh store under
 * `root`, counting fs calls from each submit until the session is idle and its index save done
 * (the user reads the answer meanwhile). A turn's time runs from submit to its turn-end event.
 */
export async function measureVariant(root: string, wasmPath: string, server: ScriptedModelServer, variant: Variant, turns: number): Promise<VariantResult> {
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'line one\nline two\n');
  // Counting from before the store opens, so the files opened then (the log) are known by name.
  const counter = new FsCounter(fs.realpathSync(workspace)).install();
  try {
    const store = await openBenchStore(path.join(root, 'store'), wasmPath, workspace);
    try {
      const session = await openBenchSession(store, workspace, server.baseUrl);
      try {
        return await countTurns(store, session, counter, server, variant, turns);
      } finally {
        await session.close();
      }
    } finally {
      await store.close();
    }
  } finally {
    counter.uninstall();
  }
}

async function countTurns(
  store: SessionStore,
  session: Session,
  counter: FsCounter,
  server: ScriptedModelServer,
  variant: Variant,
  turns: number,
): Promise<VariantResult> {
  const tally = variant.chatView ? attachChatView(session) : undefined;
  const sums = new Map<string, number>();
  const turnMs: number[] = [];
  let frames = 0;
  for (let t = 0; t <= turns; t++) {
    server.enqueue(...replies(variant.tool, t));
    const before = counter.snapshot();
    const framesBefore = tally?.frames ?? 0;
    const ms = await timedTurn(session, `Question ${t}: what is the answer?`);
    await session.waitForIdle();
    await sleep(SETTLE_MS);
    await store.index.flush();
    if (t === 0) continue; // the warm-up: the first prompt names the session, code paths get compiled
    for (const [key, n] of countsBetween(before, counter.snapshot())) sums.set(key, (sums.get(key) ?? 0) + n);
    frames += (tally?.frames ?? 0) - framesBefore;
    turnMs.push(ms);
  }
  const perTurn = new Map([...sums].map(([key, n]) => [key, n / turns]));
  return { variant, turns, perTurn, framesPerTurn: tally ? frames / turns : undefined, turnMs };
}

/** Submits a prompt; resolves with the ms from the submit to the turn's end event. */
async function timedTurn(session: Session, prompt: string): Promise<number> {
  let stop = () => undefined as void;
  const ended = new Promise<void>((resolve) => {
    stop = session.onEvent((e) => {
      if (e.type === 'turn-end') resolve();
    });
  });
  const start = process.hrtime.bigint();
  await session.submit(prompt);
  await ended;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  stop();
  return ms;
}

/** The headline figures of a variant, per turn. */
export function headline(r: VariantResult): Record<string, number | undefined> {
  const sum = (prefix: string) => [...r.perTurn].filter(([k]) => k.startsWith(prefix)).reduce((a, [, n]) => a + n, 0);
  const one = (key: string) => r.perTurn.get(key) ?? 0;
  return {
    'state.json writes': one('renameSync state.json'),
    'state.json reads': one('readFileSync state.json'),
    fsyncs: sum('fsyncSync '),
    'fsyncs of state.json': sum('fsyncSync state.json'),
    'lock acquisitions': sum('lock '),
    'of them state.lock': one('lock state.lock'),
    'index saves': one('renameSync index.sqlite'),
    'frames to the page': r.framesPerTurn,
    'turn ms (median)': median(r.turnMs),
  };
}
