import assert from 'node:assert/strict';
import fc from 'fast-check';
import fs from 'node:fs';
import { after, test } from 'node:test';
import type { Message } from '@mariozechner/pi-ai';
import { applyRecord, emptyFold } from '../../../src/core/format/logFold';
import { readSessionFolder, summarize, type SessionSummary } from '../../../src/core/format/summary';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import type { SessionWriter } from '../../../src/core/store/sessionWriter';
import type { NewRecord, TurnOutcome } from '../../../src/core/wire/records';
import { scanWireLog } from '../../../src/core/wire/wireReader';
import { assistantMessage, openStore, tempDir, userMessage } from '../../support/store';

// One fold makes every derived fact of a session. For random logs (turns, steered prompts, usage,
// copies of usage, rewinds and their undos, forks, compactions, unknown records, a turn left open), the summary a
// writer keeps as it appends (reopened now and then, from the index or from disk), the summary
// read back from disk, and the index row read back through SQLite must be the same, and agree with
// a plain model of the conversation.

type Op =
  | { kind: 'turn'; prompts: string[]; answer: string; outcome: TurnOutcome; calls: number }
  | { kind: 'rewind'; pick: number }
  | { kind: 'undo' }
  | { kind: 'forked'; source: number }
  | { kind: 'side-call' }
  | { kind: 'copy-call'; pick: number }
  | { kind: 'compaction' }
  | { kind: 'unknown' }
  | { kind: 'reopen'; fromIndex: boolean; store: boolean };

