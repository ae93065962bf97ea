import type { ApprovalChange, ApprovalChoice, AttachmentChip, SessionInfo, StreamFrame, TranscriptEntry, UsageInfo } from '../../src/protocol/frames';
import type { PageCursor, SessionView, SnapshotMessage } from '../../src/protocol/messages';
import type { TurnMode } from '../../src/protocol/modes';

/** What the page lists: stored entries plus what only lives while a turn runs. */
export type ViewEntry =
  | TranscriptEntry
  | {
      readonly kind: 'pending';
      readonly key: string;
      readonly requestId: string;
      readonly text: string;
      readonly mode?: TurnMode;
      readonly attachments?: readonly AttachmentChip[];
    }
  | { readonly kind: 'live'; readonly key: string; readonly requestId: string; readonly text: string; readonly thinking: string }
  | {
      readonly kind: 'approval';
      readonly key: string;
      readonly tool: string;
      readonly summary: string;
      readonly detail: string;
      readonly commandRisk?: string;
      readonly change?: ApprovalChange;
      readonly args?: string;
      readonly alwaysRule?: string;
      readonly decision?: ApprovalChoice;
    }
  | { readonly kind: 'status'; readonly key: string; readonly outcome: string; readonly text: string }
  | { readonly kind: 'notice'; readonly key: string; readonly text: string; readonly tone: 'progress' | 'info' | 'error' };

const liveKey = (requestId: string) => `live:${requestId}`;
const pendingKey = (requestId: string) => `req:${requestId}`;
/** The key of the page's note on the next turn's model. */
const MODEL_NOTE = 'note:model';

/** Usage as one short line: "32 in, 10 cached · 7 out". */
export function describeUsage(u: { input: number; output: number; cacheRead: number; costTotal: number }): string {
  const cached = u.cacheRead ? `, ${u.cacheRead} cached` : '';
  const cost = u.costTotal ? ` · $${u.costTotal.toFixed(4)}` : '';
  return `${u.input} in${cached} · ${u.output} out${cost}`;
}

/**
 * The session's usage line: its own calls, and for a fork what its whole history cost, labelled
 * (the inherited calls are counted under the session they came from). Empty before any call.
 */
export function usageLine(info: { usage: UsageInfo; history?: UsageInfo }): string {
  const { usage: u, history } = info;
  if (!history && u.input + u.output + u.cacheRead === 0) return '';
  return `Session: ${describeUsage(u)}${history ? ` · with inherited history: ${describeUsage(history)}` : ''}`;
}

/**
 * The Chat page's state, without any DOM: the entries of the shown session, built from a
 * snapshot and kept current by stream frames. Entries are immutable; a changed entry is a new
 * object, so a renderer can tell what changed by identity. Applying frames is idempotent by key.
 */
export class ChatModel {
  entries: ViewEntry[] = [];
  sessionId = '';
  info: SessionInfo | undefined;
  readOnly = false;
  /** Why the session is read-only here, when the page's default note does not say it. */
  readOnlyReason: string | undefined;
  /** Lines of the shown page's log that were skipped as unreadable. */
  damagedLines = 0;
  /** What the rewind just made did, while Undo can take it back; undefined otherwise. */
  undoableRewind: string | undefined;
  before: PageCursor | undefined;
  /** The request id of the turn running (or just sent and not started). */
  running: string | undefined;
  cursor = 0;

  /** Replaces everything with a snapshot; frames of the running turn are replayed on top. */
  applySnapshot(snapshot: Pick<SnapshotMessage, 'session' | 'live' | 'cursor'>): void {
    const session: SessionView | null = snapshot.session;
    this.entries = [...(session?.entries ?? [])];
    this.sessionId = session?.info.id ?? '';
    this.info = session?.info;
    this.readOnly = session?.readOnly === true;
    this.readOnlyReason = session?.readOnlyReason;
    this.damagedLines = session?.damagedLines ?? 0;
    this.undoableRewind = session?.undoableRewind;
    this.before = session?.before;
    this.running = session?.activeRequest;
    for (const frame of snapshot.live) this.apply(frame);
    this.cursor = snapshot.cursor;
  }

  /**
   * Applies frames in order. Returns false on a gap (a frame after the next expected one): the
   * page then asks for what it missed. Frames it has seen are skipped.
   */
  applyFrames(sessionId: string, frames: readonly StreamFrame[]): boolean {
    if (sessionId && this.sessionId && sessionId !== this.sessionId) return true; // another session's late frames
    for (const frame of frames) {
      if (frame.cursor === 0) {
        // a message for a session that does not exist yet
        this.apply(frame);
        continue;
      }
      if (frame.cursor <= this.cursor) continue;
      if (this.cursor !== 0 && frame.cursor !== this.cursor + 1) return false;
      this.apply(frame);
      this.cursor = frame.cursor;
    }
    return true;
  }

  /** A prompt the user just sent, shown until the host commits it. */
  addPending(requestId: string, text: string, mode?: TurnMode, attachments: readonly AttachmentChip[] = []): void {
    this.undoableRewind = undefined; // the session goes on: the host no longer offers Undo
    this.entries.push({
      kind: 'pending',
      key: pendingKey(requestId),
      requestId,
      text,
      ...(mode && mode !== 'agent' ? { mode } : {}),
      ...(attachments.length > 0 ? { attachments } : {}),
    });
    this.running = requestId;
  }

