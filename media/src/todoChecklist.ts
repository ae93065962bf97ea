import type { TodoEntry } from '../../src/protocol/frames';

/** Each status's icon and words (the icon's tooltip and what a screen reader says). */
const STATUS: Record<TodoEntry['status'], { icon: string; words: string }> = {
  pending: { icon: 'circle-large-outline', words: 'to do' },
  in_progress: { icon: 'arrow-circle-right', words: 'in progress' },
  done: { icon: 'pass-filled', words: 'done' },
};

/** The checklist's head: how far the list is, and, folded, the item in progress (the rows show it otherwise). */
export function todoHeadline(todos: readonly TodoEntry[], folded: boolean): string {
  const done = todos.filter((t) => t.status === 'done').length;
  const current = folded ? todos.find((t) => t.status === 'in_progress') : undefined;
  return `Todos · ${done} of ${todos.length} done${current ? ` · ${current.text}` : ''}`;
}

/**
 * The model's todo list as a checklist above the composer (its last todo_write call, as of the
 * session's last effective turn): one line per item with its status. The user can fold it; it is
 * hidden when the session has no list.
 */
export class TodoChecklist {
  private open = true;
  private shownKey = '';

  constructor(private readonly root: HTMLElement) {}

  show(todos: readonly TodoEntry[] | undefined): void {
    this.root.hidden = !todos || todos.length === 0;
    if (!todos || this.root.hidden) return;
    const key = JSON.stringify([todos, this.open]);
    if (key === this.shownKey) return; // rebuilt only when it changes, not on every frame
    this.shownKey = key;
    this.root.replaceChildren(this.head(todos), ...(this.open ? [this.list(todos)] : []));
  }

  private head(todos: readonly TodoEntry[]): HTMLElement {
    const toggle = document.createElement('button');
    toggle.type = 'button';
    toggle.className = 'todos-toggle';
    toggle.title = this.open ? 'Hide the todo list' : 'Show the todo list';
    toggle.setAttribute('aria-expanded', String(this.open));
    toggle.append(icon(this.open ? 'chevron-down' : 'chevron-right'));
    const text = document.createElement('span');
    text.className = 'todos-title';
    text.textContent = todoHeadline(todos, !this.open);
    toggle.append(text);
    toggle.addEventListener('click', () => {
      this.open = !this.open;
      this.show(todos);
    });
    return toggle;
  }

  private list(todos: readonly TodoEntry[]): HTMLElement {
    const list = document.createElement('ul');
    list.className = 'todos-list';
    list.setAttribute('aria-label', "The agent's todo list");
    for (const todo of todos) {
      const row = document.createElement('li');
      row.className = 'todo';
      row.dataset.status = todo.status;
      const mark = icon(STATUS[todo.status].icon);
      mark.title = STATUS[todo.status].words;
      const text = document.createElement('span');
      text.className = 'todo-text';
      text.textContent = todo.text;
      const words = document.createElement('span');
      words.className = 'visually-hidden';
      words.textContent = ` (${STATUS[todo.status].words})`;
      row.append(mark, text, words);
      list.append(row);
    }
    return list;
  }
}

function icon(name: string): HTMLElement {
  const i = document.createElement('span');
  i.className = `codicon codicon-${name}`;
  i.setAttribute('aria-hidden', 'true');
  return i;
}
