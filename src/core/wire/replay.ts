import { isKnown, type AgentRecord, type CompactionRecord, type FileChangeRecord, type ForkedRecord, type KnownRecord, type MessageRecord, type TurnBeginRecord, type TurnEndRecord, type UsageRecord, type WireRecord } from './records';

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
  /** Every usage record, rewound turns included: their tokens were spent. */
  usage: UsageRecord[];
  /** The number the next turn gets. */
  nextTurn: number;
  /** An effective turn that began and has no turn_end (a crash or a turn still running). */
  openTurn: number | null;
  rewinds: number;
}

/**
 * Applies records in file order (DESIGN.md 4): `rewind{toTurn:k}` drops effective turns >= k,
 * and the next turn is numbered k again. Unknown records are skipped.
 */
export class HistoryBuilder {
  private scoped: TurnScoped[] = [];
  private agent: AgentRecord | undefined;
  private forkedFrom: ForkedRecord['from'] | undefined;
  private readonly usage: UsageRecord[] = [];
  private rewinds = 0;

  add(record: WireRecord): void {
    if (!isKnown(record)) return;
    switch (record.t) {
      case 'agent':
        this.agent ??= record;
        return;
      case 'forked':
        this.forkedFrom = record.from;
        return;
      case 'rewind':
        this.rewinds++;
        this.scoped = this.scoped.filter((r) => r.turn < record.toTurn);
        return;
      case 'usage':
        this.usage.push(record);
        return;
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
    let maxTurn = 0;
    for (const r of this.scoped) {
      if (r.turn > maxTurn) maxTurn = r.turn;
      if (r.t === 'message') messages.push(r);
      else if (r.t === 'turn_begin') turnBegins.push(r);
      else if (r.t === 'turn_end') turnEnds.push(r);
      else if (r.t === 'file_change') fileChanges.push(r);
      else if (r.t === 'compaction') compactions.push(r);
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
      usage: this.usage,
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
