// What the Chat page, its frames and the status bar show of a session, from memory: the index row
// (title, status, model), the index's usage and the open session's queue. No state.json read:
// frames come many per turn. No vscode import (test/unit/layering.test.ts checks it).
import type { UsageTotals } from '../../core/format/sessionState';
import type { TodoList } from '../../core/format/todoList';
import { excerpt } from '../../core/format/textStart';
import { shownTitle } from '../../core/format/titles';
import type { SessionIndex } from '../../core/index/sessionIndex';
import type { SessionInfo } from '../../protocol/frames';

/** The queue as the page shows it: prompts waiting, and whether they wait for the user. */
export interface QueueView {
  readonly queue: readonly { readonly promptId: string; readonly text: string }[];
  readonly paused: boolean;
  readonly pauseReason?: string;
}

/** The units of a queued prompt its chip carries (it shows one line of them, and all in its tooltip): a prompt can be megabytes. */
export const QUEUED_CHIP_TEXT = 2000;

/**
 * What the status bar shows of the current session. No model: the status bar names the model the
 * Chat page's header does (the one the next prompt uses), not the one the log last names (an
 * imported session's is another tool's).
 */
export interface SessionStatus {
  readonly title: string;
  readonly tokens: number;
}

/** A session's info, or undefined when the index does not have it (its folder went away). */
export function sessionInfo(index: SessionIndex, id: string, queue: QueueView): SessionInfo | undefined {
  const row = index.get(id);
  if (!row) return undefined;
  // As usage reports count it: the session's own calls, and a fork's inherited ones apart.
  const { own, inherited, history } = index.sessionUsage(id);
  return {
    id,
    title: shownTitle(row),
    usage: usageInfo(own),
    ...(inherited.calls > 0 ? { history: usageInfo(history) } : {}),
    queue: queue.queue.map((q) => ({ promptId: q.promptId, text: excerpt(q.text, QUEUED_CHIP_TEXT) })),
    paused: queue.paused,
    ...(queue.pauseReason ? { pauseReason: queue.pauseReason } : {}),
  };
}

/** The info of a session whose folder went away under the window: shown as an error, nothing counted. */
export function missingInfo(id: string): SessionInfo {
  return { id, title: '', usage: { input: 0, output: 0, cacheRead: 0, costTotal: 0 }, queue: [], paused: false };
}

/** The status bar's title and token count (as the Chat view's usage line counts them). */
export function sessionStatus(index: SessionIndex, id: string): SessionStatus | undefined {
  const row = index.get(id);
  if (!row) return undefined;
  const u = index.sessionUsage(id).own;
  return { title: shownTitle(row), tokens: u.input + u.output + u.cacheRead + u.cacheWrite };
}

/** The model's todo list as the page shows it: none when the session has none, or an empty one. */
export function todoInfo(list: TodoList | null | undefined): Pick<SessionInfo, 'todos'> {
  return list && list.items.length > 0 ? { todos: list.items } : {};
}

function usageInfo(u: UsageTotals): SessionInfo['usage'] {
  return { input: u.input, output: u.output, cacheRead: u.cacheRead, costTotal: u.cost };
}
