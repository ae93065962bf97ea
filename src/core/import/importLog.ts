import fs from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import path from 'node:path';
import type { AssistantMessage, Message } from '@mariozechner/pi-ai';
import { sha256Hex } from '../hash';
import { WireLogWriter } from '../wire/wireLog';
import { applyRecord, emptyFold, type LogFold } from '../format/logFold';
import { BlobStore } from '../format/blobStore';
import { gitBranchName } from './gitBranchName';
import { withImageBlobs } from '../session/imageBlobs';
import { callUsage } from '../session/callUsage';
import { IMPORTED_MESSAGE, isMessage, type InjectedContext, type ModelSnapshot, type NewRecord, type TurnOutcome } from '../wire/records';

/** What a converter hands over for each message: the source's own id for it, its time, and the message as Braid's kernel holds it. */
export interface ImportedMessage {
  readonly sourceId: string;
  readonly ts: number;
  readonly message: Message;
  /** Set on a user-role message the tool injected (context, not a prompt). */
  readonly injected?: InjectedContext;
}

/**
 * Where a converter writes one agent's history. It calls `beginTurn` at each prompt a person
 * typed, `message` for every message in order, `compaction` where the source summarized (with
 * no first kept message: the history goes on from the next one), and `subagent` for a child
 * agent's own history.
 */
export interface ImportTarget {
  /** `branch`: the git branch the source says the turn began on, when it says one (a name git would take). */
  beginTurn(ts: number, model?: ModelSnapshot | null, branch?: string): void;
  message(m: ImportedMessage): void;
  compaction(ts: number, summary: string, firstKeptSourceId: string | null, summarized: number): void;
  endTurn(outcome?: TurnOutcome, error?: string): void;
  /** A child agent's history: its target, and the id Braid gives the agent (a task call's result names it). */
  subagent(sourceId: string, title: string): { agentId: string; target: ImportTarget };
}

/** Where a re-import stands: the turns the log holds already (from its newest `imported` record). */
export interface ImportedSoFar {
  readonly turns: number;
  readonly lastTurnMessages: number;
  readonly earlierTurns: string;
}

/** The source's conversation before its end is not what was imported (a rewind in the source tool): nothing is appended. */
export class SourceChangedError extends Error {
  override readonly name = 'SourceChangedError';
}

/** What a finished import log says of what it holds. */
export interface ImportLogResult extends ImportedSoFar {
  readonly messages: number;
  readonly appended: number;
}

type BufferedTurn = { ts: number; model: ModelSnapshot | null; branch?: string; records: NewRecord[]; messageIds: string[]; sourceIds: string[] };

/** How an {@link ImportLog} writes. */
export interface ImportLogOptions {
  /** Distinguishes this session's ids from another import's (the tool and the source session). */
  readonly idScope: string;
  /** The source session's start: the time of records whose source time is missing, until a later one is known. */
  readonly startedAt: number;
  /** Over a log that holds an earlier import: where it stands (only what the source added is written). */
  readonly soFar?: ImportedSoFar | null;
  /** A subagent's log: the main log its usage goes to, its purpose, and the parent's turn its records carry. */
  readonly usageLog?: ImportLog;
  readonly purpose?: string;
  readonly parentTurn?: () => number;
  /** A fork of another imported branch: that session, and the ids of its messages (the turns both hold come before the `forked` record). */
  readonly forkOf?: { readonly sessionId: string; readonly ids: ReadonlySet<string> };
  /** Over a log whose import was cut short: every turn is written again after a conversation-only rewind to the first. */
  readonly rewrite?: boolean;
}

/** What is written is handed to the file this much at a time. */
const FLUSH_BYTES = 1 << 20;

/**
 * Writes one agent's log of an imported session (the main agent's, or a subagent's). Turns are
 * numbered from 1 as the source's prompts come; each turn is kept until it ends (its model is
 * known from its first answer then), then written. Message ids are derived from the source's
 * ids, so an import run twice writes the same ids. Opened over a log that holds an earlier
 * import (`soFar`), it writes only what the source added: turns after those, and a last turn
 * that grew since is written again after a conversation-only rewind of it.
 */
