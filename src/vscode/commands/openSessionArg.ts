// What Braid: Open Session is given: a session id (the Sessions tree, the status bar), `{ id }`,
// `{ id, turn }` (a blamed line's hover or CodeLens, through a command: link) or `{ query }` (the
// chat's `/sessions <query>`). A command: link carries whatever its markdown says, so every field
// is checked. No vscode import: unit tests read it.
import { isSessionId } from '../../core/ids';

/** The session to open (none: the QuickPick asks), the turn to open it at, the search to type in. */
export interface OpenSessionArg {
  readonly id?: string;
  readonly turn?: number;
  readonly query?: string;
}

/** The argument checked, or what is wrong with it (said to the user). */
export function openSessionArg(arg: unknown): OpenSessionArg | { problem: string } {
  if (arg === undefined || arg === null) return {};
  if (typeof arg === 'string') return isSessionId(arg) ? { id: arg } : { problem: `"${arg.slice(0, 40)}" is not a session id` };
  if (typeof arg !== 'object') return { problem: 'Open Session was given something that is not a session' };
  const { id, turn, query } = arg as { id?: unknown; turn?: unknown; query?: unknown };
  if (id !== undefined && (typeof id !== 'string' || !isSessionId(id))) return { problem: `${JSON.stringify(id)?.slice(0, 40)} is not a session id` };
  if (turn !== undefined && (id === undefined || !Number.isSafeInteger(turn) || (turn as number) < 1))
    return { problem: `${JSON.stringify(turn)?.slice(0, 40)} is not a turn of a session (turns count from 1)` };
  return { id, turn: turn as number | undefined, query: typeof query === 'string' ? query : undefined };
}
