import { EffectiveTurns } from './effectiveTurns';
import {
  isKnown,
  type AgentRecord,
  type CompactionRecord,
  type ContextRecord,
  type FileChangeRecord,
  type ForkedRecord,
  type KnownRecord,
  type MemoryRecord,
  type MessageRecord,
  type TurnBeginRecord,
  type TurnEndRecord,
  type UsageRecord,
  type WireRecord,
} from './records';

/** A record that belongs to a turn (and is dropped when a rewind drops that turn). */
type TurnScoped = Extract<KnownRecord, { turn: number }>;

/** The effective history of one agent's log: what the conversation is after every rewind. */
export interface History {
  agent: AgentRecord | undefined;
  forkedFrom: ForkedRecord['from'] | undefined;
  /** Effective messages, in order. */
  messages: MessageRecord[];
  /** Effective turn starts and ends. */
  turnBegins: TurnBeginRecord[];
  turnEnds: TurnEndRecord[];
  fileChanges: FileChangeRecord[];
  /** Effective compactions, oldest first; the model's context starts from the latest. */
  compactions: CompactionRecord[];
  /** Effective context records: what the user attached to each turn's prompt. */
  contexts: ContextRecord[];
  /** The latest effective memory record: the session memory (docs/reference.md, Session memory). */
  memory: MemoryRecord | undefined;
  /** Each model call the log records, once (by {@link callId}), in the order first seen; rewound turns included: their tokens were spent. */
  calls: UsageCall[];
  /** The number the next turn gets. */
  nextTurn: number;
  /** An effective turn that began and has no turn_end (a crash or a turn still running). */
  openTurn: number | null;
  rewinds: number;
}

/**
 * A model call recorded in a log: its first usage record, and the session whose own call it was
 * (`null`: the session of this log). A fork's log begins with a copy of its source's log and a
 * `forked` record, so a call met before the first `forked` record that follows it was made by
 * that record's source: forks of forks are attributed to the session that really made the call.
 */
export interface UsageCall {
  readonly record: UsageRecord;
  origin: string | null;
}

/**
 * A usage record's stable id: the message id it carries (a fresh id per real model call; copies
 * made by fork and undo keep it). A record without one (damaged, hand-made) is keyed by its
 * content, which undo's copies keep too.
 */
export function callId(u: UsageRecord): string {
  if (typeof u.messageId === 'string' && u.messageId) return u.messageId;
  return `content:${JSON.stringify([u.turn, u.provider, u.model, u.input, u.output, u.cacheRead, u.cacheWrite, u.cost, u.latencyMs, u.stopReason, u.purpose])}`;
}

/**
 * Applies records in file order (docs/reference.md, Wire records): `rewind{toTurn:k}` drops effective turns >= k,
 * and the next turn is numbered k again; `undo_rewind` brings them back. Unknown records are skipped.
 */
export class HistoryBuilder {
  private readonly scoped = new EffectiveTurns<TurnScoped>();
  private agent: AgentRecord | undefined;
  private forkedFrom: ForkedRecord['from'] | undefined;
  private readonly calls: UsageCall[] = [];
  private readonly callIds = new Set<string>();
  /** Calls from this index on have no origin yet (they belong to whoever the next `forked` record names, or to this session). */
  private unattributed = 0;
  private rewinds = 0;

  add(record: WireRecord): void {
    if (!isKnown(record)) return;
    switch (record.t) {
      case 'agent':
        this.agent ??= record;
        return;
      case 'forked':
        this.forkedFrom = record.from;
        if (typeof record.from.sessionId === 'string') for (const c of this.calls.slice(this.unattributed)) c.origin = record.from.sessionId;
        this.unattributed = this.calls.length;
        return;
      case 'rewind':
        this.rewinds++;
        this.scoped.rewind(record.toTurn);
        return;
      case 'undo_rewind':
        this.scoped.undo();
        return;
      case 'imported':
        return; // where the session came from: not part of its history
      case 'usage': {
        const id = callId(record);
        if (this.callIds.has(id)) return; // a copy (an undo before Braid wrote undo_rewind appended the dropped records again)
        this.callIds.add(id);
        this.calls.push({ record, origin: null });
        return;
      }
      case 'relinked':
      case 'gc':
      case 'synced':
        return; // where the session's folder is, blobs removed, which machine made records: not part of its history
      default:
        this.scoped.push(record);
    }
  }

  build(): History {
    const messages: MessageRecord[] = [];
    const turnBegins: TurnBeginRecord[] = [];
    const turnEnds: TurnEndRecord[] = [];
    const fileChanges: FileChangeRecord[] = [];
    const compactions: CompactionRecord[] = [];
    const contexts: ContextRecord[] = [];
    let memory: MemoryRecord | undefined;
    let maxTurn = 0;
    for (const r of this.scoped.items) {
      if (r.turn > maxTurn) maxTurn = r.turn;
      if (r.t === 'message') messages.push(r);
      else if (r.t === 'turn_begin') turnBegins.push(r);
      else if (r.t === 'turn_end') turnEnds.push(r);
      else if (r.t === 'file_change') fileChanges.push(r);
      else if (r.t === 'compaction') compactions.push(r);
      else if (r.t === 'context') contexts.push(r);
      else if (r.t === 'memory') memory = r;
    }
    const ended = new Set(turnEnds.map((r) => r.turn));
    const open = turnBegins.filter((r) => !ended.has(r.turn)).pop();
    return {
      agent: this.agent,
      forkedFrom: this.forkedFrom,
      messages,
      turnBegins,
      turnEnds,
      fileChanges,
      compactions,
      contexts,
      memory,
      calls: this.calls,
      nextTurn: maxTurn + 1,
      openTurn: open ? open.turn : null,
      rewinds: this.rewinds,
    };
  }
}

/** The effective history of a list of records. */
export function replay(records: Iterable<WireRecord>): History {
  const builder = new HistoryBuilder();
  for (const r of records) builder.add(r);
  return builder.build();
}