export class ImportLog implements ImportTarget {
  private readonly fd: number;
  /** Lines written but not yet handed to the file: `pendingBytes` of `buffer`. */
  private readonly buffer = Buffer.allocUnsafe(FLUSH_BYTES);
  private pendingBytes = 0;
  private turn: BufferedTurn | null = null;
  private turnNumber = 0;
  private lastModel: ModelSnapshot | null = null;
  private earlier = sha256Hex('');
  private earlierIds: string[] = [];
  private lastTurnMessages = 0;
  private messages = 0;
  private appended = 0;
  private readonly children: ImportLog[] = [];
  /** A fork's last turn that its source session holds too (the `forked` record's turn). */
  lastSharedTurn = 0;
  private forkedWritten = false;
  private closed = false;
  private unreadable = 0;
  /** The text of the first prompt (a session without a title of its source's is named by it, as Braid names its own). */
  firstPrompt: string | null = null;
  /** A compaction whose history goes on with the next message (Codex's), and where the last one's kept messages began. */
  private compactionBefore: { ts: number; summary: string; from: number } | null = null;
  private keptFrom = 0;
  /** The session's blobs: an image's bytes are stored there once and the log names them. */
  private readonly blobs: BlobStore;

  /**
   * A new main log's fold of every record it writes (the one fold, as a live writer keeps it): the
   * index learns of the session from it, without reading the log back. Null for a subagent's log
   * and over a log written before.
   */
  fold: LogFold | null;
  /** Bytes in the file before this log wrote, and bytes it wrote: what the file must hold when it is done. */
  private readonly startSize: number;
  private written = 0;
  /** The newest time written: a record whose source time is missing takes it. */
  private lastTs: number;
  private readonly idScope: string;
  private readonly usageLog: ImportLog | null;
  private readonly purpose: string | undefined;
  private readonly soFar: ImportedSoFar | null;
  private readonly parentTurn: () => number;
  private readonly forkOf: ImportLogOptions['forkOf'];
  private readonly rewrite: boolean;

  constructor(
    readonly file: string,
    options: ImportLogOptions,
  ) {
    ({ idScope: this.idScope, soFar: this.soFar = null, forkOf: this.forkOf, rewrite: this.rewrite = false } = options);
    this.usageLog = options.usageLog ?? null;
    this.purpose = options.purpose;
    this.parentTurn = options.parentTurn ?? (() => 0);
    this.lastTs = options.startedAt;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.fd = fs.openSync(file, 'a+');
    this.startSize = fs.fstatSync(this.fd).size;
    this.fold = this.startSize === 0 && !options.usageLog ? emptyFold() : null;
    // A log that ends in a torn line (a crash mid-append) gets a fresh line first, so the torn bytes stay a bad line of their own.
    if (this.startSize > 0) {
      const last = Buffer.alloc(1);
      fs.readSync(this.fd, last, 0, 1, this.startSize - 1);
      if (last[0] !== 10) this.pendingBytes = this.buffer.write('\n');
    }
    this.blobs = new BlobStore(path.join(path.dirname(path.dirname(path.dirname(file))), 'blobs'));
  }

  /** The Braid message id of a source message (stable across imports). */
  messageId(sourceId: string): string {
    return importedMessageId(this.idScope, sourceId);
  }

  /** Writes a record now, before any turn (the agent line, the `imported` and `forked` records). */
  head(record: NewRecord): void {
    this.write(record);
  }

  beginTurn(ts: number, model: ModelSnapshot | null = null, branch?: string): void {
    if (this.turn) this.endTurn();
    this.turnNumber++;
    const named = gitBranchName(branch);
    this.turn = { ts: this.time(ts), model, ...(named ? { branch: named } : {}), records: [], messageIds: [], sourceIds: [] };
  }

  /** A record's time: the source's, or when it has none (0) the newest time written before. */
  private time(ts: number): number {
    const t = ts > 0 ? ts : this.lastTs;
    if (t > this.lastTs) this.lastTs = t;
    return t;
  }

