import { TODO_TOOL } from '../../core/format/todoList';
import { userMessageId } from '../../core/ids';
import type { SessionEvent } from '../../core/session/events';
import type { FrameBody, SessionInfo, StreamFrame, ToolEntry } from '../../protocol/frames';
import { FrameRing } from './frameRing';
import { cacheBreakEntry, compactionEntry, resultText, toEntries, toolCard, type ImageReader } from './transcript';
import type { TurnMode } from '../../core/wire/turnMode';

/**
 * Turns one session's events into stream frames (docs/reference.md, Stream frames): every frame goes into the ring and
 * to the page. It also keeps the frames of the running turn that the log does not hold yet (the
 * answer streaming now, tools running, approvals asked), so a page that comes back mid-turn gets
 * the log's page plus these.
 */
export class SessionStream {
  readonly ring = new FrameRing();
  private live: StreamFrame[] = [];
  private activeRequest: string | undefined;
  /** The running turn and its mode: the prompt committed in it shows the mode. */
  private turnMode: { turn: number; mode: TurnMode } | undefined;
  /** Session usage when the running turn started: a turn's usage is the difference. */
  private usageAtStart: SessionInfo['usage'] | undefined;
  /** User message id -> the page's request id (the prompt's message key). */
  private readonly requestIds = new Map<string, string>();
  /** Tool cards of the committed answer (with their diffs), reused when the calls start. */
  private readonly cards = new Map<string, ToolEntry>();

  constructor(
    readonly sessionId: string,
    private readonly info: () => SessionInfo,
    private readonly send: (frames: StreamFrame[]) => void,
    /** The session's images, for the thumbnails of a prompt's chips. */
    private readonly imageOf?: ImageReader,
  ) {}

  /** The page's request id of the running turn. */
  get active(): string | undefined {
    return this.activeRequest;
  }

  /** Frames of the running turn not yet committed to the log. */
  liveFrames(): StreamFrame[] {
    return this.live.slice();
  }

  /** Adds a frame; `live` ones are kept for a page that comes back before the turn commits them. */
  push(body: FrameBody, live = false): StreamFrame {
    const frame = this.ring.push(body);
    if (live && this.activeRequest) this.keepLive(frame);
    this.send([frame]);
    return frame;
  }

  /** Consecutive deltas of one kind are merged, so the live part stays one entry per answer. */
  private keepLive(frame: StreamFrame): void {
    const last = this.live[this.live.length - 1];
    if (
      frame.kind === 'runtime-event' &&
      last?.kind === 'runtime-event' &&
      (frame.event.type === 'text-delta' || frame.event.type === 'thinking-delta') &&
      last.event.type === frame.event.type
    ) {
      this.live[this.live.length - 1] = { ...frame, event: { ...frame.event, delta: (last.event as { delta: string }).delta + frame.event.delta } };
      return;
    }
    this.live.push(frame);
  }

