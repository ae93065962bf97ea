import type { Session } from '../../src/core/session/session';
import type { SessionStore } from '../../src/core/store/sessionStore';
import type { SessionInfo, StreamFrame } from '../../src/protocol/frames';
import { missingInfo, sessionInfo, sessionStatus, type SessionStatus } from '../../src/vscode/chat/sessionInfo';
import { SessionStream } from '../../src/vscode/chat/sessionStream';

/** What the Chat-view consumer did, for the table. */
export interface ChatViewTally {
  frames: number;
}

/**
 * What the Chat view's host does on each event of the Session it shows, without VS Code: the real
 * SessionStream (src/vscode/chat/sessionStream.ts) turns events into frames, asking for the
 * session's info as CurrentSession does (src/vscode/chat/sessionInfo.ts: the index row and usage,
 * the open session's queue), and on `turn-end` and `status` events the status bar's status is
 * read as extension.ts does. (The "before" column was measured at 5f1b611, whose ChatSessions
 * imported `vscode`: its calls, `store.get` per frame and per status, were replayed then.)
 */
export function attachChatView(store: SessionStore, session: Session): ChatViewTally {
  const tally: ChatViewTally = { frames: 0 };
  const stream = new SessionStream(
    session.id,
    () => chatInfo(store, session),
    (frames: StreamFrame[]) => {
      tally.frames += frames.length; // posted to the page in the extension
    },
  );
  session.onEvent((event) => {
    stream.onEvent(event);
    if (event.type === 'turn-end' || event.type === 'status') statusBarStatus(store, session.id);
  });
  return tally;
}

/** CurrentSession's info of an open session (currentSession.ts, infoOf): the index row and usage, the session's queue. */
function chatInfo(store: SessionStore, session: Session): SessionInfo {
  return sessionInfo(store.index, session.id, { queue: session.queued, paused: session.isPaused }) ?? missingInfo(session.id);
}

/** CurrentSession.status(), which the status bar shows. */
function statusBarStatus(store: SessionStore, id: string): SessionStatus | undefined {
  return sessionStatus(store.index, id);
}