  message(m: ImportedMessage): void {
    if (!isMessage(m.message)) {
      this.unreadable++; // damaged in the source: a record of it would be a line Braid cannot read back
      return;
    }
    if (!this.turn) this.beginTurn(m.ts); // a source that starts with an answer: its turn has no prompt
    const turn = this.turn!;
    const ts = this.time(m.ts);
    const id = this.messageId(m.sourceId);
    turn.messageIds.push(id);
    turn.sourceIds.push(m.sourceId);
    const number = this.recordTurn();
    // A message without a time of its own (a source that keeps none) carries its record's.
    const message = m.message.timestamp > 0 ? m.message : ({ ...m.message, timestamp: ts } as Message);
    turn.records.push({ t: 'message', turn: number, id, message: withImageBlobs(message, this.blobs), ...(m.injected ? { injected: m.injected } : {}), ts });
    const before = this.compactionBefore;
    if (before) {
      // A compaction follows its first kept message in the log, as Braid's own compactions do (readers find it going back).
      this.compactionBefore = null;
      turn.records.push({
        t: 'compaction',
        turn: number,
        summary: before.summary,
        firstKeptMessageId: id,
        summarized: before.from - this.keptFrom,
        ts: before.ts,
      });
      this.keptFrom = before.from;
    }
    if (m.message.role === 'user' && !m.injected && this.firstPrompt === null) this.firstPrompt = promptText(m.message);
    if (m.message.role !== 'assistant') return;
    const answer = m.message as AssistantMessage;
    turn.model ??= { provider: answer.provider, id: answer.model, thinking: 'off' };
    // The source did not record how long a call took: latency 0.
    const call = { ...callUsage(answer, id, Date.now(), this.purpose), latencyMs: 0 };
    const usage: NewRecord = { t: 'usage', turn: this.usageLog ? this.parentTurn() : number, ...call, ts };
    if (this.usageLog) this.usageLog.addUsage(usage);
    else turn.records.push(usage);
  }

  compaction(ts: number, summary: string, firstKeptSourceId: string | null, summarized: number): void {
    if (firstKeptSourceId === null) {
      this.compactionBefore = { ts: this.time(ts), summary, from: this.messages + (this.turn?.messageIds.length ?? 0) };
      return;
    }
    if (!this.turn) this.beginTurn(ts);
    const record = { summary, firstKeptMessageId: this.messageId(firstKeptSourceId), summarized, ts: this.time(ts) };
    this.turn!.records.push({ t: 'compaction', turn: this.recordTurn(), ...record });
  }

  endTurn(outcome: TurnOutcome = 'completed', error?: string): void {
    const turn = this.turn;
    if (!turn) return;
    this.turn = null;
    const last = turn.records.at(-1)?.ts ?? turn.ts;
    turn.records.push({ t: 'turn_end', turn: this.recordTurn(), outcome, ...(error ? { error } : {}), ts: last });
    this.lastModel = turn.model ?? this.lastModel;
    this.settle(turn);
  }

  subagent(sourceId: string, title: string): { agentId: string; target: ImportTarget } {
    const agentId = `agent_imp${sha256Hex(`${this.idScope}\nagent\n${sourceId}`).slice(0, 23)}`;
    const file = path.join(path.dirname(path.dirname(this.file)), agentId, 'wire.jsonl');
    const exists = fs.existsSync(file);
    if (this.soFar && !this.rewrite && exists) return { agentId, target: new DiscardTarget() }; // imported with the turns before
    const turn = this.turnNumber;
    const child = new ImportLog(file, {
      idScope: `${this.idScope}\n${agentId}`,
      startedAt: this.lastTs,
      usageLog: this,
      purpose: `subagent:${agentId}`,
      parentTurn: () => turn,
    });
    // Written again over an import cut short: what the log held before is rewound, as the main log's turns are.
    if (this.rewrite && exists) child.head({ t: 'rewind', toTurn: 1, messageId: '', files: false, ts: this.lastTs });
    else child.head({ t: 'agent', agentId, parentAgentId: 'main', purpose: title, ts: this.lastTs });
    this.children.push(child);
    return { agentId, target: child };
  }