const textArb = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', '   ', '修复登录页的错误', 'fix the parser\nplease', 'x'.repeat(3000)));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('turn' as const),
      prompts: fc.array(textArb, { minLength: 1, maxLength: 3 }),
      answer: textArb,
      outcome: fc.constantFrom<TurnOutcome>('completed', 'completed', 'failed', 'cancelled', 'interrupted'),
      calls: fc.integer({ min: 0, max: 2 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rewind' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'undo' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forked' as const), source: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'side-call' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('copy-call' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'compaction' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reopen' as const), fromIndex: fc.boolean(), store: fc.boolean() }) },
);

const root = tempDir('braid-fold-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** The plain model: effective turns, each with its message count and outcome. */
interface ModelTurn {
  messages: number;
  outcome: TurnOutcome | null;
}

class Run {
  model: ModelTurn[] = [];
  /** The model before the last rewind, while it can be undone (no turn since). */
  private beforeRewind: { model: ModelTurn[]; toTurn: number } | undefined;
  private calls: NewRecord[] = [];
  private counter = 0;
  constructor(
    public store: SessionStore,
    public writer: SessionWriter,
    readonly id: string,
  ) {}

  private usage(turn: number, purpose?: string): NewRecord {
    return {
      t: 'usage',
      turn,
      messageId: `call-${++this.counter}`,
      provider: 'p',
      model: `m${this.counter % 2}`,
      input: this.counter,
      output: 1,
      cacheRead: 2,
      cacheWrite: 0,
      reasoning: 0,
      cost: 0.5,
      latencyMs: 1,
      stopReason: 'stop',
      ...(purpose ? { purpose } : {}),
    };
  }

  async apply(op: Op, last: boolean): Promise<void> {
    const turn = this.model.length; // the last effective turn's number
    switch (op.kind) {
      case 'turn': {
        const n = turn + 1;
        const records: NewRecord[] = [
          { t: 'turn_begin', turn: n, promptId: `p${n}`, model: n % 3 ? { provider: 'p', id: `model-${n}`, thinking: 'off' } : null },
        ];
        for (const text of op.prompts) records.push({ t: 'message', turn: n, id: `u${++this.counter}`, message: userMessage(text) as Message });
        records.push({ t: 'message', turn: n, id: `a${++this.counter}`, message: assistantMessage(op.answer) as Message });
        for (let i = 0; i < op.calls; i++) records.push(this.usage(n));
        this.calls.push(...records.filter((r) => r.t === 'usage'));
        records.push({ t: 'tool', turn: n, toolCallId: 'c', name: 'bash', phase: 'end' });
        // The last turn of a log may be left open, as a crash leaves it.
        const open = last && op.outcome === 'interrupted';
        if (!open) records.push({ t: 'turn_end', turn: n, outcome: op.outcome, ...(op.outcome === 'failed' ? { error: 'it broke' } : {}) });
        await this.writer.append(records, true);
        this.beforeRewind = undefined;
        this.model.push({ messages: op.prompts.length + 1, outcome: open ? null : op.outcome });
        return;
      }
      case 'rewind': {
        if (turn === 0) return;
        const toTurn = 1 + (op.pick % turn);
        await this.writer.append({ t: 'rewind', toTurn, messageId: 'm', files: false });
        this.beforeRewind = { model: [...this.model], toTurn };
        this.model.length = toTurn - 1;
        return;
      }
      case 'undo': {
        // As Braid writes it: only while the last rewind can be undone.
        if (!this.beforeRewind) return;
        await this.writer.append({ t: 'undo_rewind', toTurn: this.beforeRewind.toTurn });
        this.model = this.beforeRewind.model;
        this.beforeRewind = undefined;
        return;
      }
      case 'forked':
        await this.writer.append({ t: 'forked', from: { sessionId: `ses_source${op.source}`, turn: null } });
        this.beforeRewind = undefined;
        return;
      case 'side-call': {
        const call = this.usage(turn, 'side-question');
        this.calls.push(call);
        await this.writer.append(call);
        return;
      }
      case 'copy-call':
        if (this.calls.length) await this.writer.append(this.calls[op.pick % this.calls.length]!);
        return;
      case 'compaction':
        await this.writer.append({ t: 'compaction', turn, summary: 'earlier work', firstKeptMessageId: 'x', summarized: 1 });
        return;
      case 'unknown':
        await this.writer.append({ t: 'future_record', turn } as unknown as NewRecord);
        return;
      case 'reopen':
        if (op.fromIndex) await this.writer.updateState((s) => s); // hands the summary to the index first
        await this.writer.close();
        if (op.store) {
          await this.store.close();
          this.store = await openStore(root);
        }
        this.writer = await this.store.openWriter(this.id);
    }
  }
}

/** A summary as plain JSON, as the index keeps it: facts, the turn map and all else must match. */
const comparable = (s: SessionSummary) => JSON.parse(JSON.stringify(s)) as SessionSummary;

test('the live fold, the fold of the log on disk and the index row are one summary, and agree with the model', async () => {
  let store = await openStore(root);
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { maxLength: 14 }), async (ops) => {
      const created = await store.create({ workspaceDir: '/fold' });
      const run = new Run(store, await store.openWriter(created.id), created.id);
      for (const [i, op] of ops.entries()) await run.apply(op, i === ops.length - 1);
      await run.writer.updateState((s) => s); // the writer hands its summary to the index
      const live = comparable(run.writer.summary);
      await run.writer.close();
      store = run.store;
      const dir = store.locate(created.id);
      const disk = comparable(readSessionFolder(dir).summary);
      const row = comparable(store.index.summaryOf(created.id)!);
      assert.deepEqual(live, disk, 'live = rebuilt from disk');
      assert.deepEqual(row, disk, 'index row = rebuilt from disk');
      // The batch fold by hand, over the records as read: the same once more.
      const fold = emptyFold();
      scanWireLog(store.layout.agentLog(dir), (r, offset, length) => applyRecord(fold, r, offset, length));
      assert.deepEqual(comparable(summarize(disk.state, fold, disk.state.agents, disk.logBytes, disk.stateMtime)), disk, 'batch fold');
      // And the plain model.
      const lastTurn = run.model.at(-1);
      assert.equal(disk.state.turnCount, run.model.length);
      assert.equal(
        disk.messageCount,
        run.model.reduce((n, t) => n + t.messages, 0),
      );
      const status = !lastTurn
        ? 'idle'
        : lastTurn.outcome === null
          ? 'running'
          : { completed: 'idle', failed: 'error', cancelled: 'aborted', interrupted: 'interrupted' }[lastTurn.outcome];
      assert.equal(disk.state.status, status);
    }),
    { numRuns: 60 },
  );
  await store.close();
});