  /**
   * A line after the newest entry saying which model the next turn uses (after a switch). Only
   * the page shows it; the newest one replaces any earlier.
   */
  noteModel(text: string): void {
    this.entries = this.entries.filter((e) => e.key !== MODEL_NOTE);
    this.entries.push({ kind: 'notice', key: MODEL_NOTE, text, tone: 'info' });
  }

  /** The text of a prompt this page sent and shows as pending (not yet in the log). */
  pendingText(requestId: string): string | undefined {
    const entry = this.entries[this.find(pendingKey(requestId))];
    return entry?.kind === 'pending' ? entry.text : undefined;
  }

  /** Entries of an older page go before the ones shown. */
  prependOlder(sessionId: string, entries: readonly TranscriptEntry[], before: PageCursor | undefined): number {
    if (sessionId !== this.sessionId) return 0;
    const known = new Set(this.entries.map((e) => e.key));
    const fresh = entries.filter((e) => !known.has(e.key));
    this.entries.unshift(...fresh);
    this.before = before;
    return fresh.length;
  }

  private find(key: string): number {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i]!.key === key) return i;
    return -1;
  }

  private upsert(entry: ViewEntry): void {
    const at = this.find(entry.key);
    if (at >= 0) this.entries[at] = entry;
    else this.entries.push(entry);
  }

  private patch<K extends ViewEntry['kind']>(key: string, kind: K, change: (e: Extract<ViewEntry, { kind: K }>) => ViewEntry): void {
    const at = this.find(key);
    const entry = this.entries[at];
    if (entry?.kind === kind) this.entries[at] = change(entry as Extract<ViewEntry, { kind: K }>);
  }

  private apply(frame: StreamFrame): void {
    switch (frame.kind) {
      case 'runtime-event': {
        const event = frame.event;
        switch (event.type) {
          case 'turn-start':
            this.running = event.requestId;
            return;
          case 'text-delta':
          case 'thinking-delta': {
            const key = liveKey(event.requestId);
            if (this.find(key) < 0) this.entries.push({ kind: 'live', key, requestId: event.requestId, text: '', thinking: '' });
            this.patch(key, 'live', (e) => (event.type === 'text-delta' ? { ...e, text: e.text + event.delta } : { ...e, thinking: e.thinking + event.delta }));
            return;
          }
          case 'tool-start':
            this.upsert(event.tool);
            return;
          case 'tool-end':
            this.patch(event.key, 'tool', (e) => ({
              ...e,
              status: event.isError ? 'error' : 'done',
              result: event.result,
              ...(event.diff ? { diff: event.diff } : {}),
            }));
            return;
          case 'approval':
            this.upsert({
              kind: 'approval',
              key: event.approvalId,
              tool: event.tool,
              summary: event.summary,
              detail: event.detail,
              ...(event.commandRisk ? { commandRisk: event.commandRisk } : {}),
              ...(event.change ? { change: event.change } : {}),
              ...(event.args ? { args: event.args } : {}),
              ...(event.alwaysRule ? { alwaysRule: event.alwaysRule } : {}),
            });
            return;
          case 'approval-resolved':
            this.patch(event.approvalId, 'approval', (e) => ({ ...e, decision: event.decision }));
            return;
          case 'notice':
            this.upsert({ kind: 'notice', key: event.key, text: event.text, tone: event.tone });
            return;
        }
        return;
      }
      case 'message-committed': {
        const live = frame.requestId ? this.find(liveKey(frame.requestId)) : -1;
        const inserted: ViewEntry[] = [];
        for (const entry of frame.entries) {
          const pending = entry.kind === 'user' && frame.requestId ? this.find(pendingKey(frame.requestId)) : -1;
          const at = pending >= 0 ? pending : this.find(entry.key);
          if (at >= 0) this.entries[at] = entry;
          else inserted.push(entry);
        }
        // What streamed is now stored: the committed entries take the live entry's place.
        if (live >= 0) this.entries.splice(live, 1, ...inserted);
        else this.entries.push(...inserted);
        // A compaction that finished replaces its progress line.
        if (frame.entries.some((e) => e.kind === 'compaction')) this.entries = this.entries.filter((e) => !(e.kind === 'notice' && e.tone === 'progress'));
        return;
      }
      case 'turn-terminal': {
        // A held prompt that failed before its answer was never written: it leaves the transcript (the page gives its text back).
        if (frame.unsent) this.entries = this.entries.filter((e) => e.key !== pendingKey(frame.requestId));
        const live = this.find(liveKey(frame.requestId));
        if (live >= 0) {
          const e = this.entries[live] as Extract<ViewEntry, { kind: 'live' }>;
          // Text that never reached the log (the turn broke mid-answer) stays, as an answer.
          if (e.text.trim() || e.thinking.trim()) this.entries[live] = { kind: 'assistant', key: `${e.key}:end`, text: e.text, thinking: e.thinking };
          else this.entries.splice(live, 1);
        }
        const counted = frame.usage && frame.usage.input + frame.usage.output + frame.usage.cacheRead > 0;
        const text =
          frame.outcome === 'completed'
            ? counted
              ? describeUsage(frame.usage!)
              : ''
            : frame.outcome === 'cancelled'
              ? 'Stopped.'
              : (frame.error ?? 'Failed.');
        this.upsert({ kind: 'status', key: `end:${frame.requestId}`, outcome: frame.outcome, text });
        if (this.running === frame.requestId) this.running = undefined;
        return;
      }
      case 'session-updated':
        this.info = frame.info;
        this.sessionId = frame.info.id;
        return;
      case 'messages-rewound':
      case 'resync-required':
        return; // the host follows these with a snapshot
    }
  }
}
