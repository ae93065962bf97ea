// What the Chat page, its frames and the status bar show of a session. The open session's, from
// memory: the core Session (its queue, context, changes) and its writer's summary, which is what
// its index row is made from; frames come many per turn, and an index query takes index.lock and
// first writes what is pending. A session another process writes (followed read-only), from the
// index row and usage, once per snapshot. No vscode import (test/unit/layering.test.ts checks it).
import { sessionUsageOf, type SessionUsage } from '../../core/format/usage';
import type { UsageTotals } from '../../core/format/sessionState';
import type { TodoList } from '../../core/format/todoList';
import { excerpt } from '../../core/format/textStart';
import { shownTitle, type TitleFields } from '../../core/format/titles';
import type { SessionIndex } from '../../core/index/sessionIndex';
import type { Session } from '../../core/session/session';
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

/** A session's info from the index, or undefined when the index does not have it (its folder went away). */
export function sessionInfo(index: SessionIndex, id: string, queue: QueueView): SessionInfo | undefined {
  const row = index.get(id);
  return row ? infoFrom(id, row, index.sessionUsage(id), queue) : undefined;
}

/**
 * The open session's info, from memory: its summary (title, usage), queue, context, changes and
 * todo list. Undefined when its folder went away under it (a write found it gone).
 */
export function openSessionInfo(session: Session): SessionInfo | undefined {
  const { state, firstPrompt, usage } = session.summary;
  if (state.writeFailure?.kind === 'folder-removed') return undefined;
  const queue = { queue: session.queued, paused: session.isPaused, ...(session.pauseReason ? { pauseReason: session.pauseReason } : {}) };
  return {
    ...infoFrom(session.id, { ...state, firstPrompt }, sessionUsageOf(usage, session.id), queue),
    context: session.contextUse(),
    changes: session.changes(),
    ...todoInfo(session.todos()),
  };
}

function infoFrom(id: string, titled: TitleFields, { own, inherited, history }: SessionUsage, queue: QueueView): SessionInfo {
  return {
    id,
    title: shownTitle(titled),
    // As usage reports count it: the session's own calls, and a fork's inherited ones apart.
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

/** The status bar's title and token count (as the Chat view's usage line counts them), from the index. */
export function sessionStatus(index: SessionIndex, id: string): SessionStatus | undefined {
  const row = index.get(id);
  return row ? statusFrom(row, index.sessionUsage(id)) : undefined;
}

/** The open session's status bar title and token count, from memory. */
export function openSessionStatus(session: Session): SessionStatus {
  const { state, firstPrompt, usage } = session.summary;
  return statusFrom({ ...state, firstPrompt }, sessionUsageOf(usage, session.id));
}

function statusFrom(titled: TitleFields, { own: u }: SessionUsage): SessionStatus {
  return { title: shownTitle(titled), tokens: u.input + u.output + u.cacheRead + u.cacheWrite };
}

/** The model's todo list as the page shows it: none when the session has none, or an empty one. */
export function todoInfo(list: TodoList | null | undefined): Pick<SessionInfo, 'todos'> {
  return list && list.items.length > 0 ? { todos: list.items } : {};
}

function usageInfo(u: UsageTotals): SessionInfo['usage'] {
  return { input: u.input, output: u.output, cacheRead: u.cacheRead, costTotal: u.cost };
}
