// Random main logs for the property tests of the readers that take a log by its lines' heads (fork's
// folding copy, rewind's read from the end, the selective scan): turns with shell and file tools,
// their large results, usage, rewinds and their undo (the dropped records copied back, as Braid
// undid one before it wrote `undo_rewind`, and that record), `forked` records, compactions, side calls,
// records of an older turn, unknown records, records laid out otherwise than the writer lays
// them out, blank and garbage lines, lines cut short, invalid UTF-8, a turn left open, a torn tail.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { Message } from '@mariozechner/pi-ai';
import { newSessionId } from '../../src/core/ids';
import { writeState } from '../../src/core/format/sessionState';
import type { StoreLayout } from '../../src/core/format/layout';
import type { KnownRecord, NewRecord, TurnOutcome } from '../../src/core/wire/records';
import { WireLogWriter } from '../../src/core/wire/wireLog';
import { workspaceKey } from '../../src/core/workspace/workspaceKey';

/** One step of a random log. */
export type LogOp =
  | { kind: 'turn'; prompt: string; tools: Array<'bash' | 'read_file'>; resultChars: number; answer: string; outcome: TurnOutcome | 'open'; model: number }
  | { kind: 'rewind'; pick: number }
  | { kind: 'undo' }
  | { kind: 'undo-record' }
  | { kind: 'forked'; turn: number | null }
  | { kind: 'side-call' }
  | { kind: 'compaction' }
  | { kind: 'older-turn' }
  | { kind: 'unknown' }
  | { kind: 'blank' }
  | { kind: 'garbage'; text: string }
  | { kind: 'cut-line'; keep: number }
  | { kind: 'bad-utf8' }
  | { kind: 'other-layout' };

const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', '  ', 'fix the parser\nplease', '修复登录页的错误', '👍🏽 done', '"quoted" \\ back'));

