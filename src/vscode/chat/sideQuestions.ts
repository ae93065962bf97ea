import type { AssistantMessage } from '@mariozechner/pi-ai';
import { errorMessage } from '../../core/errors';
import type { Session } from '../../core/session/session';
import { keepSideQuestion } from '../../core/store/fork';
import type { SessionStore } from '../../core/store/sessionStore';
import type { HostToWebview } from '../../protocol/messages';

/**
 * Side questions (/btw) of the Chat view: answered in the page's overlay, never part of the
 * session; an answered one can be kept as a `peek` fork.
 */
export class SideQuestions {
  private readonly answered = new Map<string, { question: string; message: AssistantMessage; sessionId: string }>();

  constructor(private readonly post: (message: HostToWebview) => void) {}

  async ask(session: Session | undefined, id: string, question: string): Promise<void> {
    if (!session) {
      this.post({ type: 'sideAnswer', id, question, state: 'failed', text: 'Open or start a session first: a side question is asked about its conversation.' });
      return;
    }
    this.post({ type: 'sideAnswer', id, question, state: 'asking', text: '' });
    try {
      const { text, message } = await session.ask(question);
      this.answered.set(id, { question, message, sessionId: session.id });
      this.post({ type: 'sideAnswer', id, question, state: 'answered', text });
    } catch (err) {
      this.post({ type: 'sideAnswer', id, question, state: 'failed', text: errorMessage(err) });
    }
  }

  /** Keeps an answered side question as a fork of its session in `store`; returns the fork's id. */
  async keep(store: SessionStore, id: string): Promise<string | undefined> {
    const side = this.answered.get(id);
    if (!side) return undefined;
    const fork = await keepSideQuestion(store, side.sessionId, side.question, side.message);
    this.answered.delete(id);
    this.post({ type: 'sideAnswer', id, question: side.question, state: 'kept', text: fork.title });
    return fork.id;
  }
}
