// Next-prompt suggestions of the Chat view (docs/ui.md, Chat view). No vscode import: CurrentSession
// owns it, and test/unit/chat/nextPrompts.test.ts drives it through a fake host.
import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import type { SessionEvent } from '../../core/session/events';
import type { Session } from '../../core/session/session';
import type { SuggestionMessage } from '../../protocol/messages';

/**
 * After a completed turn of the shown session, once it is idle with nothing queued, asks it for one
 * next-prompt suggestion (`Session.suggest`) when `wanted` says so, and posts it to the pages. A
 * prompt sent, a turn started or another session shown withdraws it (the call under way is
 * aborted); an answer that arrives after any of these is dropped.
 */
export class NextPrompts {
  /** The session whose last turn completed, until it is idle. */
  private completed: string | undefined;
  /** The call under way, aborted when its answer could no longer be shown. */
  private asking: AbortController | undefined;
  /** The suggestion the pages show. */
  private shown: { readonly sessionId: string; readonly text: string } | undefined;
  /** Bumped by everything that makes an answer under way stale. */
  private epoch = 0;

  constructor(
    /** Whether to ask at all: the setting and the model the next turn would use. */
    private readonly wanted: () => Promise<boolean>,
    private readonly post: (message: SuggestionMessage) => void,
    private readonly logger: Logger,
  ) {}

  /** Every event of the shown session, in order. */
  onEvent(session: Session, event: SessionEvent): void {
    if (event.type === 'turn-start') this.withdraw();
    else if (event.type === 'turn-end') this.completed = event.outcome === 'completed' ? session.id : undefined;
    else if (event.type === 'idle' && this.completed === session.id) {
      this.completed = undefined;
      void this.offer(session);
    }
  }

  /** The suggestion standing for `sessionId`, for a page that renders from scratch. */
  suggestionFor(sessionId: string): string | undefined {
    return this.shown?.sessionId === sessionId ? this.shown.text : undefined;
  }

  /** Takes the suggestion back from the pages and drops the one under way. */
  withdraw(): void {
    this.stop();
    const shown = this.shown;
    this.shown = undefined;
    if (shown) this.post({ type: 'suggestion', sessionId: shown.sessionId, text: null });
  }

  /** Aborts the call under way; nothing more is posted. */
  dispose(): void {
    this.stop();
    this.shown = undefined;
  }

  private stop(): void {
    this.epoch++;
    this.completed = undefined;
    this.asking?.abort();
    this.asking = undefined;
  }

  private async offer(session: Session): Promise<void> {
    const epoch = this.epoch;
    const controller = new AbortController();
    try {
      if (session.queued.length > 0 || !(await this.wanted()) || epoch !== this.epoch) return;
      this.asking = controller;
      const text = await session.suggest(controller.signal);
      if (epoch !== this.epoch || !text) return;
      this.shown = { sessionId: session.id, text };
      this.post({ type: 'suggestion', sessionId: session.id, text });
    } catch (err) {
      // A suggestion is a nicety: its failure is a log line, never a message.
      if (epoch === this.epoch) this.logger.info(`session ${session.id}: no next-prompt suggestion (${errorMessage(err)})`);
    } finally {
      if (this.asking === controller) this.asking = undefined;
    }
  }
}
