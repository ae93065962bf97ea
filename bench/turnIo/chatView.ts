import type { Session } from '../../src/core/session/session';
import type { StreamFrame } from '../../src/protocol/frames';
import { missingInfo, openSessionInfo, openSessionStatus } from '../../src/vscode/chat/sessionInfo';
import { SessionStream } from '../../src/vscode/chat/sessionStream';

/** What the Chat-view consumer did, for the table. */
export interface ChatViewTally {
  frames: number;
}

/**
 * What the Chat view's host does on each event of the Session it shows, without VS Code: the real
 * SessionStream (src/vscode/chat/sessionStream.ts) turns events into frames, asking for the
 * session's info as CurrentSession does (its infoOf: sessionInfo.ts's openSessionInfo, from the
 * session in memory), and on `turn-end` and `status` events the status bar's status is read as
 * CurrentSession.status() reads it for extension.ts (openSessionStatus). (The "before" column was
 * measured at the parent of this change, whose infoOf and status() asked the index for the
 * session's row and usage: sessionInfo and sessionStatus over store.index.)
 */
export function attachChatView(session: Session): ChatViewTally {
  const tally: ChatViewTally = { frames: 0 };
  const stream = new SessionStream(
    session.id,
    () => openSessionInfo(session) ?? missingInfo(session.id),
    (frames: StreamFrame[]) => {
      tally.frames += frames.length; // posted to the page in the extension
    },
  );
  session.onEvent((event) => {
    stream.onEvent(event);
    if (event.type === 'turn-end' || event.type === 'status') openSessionStatus(session);
  });
  return tally;
}