  /**
   * Ends the open turn, writes `tail` (the records that end an import) and, unless `sync` is
   * false (a new session, fsynced when published), fsyncs every log; says what the log holds now.
   */
  finish(tail: (soFar: ImportedSoFar) => NewRecord[] = () => [], { sync = true } = {}): ImportLogResult {
    this.endTurn();
    for (const child of this.children) child.finish(undefined, { sync });
    if (this.soFar && this.turnNumber < this.soFar.turns) throw new SourceChangedError('the source holds fewer turns than were imported from it');
    this.writeForked(this.turnNumber);
    const soFar = { turns: this.turnNumber, lastTurnMessages: this.lastTurnMessages, earlierTurns: this.earlier };
    for (const record of tail(soFar)) this.write(record);
    this.flush();
    if (sync) fs.fsyncSync(this.fd);
    const size = fs.fstatSync(this.fd).size;
    fs.closeSync(this.fd);
    this.closed = true;
    // What is published or reported was written whole: a log another process changed meanwhile, or a short write, is not.
    if (size !== this.startSize + this.written)
      throw new Error(
        `${path.basename(path.dirname(path.dirname(this.file)))}'s log holds ${size} bytes, not the ${this.startSize + this.written} written; nothing is published`,
      );
    return { turns: this.turnNumber, lastTurnMessages: this.lastTurnMessages, earlierTurns: this.earlier, messages: this.messages, appended: this.appended };
  }

  /** Bytes the log holds (what it held before, and what this log wrote). */
  get bytes(): number {
    return this.startSize + this.written;
  }

  /** Messages of the source left out because their shape is not a message's (this log's and its subagents'). */
  get unreadableMessages(): number {
    return this.unreadable + this.children.reduce((n, c) => n + c.unreadableMessages, 0);
  }

  /** Closes the file without writing what is pending (an import that failed; its folder is removed). */
  abandon(): void {
    for (const child of this.children) child.abandon();
    if (!this.closed) fs.closeSync(this.fd);
    this.closed = true;
  }

  private addUsage(record: NewRecord): void {
    if (this.turn) this.turn.records.push({ ...record, turn: this.recordTurn() } as NewRecord);
    else this.write(record);
  }

  /** A subagent's records carry the parent's turn; a main log's its own. */
  private recordTurn(): number {
    return this.usageLog ? this.parentTurn() : this.turnNumber;
  }

  /** Writes a finished turn, or in a re-import leaves out what the log holds already. */
  private settle(turn: BufferedTurn): void {
    const soFar = this.soFar;
    const number = this.turnNumber;
    this.messages += turn.messageIds.length;
    // The hash covers the turns before this one (the newest may still grow in the source).
    if (this.earlierIds.length) this.earlier = sha256Hex(`${this.earlier}\n${this.earlierIds.join('\n')}`);
    const isEarlier = soFar !== null && number < soFar.turns;
    if (!isEarlier) {
      const grewFrom = soFar !== null && number === soFar.turns ? soFar.lastTurnMessages : null;
      if (soFar && number === soFar.turns && this.earlier !== soFar.earlierTurns)
        throw new SourceChangedError('its turns before the last are not those imported');
      if (grewFrom === null || turn.messageIds.length !== grewFrom) {
        if (grewFrom !== null && turn.messageIds.length < grewFrom) throw new SourceChangedError(`its turn ${number} holds fewer messages than were imported`);
        const first = turn.messageIds[0];
        // The last turn grew in the source, or (a repair) every turn is written again: the log's copy is rewound first, conversation only.
        if (first && (grewFrom !== null || (this.rewrite && number === 1 && !this.usageLog)))
          this.write({ t: 'rewind', toTurn: number, messageId: first, files: false, ts: turn.ts });
        this.writeTurn(turn);
      }
    }
    this.earlierIds = turn.sourceIds;
    this.lastTurnMessages = turn.messageIds.length;
  }

