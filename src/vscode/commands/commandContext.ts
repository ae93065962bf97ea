import type { Logger } from '../../core/logger';
import type { SessionStore } from '../../core/store/sessionStore';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import type { ChatHub } from '../chat/chatHub';
import { NO_STORE } from '../chat/chatHost';
import { UserFacingError } from '../reported';

/** What commands work with: the window's chat, its workspace, the store, the log. */
export interface CommandContext {
  readonly chat: ChatHub;
  readonly logger: Logger;
  /** The window's first workspace folder, and its key in the store. */
  readonly workspaceDir: string | undefined;
  readonly workspaceKey: string | undefined;
  /** The session store; throws the one message about a store that could not be opened (the log says why). */
  requireStore(): SessionStore;
  /** Shows a session's row in the Sessions tree (a new fork under its source). */
  revealSession(id: string): void;
}

/** The commands' context; `store` is undefined when it failed to open. */
export function commandContext(options: {
  chat: ChatHub;
  logger: Logger;
  store: SessionStore | undefined;
  workspaceDir: string | undefined;
  revealSession: (id: string) => void;
}): CommandContext {
  const { store, workspaceDir } = options;
  return {
    chat: options.chat,
    logger: options.logger,
    workspaceDir,
    workspaceKey: workspaceDir ? workspaceKey(workspaceDir) : undefined,
    requireStore: () => {
      if (!store) throw new UserFacingError(NO_STORE);
      return store;
    },
    revealSession: options.revealSession,
  };
}
