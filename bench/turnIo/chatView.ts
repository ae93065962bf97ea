import { shownTitle } from '../../src/core/format/titles';
import type { UsageTotals } from '../../src/core/format/sessionState';
import type { Session } from '../../src/core/session/session';
import type { SessionStore } from '../../src/core/store/sessionStore';
import type { SessionInfo, StreamFrame } from '../../src/protocol/frames';
import { SessionStream } from '../../src/vscode/chat/sessionStream';

/** What the Chat-view consumer did, for the table. */
export interface ChatViewTally {
  frames: number;
}

/**
 * What the Chat view's host does on each event of the Session it shows, without VS Code. The real
 * SessionStream (src/vscode/chat/sessionStream.ts) turns events into frames; the calls of
 * chatSessions.ts, which imports `vscode`, are replayed: its `info(id)` (store.get, the index's
 * sessionUsage) that SessionStream calls for every session-updated frame and a turn's usage, and
 * on `turn-end` and `status` events its onDidChange, whose listener in extension.ts updates the
 * status bar from `status()` (store.get, the index's sessionUsage). A Chat editor tab, which also
 * calls `status()` on onDidChange, is not attached.
 */
export function attachChatView(store: SessionStore, session: Session): ChatViewTally {
  const tally: ChatViewTally = { frames: 0 };
  const stream = new SessionStream(session.id, () => chatInfo(store, session), (frames: StreamFrame[]) => {
    tally.frames += frames.length; // posted to the page in the extension
  });
  session.onEvent((event) => {
    stream.onEvent(event);
    if (event.type === 'turn-end' || event.type === 'status') statusBarStatus(store, session.id);
  });
  return tally;
}

/** ChatSessions.info(id), as chatSessions.ts builds it. */
function chatInfo(store: SessionStore, session: Session): SessionInfo {
  const state = store.get(session.id);
  const { own, inherited, history } = store.index.sessionUsage(session.id);
  const info = (u: UsageTotals) => ({ input: u.input, output: u.output, cacheRead: u.cacheRead, costTotal: u.cost });
  return {
    id: session.id,
    title: shownTitle(state),
    usage: info(own),
    ...(inherited.calls > 0 ? { history: info(history) } : {}),
    queue: session.queued.map((q) => ({ promptId: q.promptId, text: q.text })),
    paused: session.isPaused,
  };
}

/** ChatSessions.status(), which the status bar shows. */
function statusBarStatus(store: SessionStore, id: string): { title: string; model: string; tokens: number } {
  const state = store.get(id);
  const u = store.index.sessionUsage(id).own;
  return { title: shownTitle(state), model: state.model?.id ?? '', tokens: u.input + u.output + u.cacheRead + u.cacheWrite };
}