export const logOpArb: fc.Arbitrary<LogOp> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('turn' as const),
      prompt: text,
      tools: fc.array(fc.constantFrom<'bash' | 'read_file'>('bash', 'read_file'), { maxLength: 2 }),
      resultChars: fc.integer({ min: 0, max: 3000 }),
      answer: text,
      outcome: fc.constantFrom<TurnOutcome | 'open'>('completed', 'completed', 'completed', 'failed', 'cancelled', 'interrupted', 'open'),
      model: fc.integer({ min: 0, max: 2 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rewind' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'undo' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'undo-record' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forked' as const), turn: fc.option(fc.integer({ min: 1, max: 5 })) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'side-call' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'compaction' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'older-turn' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'blank' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('garbage' as const),
      text: fc.constantFrom('not json {', '[1,2]', '{"v":1}', '{"v":1,"t":"turn_end","turn":', '{"v":1,"t":"message","turn":1,"id":"x"'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut-line' as const), keep: fc.integer({ min: 1, max: 200 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'bad-utf8' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'other-layout' as const }) },
);

/** Options of a whole random log. */
export const logArb = fc.record({ ops: fc.array(logOpArb, { maxLength: 30 }), tornTail: fc.nat({ max: 60 }) });

const MODELS = ['model-a', 'model-b', 'model-c'];

/** Writes a log from random steps, as the writer lays records out (but where a step says otherwise). */
export class RandomLog {
  private readonly chunks: Buffer[] = [];
  /** Effective turns: each turn's records as written (for undo) and its prompt id. */
  private turns: Array<{ turn: number; promptId: string; records: NewRecord[] }> = [];
  private lastRewind: { toTurn: number; dropped: NewRecord[] } | undefined;
  /** The effective turns before the last rewind, while an `undo_rewind` record may undo it (no turn began and no message came since). */
  private beforeRewind: { toTurn: number; turns: RandomLog['turns'] } | undefined;
  /** A turn that began and has not ended: the log may end with it (a running session). */
  private open: number | undefined;
  private ts = 1_700_000_000_000;
  private counter = 0;
  private otherLayout = false;

  constructor(sessionId: string) {
    this.write({ t: 'agent', agentId: 'main', parentAgentId: null, purpose: 'main', sessionId, workspaceDir: '/random' });
  }

  /** The log's bytes, ending with the first `tornTail` bytes of a line a crash cut short (none for 0). */
  bytes(tornTail = 0): Buffer {
    const line = this.line({ t: 'turn_end', turn: this.nextTurn(), outcome: 'completed' });
    return Buffer.concat([...this.chunks, line.subarray(0, Math.min(tornTail, line.length - 2))]);
  }

  /** The prompt ids of the effective turns, oldest first. */
  prompts(): string[] {
    return this.turns.map((t) => t.promptId);
  }

  private nextTurn(): number {
    return (this.turns.at(-1)?.turn ?? 0) + 1;
  }

  private id(prefix: string): string {
    return `${prefix}${(++this.counter).toString().padStart(6, '0')}`;
  }

  /** A record's line: the writer's layout, or (after an `other-layout` step) `ts` and `v` first. */
  private line(record: NewRecord): Buffer {
    this.ts += 1000;
    if (this.otherLayout) {
      this.otherLayout = false;
      return Buffer.from(`${JSON.stringify({ ts: this.ts, ...record, v: 1 })}\n`);
    }
    return Buffer.from(WireLogWriter.serialize(record, this.ts).line);
  }

  private write(record: NewRecord): void {
    this.chunks.push(this.line(record));
  }

  apply(op: LogOp): void {
    // Anything after a turn left open first ends it, as recovery does.
    if (this.open !== undefined && op.kind !== 'other-layout') {
      const end: NewRecord = { t: 'turn_end', turn: this.open, outcome: 'interrupted', error: 'closed by recovery' };
      this.write(end);
      this.turns.find((t) => t.turn === this.open)?.records.push(end); // one of the turn's records: an undo copies it back too
      this.open = undefined;
    }
    switch (op.kind) {
      case 'turn':
        return this.turn(op);
      case 'rewind': {
        if (this.turns.length === 0) return;
        const target = this.turns[op.pick % this.turns.length]!;
        const dropped = this.turns.filter((t) => t.turn >= target.turn);
        this.write({ t: 'rewind', toTurn: target.turn, messageId: target.promptId, files: false });
        this.beforeRewind = { toTurn: target.turn, turns: this.turns };
        this.turns = this.turns.filter((t) => t.turn < target.turn);
        this.lastRewind = { toTurn: target.turn, dropped: dropped.flatMap((t) => t.records) };
        return;
      }
      case 'undo': {
        if (!this.lastRewind) return;
        for (const r of this.lastRewind.dropped) this.write(r);
        const byTurn = new Map<number, NewRecord[]>();
        for (const r of this.lastRewind.dropped) byTurn.set((r as { turn: number }).turn, [...(byTurn.get((r as { turn: number }).turn) ?? []), r]);
        for (const [turn, records] of byTurn) {
          const prompt = records.find((r) => r.t === 'message' && r.message.role === 'user') as { id: string } | undefined;
          this.turns.push({ turn, promptId: prompt?.id ?? '', records });
        }
        this.lastRewind = undefined;
        this.beforeRewind = undefined;
        return;
      }
      case 'undo-record': {
        // As Braid undoes a rewind: one record, while nothing went on since.
        if (!this.beforeRewind) return;
        this.write({ t: 'undo_rewind', toTurn: this.beforeRewind.toTurn });
        this.turns = this.beforeRewind.turns;
        this.beforeRewind = undefined;
        this.lastRewind = undefined;
        return;
      }
      case 'forked':
        this.beforeRewind = undefined;
        return this.write({ t: 'forked', from: { sessionId: newSessionId(), turn: op.turn } });
      case 'side-call':
        return this.write(usage(this.turns.at(-1)?.turn ?? 0, this.id('side_'), 'side-question'));
      case 'compaction': {
        const last = this.turns.at(-1);
        if (!last) return;
        this.write({ t: 'compaction', turn: last.turn, summary: 'so far', firstKeptMessageId: last.promptId, summarized: 2 });
        return;
      }
      case 'older-turn': {
        const older = this.turns.at(-2);
        if (older) this.write({ t: 'message', turn: older.turn, id: this.id('msg_'), message: assistant('appended to an older turn', []) });
        if (older) this.beforeRewind = undefined;
        return;
      }
      case 'unknown':
        this.chunks.push(Buffer.from(`${JSON.stringify({ v: 1, t: 'future_thing', ts: (this.ts += 1000), data: this.counter })}\n`));
        return;
      case 'blank':
        this.chunks.push(Buffer.from('  \n'));
        return;
      case 'garbage':
        this.chunks.push(Buffer.from(`${op.text}\n`));
        return;
      case 'cut-line': {
        // A tool result a crash cut short, then a fresh line (as the writer starts one after a torn line).
        const content = [{ type: 'text' as const, text: 'y'.repeat(300) }];
        const message = { role: 'toolResult', toolCallId: 'cut', toolName: 'bash', content, isError: false, timestamp: 1 } as Message;
        const line = this.line({ t: 'message', turn: this.turns.at(-1)?.turn ?? 1, id: this.id('msg_'), message });
        this.chunks.push(Buffer.concat([line.subarray(0, Math.min(op.keep, line.length - 2)), Buffer.from('\n')]));
        return;
      }
      case 'bad-utf8': {
        // A record with an invalid byte inside a string: it still reads, with a replacement character.
        const line = this.line(usage(this.turns.at(-1)?.turn ?? 0, this.id('bad_'), undefined));
        const at = line.indexOf('"model"') + 10;
        this.chunks.push(Buffer.concat([line.subarray(0, at), Buffer.from([0xff]), line.subarray(at)]));
        return;
      }
      case 'other-layout':
        this.otherLayout = true;
        return;
    }
  }

  private turn(op: Extract<LogOp, { kind: 'turn' }>): void {
    const turn = this.nextTurn();
    const records: NewRecord[] = [];
    const promptId = `msg-user-v1-${(++this.counter).toString(16).padStart(8, '0')}`;
    records.push({ t: 'turn_begin', turn, promptId: `p${turn}`, model: op.model === 2 ? null : { provider: 'test', id: MODELS[op.model]!, thinking: 'off' } });
    records.push({ t: 'message', turn, id: promptId, message: user(op.prompt) });
    const calls = op.tools.map((name) => ({
      type: 'toolCall' as const,
      id: this.id('call_'),
      name,
      arguments: name === 'bash' ? { command: `ls ${turn}` } : { path: 'a.txt' },
    }));
    if (calls.length > 0) {
      const asked = this.id('msg_');
      records.push({ t: 'message', turn, id: asked, message: assistant('', calls) });
      records.push(usage(turn, asked, undefined));
      for (const call of calls) {
        records.push({ t: 'tool', turn, toolCallId: call.id, name: call.name, phase: 'end', isError: false });
        if (call.name === 'bash') records.push({ t: 'file_change', turn, toolCallId: call.id, path: `out-${turn}.txt`, before: null, after: null });
        const result = `${call.name} says ${'x'.repeat(op.resultChars)} é\n"done"`;
        const details = call.name === 'bash' ? { exitCode: 0 } : undefined;
        records.push({
          t: 'message',
          turn,
          id: this.id('msg_'),
          message: {
            role: 'toolResult',
            toolCallId: call.id,
            toolName: call.name,
            content: [{ type: 'text', text: result }],
            details,
            isError: false,
            timestamp: this.ts,
          } as Message,
        });
      }
    }
    const answered = this.id('msg_');
    records.push({ t: 'message', turn, id: answered, message: assistant(op.answer, []) });
    records.push(usage(turn, answered, undefined));
    if (op.outcome !== 'open') records.push({ t: 'turn_end', turn, outcome: op.outcome, ...(op.outcome === 'failed' ? { error: 'it broke' } : {}) });
    for (const r of records) this.write(r);
    this.turns.push({ turn, promptId, records });
    this.lastRewind = undefined;
    this.beforeRewind = undefined;
    if (op.outcome === 'open') this.open = turn;
  }
}

function user(content: string): Message {
  return {
    role: 'user',
    content: [
      { type: 'text', text: `<system-reminder>\nnote\n</system-reminder>` },
      { type: 'text', text: content },
    ],
    timestamp: 1,
  };
}

function assistant(text: string, calls: Array<{ type: 'toolCall'; id: string; name: string; arguments: Record<string, unknown> }>): Message {
  return {
    role: 'assistant',
    content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls],
    api: 'openai-completions',
    provider: 'test',
    model: 'model-a',
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: calls.length ? 'toolUse' : 'stop',
    timestamp: 1,
  };
}

