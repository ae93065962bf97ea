// The model's todo list (docs/reference.md, Tools: todo_write): each call of the tool gives the
// whole list, and the log's fold keeps the newest one per turn, so a fork or a rewind has the
// list as of its turn without a record of its own.

/** Where an item of the todo list stands. */
export type TodoStatus = 'pending' | 'in_progress' | 'done';

/** One item of the model's todo list. */
export interface TodoItem {
  readonly text: string;
  readonly status: TodoStatus;
}

/** The list as of a turn: its items, and the turn of the todo_write call that set them. */
export interface TodoList {
  readonly turn: number;
  readonly items: readonly TodoItem[];
}

/** The tool's name, as the model calls it and the fold finds its results. */
export const TODO_TOOL = 'todo_write';

/** Bounds of a list: a list is a plan to glance at, not a document. */
export const TODO_LIMITS = { items: 50, textChars: 300 };

/**
 * A list has gone stale when it has unfinished items and this many turns went by without a
 * todo_write call: the turn after them, and every this many turns after that, get a reminder.
 */
export const TODO_STALE_TURNS = 3;

const STATUSES: ReadonlySet<unknown> = new Set(['pending', 'in_progress', 'done']);

const MARKS: Record<TodoStatus, string> = { pending: '[ ]', in_progress: '[~]', done: '[x]' };

/** The items of a todo_write call's arguments, or why they are not a list (a sentence for the model). */
export function parseTodoItems(raw: unknown): TodoItem[] | { error: string } {
  const todos = (raw as { todos?: unknown } | null)?.todos;
  if (!Array.isArray(todos)) return { error: 'todos must be a list of items, each with text and status.' };
  if (todos.length > TODO_LIMITS.items) return { error: `A todo list holds at most ${TODO_LIMITS.items} items; this one has ${todos.length}.` };
  const items: TodoItem[] = [];
  for (const [i, x] of todos.entries()) {
    const { text, status } = (x ?? {}) as { text?: unknown; status?: unknown };
    if (typeof text !== 'string' || !text.trim()) return { error: `Item ${i + 1} has no text.` };
    if (!STATUSES.has(status)) return { error: `Item ${i + 1} has status ${JSON.stringify(status)}; use pending, in_progress or done.` };
    if (text.length > TODO_LIMITS.textChars) return { error: `Item ${i + 1} is longer than ${TODO_LIMITS.textChars} characters; say it shorter.` };
    items.push({ text: text.trim(), status: status as TodoStatus });
  }
  return items;
}

/** The items a todo_write result's details hold, when they are well-formed (a hand-made log's may not be). */
export function todoItemsOf(details: unknown): TodoItem[] | undefined {
  const parsed = parseTodoItems(details);
  return Array.isArray(parsed) ? parsed : undefined;
}

/** The list as plain text, one item a line with its mark: what the model reads back. */
export function todoListText(items: readonly TodoItem[]): string {
  if (items.length === 0) return '(the todo list is empty)';
  return items.map((i) => `${MARKS[i.status]} ${i.text}`).join('\n');
}

/** Whether every item is done (an empty list too): nothing left to remind of. */
export function todoListFinished(items: readonly TodoItem[]): boolean {
  return items.every((i) => i.status === 'done');
}

/**
 * The reminder for the turn numbered `turn`, when the list has gone stale by then (see
 * {@link TODO_STALE_TURNS}); undefined when there is no list, it is finished, or it is fresh.
 */
export function staleTodoReminder(list: TodoList | null, turn: number): string | undefined {
  if (!list || todoListFinished(list.items)) return undefined;
  const idle = turn - 1 - list.turn; // turns that went by without a todo_write call
  if (idle < TODO_STALE_TURNS || idle % TODO_STALE_TURNS !== 0) return undefined;
  return [
    `Your todo list has unfinished items and you have not updated it for ${idle} turns:`,
    todoListText(list.items),
    'If it still describes the work, go on with it and mark items as they change with todo_write; if it is out of date, rewrite it (or clear it with an empty list). Do not mention this reminder to the user.',
  ].join('\n');
}