  onEvent(event: SessionEvent): void {
    const requestId = this.activeRequest;
    switch (event.type) {
      case 'prompt': {
        const { prompt } = event;
        this.requestIds.set(userMessageId(this.sessionId, prompt.messageKey), prompt.messageKey);
        if (prompt.state === 'running') {
          this.activeRequest = prompt.messageKey;
          this.usageAtStart = this.info().usage;
          this.live = [];
        }
        if (prompt.state === 'blocked')
          this.push({
            kind: 'turn-terminal',
            requestId: prompt.messageKey,
            outcome: 'failed',
            error: `Blocked by the UserPromptSubmit hook: ${prompt.reason ?? ''}`,
          });
        else if (prompt.state === 'failed' && this.activeRequest !== prompt.messageKey) {
          // A prompt that failed to start ends here; one cancelled in the queue just leaves it.
          this.push({ kind: 'turn-terminal', requestId: prompt.messageKey, outcome: 'failed', ...(prompt.reason ? { error: prompt.reason } : {}) });
        }
        this.push({ kind: 'session-updated', info: this.info() });
        return;
      }
      case 'turn-start':
        this.turnMode = { turn: event.turn, mode: event.mode };
        if (requestId) this.push({ kind: 'runtime-event', event: { type: 'turn-start', requestId } }, true);
        return;
      case 'text-delta':
      case 'thinking-delta':
        if (requestId) this.push({ kind: 'runtime-event', event: { type: event.type, requestId, delta: event.delta } }, true);
        return;
      case 'tool-start':
        if (requestId)
          this.push(
            {
              kind: 'runtime-event',
              event: { type: 'tool-start', tool: this.cards.get(event.toolCallId) ?? toolCard(event.toolCallId, event.name, event.args) },
            },
            true,
          );
        this.cards.delete(event.toolCallId);
        return;
      case 'tool-end':
        if (requestId)
          this.push(
            {
              kind: 'runtime-event',
              event: {
                type: 'tool-end',
                key: event.toolCallId,
                isError: event.isError,
                result: resultText([{ type: 'text', text: event.text }]),
                ...(event.diff ? { diff: event.diff } : {}),
              },
            },
            true,
          );
        return;
      case 'message': {
        const { message, id } = event.record;
        if (message.role === 'toolResult') {
          // Its card got the result from tool-end; a todo list it set shows above the composer now.
          if (message.toolName === TODO_TOOL && !message.isError) this.push({ kind: 'session-updated', info: this.info() });
          return;
        }
        const { turn, mode } = this.turnMode ?? {};
        const entries = toEntries([event.record], {
          ...(turn !== undefined && mode ? { modes: new Map([[turn, mode]]) } : {}),
          ...(event.context ? { contexts: new Map([[id, event.context]]) } : {}),
          imageOf: this.imageOf,
        });
        this.cards.clear();
        for (const e of entries) if (e.kind === 'tool') this.cards.set(e.key, e);
        const request = message.role === 'user' ? this.requestIds.get(id) : requestId;
        // What was streaming is in the log now; tools of this message have not started yet.
        this.live = [];
        this.push({ kind: 'message-committed', entries, ...(request ? { requestId: request } : {}) });
        return;
      }
      case 'cache-break':
        this.push({ kind: 'message-committed', entries: [cacheBreakEntry(event.record)] });
        return;
      case 'turn-end': {
        if (requestId) {
          // Both ends from the session's info (its own calls), so a fork's inherited history is not a turn's.
          const u = this.info().usage;
          const b = this.usageAtStart ?? { input: 0, output: 0, cacheRead: 0, costTotal: 0 };
          const usage = { input: u.input - b.input, output: u.output - b.output, cacheRead: u.cacheRead - b.cacheRead, costTotal: u.costTotal - b.costTotal };
          const outcome = event.outcome === 'interrupted' ? 'failed' : event.outcome;
          this.push({
            kind: 'turn-terminal',
            requestId,
            outcome,
            ...(event.error ? { error: event.error } : {}),
            ...(event.unsent ? { unsent: true } : {}),
            usage,
          });
        }
        this.activeRequest = undefined;
        this.live = [];
        this.push({ kind: 'session-updated', info: this.info() });
        return;
      }
      case 'status':
        this.push({ kind: 'session-updated', info: this.info() });
        return;
      case 'compaction': {
        const key = 'notice:compaction';
        if (event.phase === 'start') {
          const why =
            event.reason === 'overflow'
              ? 'The model said the conversation is too long: compacting it, then retrying…'
              : 'Compacting the conversation: summarizing its older part…';
          this.push({ kind: 'runtime-event', event: { type: 'notice', key, text: why, tone: 'progress' } }, true);
        } else if (event.phase === 'end' && event.record) {
          this.push({ kind: 'message-committed', entries: [compactionEntry(event.record)] });
          this.push({ kind: 'session-updated', info: this.info() });
        } else {
          this.push(
            {
              kind: 'runtime-event',
              event: { type: 'notice', key, text: event.error ?? 'Compaction did not finish.', tone: event.phase === 'failed' ? 'error' : 'info' },
            },
            true,
          );
        }
        return;
      }
      case 'memory':
        // A failed extraction says so (the memory stays as it was); a memory written changes nothing on the page.
        if (event.error) this.push({ kind: 'runtime-event', event: { type: 'notice', key: 'notice:memory', text: event.error, tone: 'info' } }, true);
        return;
      default:
        return;
    }
  }
}