  /** A fork's `forked` record, after the turns it shares with its source session (their calls are that session's). */
  private writeForked(lastShared: number): void {
    if (!this.forkOf || this.forkedWritten) return;
    this.forkedWritten = true;
    this.lastSharedTurn = lastShared;
    this.write({ t: 'forked', from: { sessionId: this.forkOf.sessionId, turn: lastShared }, ts: this.lastTs });
  }

  private writeTurn(turn: BufferedTurn): void {
    const model = turn.model ?? this.lastModel;
    const number = this.turnNumber;
    const forkOf = this.forkOf;
    if (forkOf && !turn.messageIds.every((id) => forkOf.ids.has(id))) this.writeForked(number - 1);
    if (!this.usageLog)
      this.write({ t: 'turn_begin', turn: number, promptId: `imported-${number}`, model, ts: turn.ts, ...(turn.branch ? { branch: turn.branch } : {}) });
    // A subagent's log has no turns of its own: its messages and notes only.
    for (const record of turn.records) if (!this.usageLog || record.t !== 'turn_end') this.write(record);
    this.appended += turn.messageIds.length;
  }

  /** Encodes a record's line straight into the write buffer (a line longer than the buffer is written on its own). */
  private write(record: NewRecord): void {
    const { record: written, line } = WireLogWriter.serialize(record);
    if (this.fold) applyRecord(this.fold, written, this.startSize + this.written + this.pendingBytes, Buffer.byteLength(line) - 1);
    if (this.pendingBytes + line.length * 3 > this.buffer.length) this.flush(); // a UTF-16 unit is at most 3 bytes of UTF-8
    if (line.length * 3 > this.buffer.length) this.writeOut(Buffer.from(line));
    else this.pendingBytes += this.buffer.write(line, this.pendingBytes);
  }

  private flush(): void {
    if (this.pendingBytes === 0) return;
    this.writeOut(this.buffer.subarray(0, this.pendingBytes));
    this.pendingBytes = 0;
  }

  private writeOut(bytes: Buffer): void {
    for (let done = 0; done < bytes.length;) done += fs.writeSync(this.fd, bytes, done, bytes.length - done);
    this.written += bytes.length;
  }
}

function promptText(message: Message): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  return content
    .map((b) => (b.type === 'text' ? b.text : ''))
    .join(' ')
    .trim();
}

/** The Braid id of a source's message: the same at every import of it (`idScope` names the tool and the source session). */
export function importedMessageId(idScope: string, sourceId: string): string {
  return `${IMPORTED_MESSAGE}${scopeHash(idScope).copy().update(sourceId).digest('hex').slice(0, 32)}`;
}

/** The hash of a scope's prefix (`<scope>\n`), made once and copied for each id: the same digest as hashing the whole text. */
let scoped: { scope: string; hash: Hash } | null = null;

function scopeHash(idScope: string): Hash {
  if (scoped?.scope !== idScope) scoped = { scope: idScope, hash: createHash('sha256').update(`${idScope}\n`) };
  return scoped.hash;
}

/** Collects the Braid ids of a branch's messages without writing anything (is a source an earlier copy of what was imported?). */
export class MessageIds implements ImportTarget {
  readonly ids = new Set<string>();

  constructor(private readonly idScope: string) {}

  beginTurn(): void {}
  message(m: ImportedMessage): void {
    this.ids.add(importedMessageId(this.idScope, m.sourceId));
  }
  compaction(): void {}
  endTurn(): void {}
  subagent(): { agentId: string; target: ImportTarget } {
    return { agentId: 'agent_discarded', target: new DiscardTarget() };
  }
}

/** Takes a subagent's history that an earlier import wrote already, and drops it. */
class DiscardTarget implements ImportTarget {
  beginTurn(): void {}
  message(): void {}
  compaction(): void {}
  endTurn(): void {}
  subagent(): { agentId: string; target: ImportTarget } {
    return { agentId: 'agent_discarded', target: this };
  }
}