function usage(turn: number, messageId: string, purpose: string | undefined): NewRecord {
  return {
    t: 'usage',
    turn,
    messageId,
    provider: 'test',
    model: 'model-a',
    input: 100,
    output: 20,
    cacheRead: 5,
    cacheWrite: 0,
    reasoning: 0,
    cost: 0.01,
    latencyMs: 10,
    stopReason: 'stop',
    ...(purpose ? { purpose } : {}),
  };
}

/** Builds a random log and writes it as a session folder of the store (state.json and the main log); returns its id and the log. */
export function writeRandomSession(
  layout: StoreLayout,
  ops: LogOp[],
  tornTail: number,
  stateTs = 1_700_000_000_000,
): { id: string; log: RandomLog; file: string } {
  const id = newSessionId();
  const log = new RandomLog(id);
  for (const op of ops) log.apply(op);
  const key = workspaceKey('/random');
  const dir = layout.sessionDir(key, id);
  const file = layout.agentLog(dir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, log.bytes(tornTail));
  writeTestState(layout.stateFile(dir), { id, workspaceKey: key, workspaceDir: '/random', createdAt: stateTs, title: 'random' });
  return { id, log, file };
}

/** Writes the state.json of a session a test made by hand: these fields, the rest as a new session's. */
export function writeTestState(file: string, own: { id: string; workspaceKey: string; workspaceDir: string; createdAt: number; title: string }): void {
  writeState(file, {
    v: 2,
    ...own,
    titleSource: 'user',
    kind: 'conversation',
    visibility: 'visible',
    archived: false,
    forkedFrom: null,
    queue: [],
    paused: null,
  });
}

/** A record's fields but its time, for comparing records written at different moments. */
export function withoutTime(record: KnownRecord): object {
  const { ts: _ts, ...rest } = record as KnownRecord & { ts: number };
  return rest;
}
