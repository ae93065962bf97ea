import type { ChangedFile, ChangeScope, ChangesInfo } from '../../src/protocol/frames';
import type { ChangesMessage } from '../../src/protocol/messages';

/** What each file status shows: a letter, as VS Code's Source Control does, and its words. */
/** What an empty list says: nothing is left to review there (kept, undone, or never changed). */
const EMPTY: Record<ChangeScope, string> = {
  turn: 'Nothing left to review from the last turn.',
  session: 'Nothing left to review in this session.',
};

const STATUS: Record<ChangedFile['status'], { letter: string; words: string }> = {
  added: { letter: 'A', words: 'new file' },
  modified: { letter: 'M', words: 'modified' },
  deleted: { letter: 'D', words: 'deleted' },
};

function button(label: string, title: string, icon: string, run: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.title = title;
  b.setAttribute('aria-label', title);
  const i = document.createElement('span');
  i.className = `codicon codicon-${icon}`;
  i.setAttribute('aria-hidden', 'true');
  b.append(i);
  if (label) b.append(label);
  b.addEventListener('click', run);
  return b;
}

function span(className: string, text: string): HTMLElement {
  const s = document.createElement('span');
  s.className = className;
  s.textContent = text;
  return s;
}

/**
 * The Changes list above the composer (like Source Control's working tree): the files Braid
 * changed in the last turn or in the session that the user has not kept or undone, each with
 * Open Diff (a click on its name), Keep and Undo, and Keep All / Undo All for the scope shown.
 * Undo is unavailable while a turn runs; the list is hidden when nothing is listed.
 */
export class ChangesList {
  private scope: ChangeScope;
  private open = true;
  private shownKey = '';

  constructor(
    private readonly root: HTMLElement,
    private readonly post: (message: ChangesMessage) => void,
    scope: ChangeScope | undefined,
    /** The user chose a scope or folded the list: show it again (and keep the scope). */
    private readonly onChange: (scope: ChangeScope) => void,
  ) {
    this.scope = scope ?? 'turn';
  }

  show(info: ChangesInfo | undefined, running: boolean, readOnly: boolean): void {
    const files = { turn: info?.thisTurn ?? [], session: info?.session ?? [] };
    this.root.hidden = readOnly || (files.turn.length === 0 && files.session.length === 0);
    if (this.root.hidden) return;
    const key = JSON.stringify([files, running, this.scope, this.open]);
    if (key === this.shownKey) return; // rebuilt only when it changes, not on every frame
    this.shownKey = key;
    this.root.dataset.scope = this.scope;
    this.root.replaceChildren(this.head(files, running), ...(this.open ? [this.list(files[this.scope], running)] : []));
  }

  private head(files: Record<ChangeScope, readonly ChangedFile[]>, running: boolean): HTMLElement {
    const head = document.createElement('div');
    head.className = 'changes-head';
    const toggle = button('', this.open ? 'Hide the changed files' : 'Show the changed files', this.open ? 'chevron-down' : 'chevron-right', () => {
      this.open = !this.open;
      this.onChange(this.scope);
    });
    toggle.className = 'changes-toggle';
    toggle.setAttribute('aria-expanded', String(this.open));
    const shown = files[this.scope];
    toggle.append(span('changes-title', `Changes · ${shown.length} ${shown.length === 1 ? 'file' : 'files'}`));
    const scopes = document.createElement('span');
    scopes.className = 'changes-scopes';
    scopes.setAttribute('role', 'radiogroup');
    scopes.setAttribute('aria-label', 'Which changes');
    for (const [scope, label] of [
      ['turn', 'This Turn'],
      ['session', 'Session'],
    ] as const) {
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.scope = scope;
      b.setAttribute('role', 'radio');
      b.setAttribute('aria-checked', String(scope === this.scope));
      b.textContent = `${label} (${files[scope].length})`;
      b.title = scope === 'turn' ? 'The files the last turn changed' : 'Every file this session changed';
      b.addEventListener('click', () => this.choose(scope));
      scopes.append(b);
    }
    const keepAll = button('Keep All', 'Keep every listed file as it is', 'check-all', () => this.act('keep', 'all'));
    const undoAll = button('Undo All', 'Undo every listed file: each gets its content from before back', 'discard', () => this.act('undo', 'all'));
    keepAll.dataset.role = 'changes-keep-all';
    undoAll.dataset.role = 'changes-undo-all';
    undoAll.disabled = running || shown.length === 0;
    keepAll.disabled = shown.length === 0;
    head.append(toggle, scopes, keepAll, undoAll);
    return head;
  }

  private list(files: readonly ChangedFile[], running: boolean): HTMLElement {
    const list = document.createElement('ul');
    list.className = 'changes-list';
    list.setAttribute('aria-label', this.scope === 'turn' ? 'Files changed in the last turn' : 'Files changed in this session');
    if (files.length === 0) list.append(span('changes-empty', EMPTY[this.scope]));
    for (const file of files) {
      const row = document.createElement('li');
      row.className = 'change';
      row.dataset.key = file.key;
      row.dataset.status = file.status;
      const name = button('', `Open the change of ${file.path} in the diff editor`, 'diff', () =>
        this.post({ type: 'changes', action: 'diff', scope: this.scope, keys: [file.key] }),
      );
      name.className = 'change-name';
      name.append(span('change-path', file.path));
      const status = span('change-status', STATUS[file.status].letter);
      status.title = STATUS[file.status].words;
      const lines = file.added === undefined ? span('change-lines', '') : span('change-lines', `+${file.added} \u2212${file.removed}`);
      const keep = button('', `Keep ${file.path} as it is`, 'check', () => this.act('keep', [file.key]));
      const undo = button('', `Undo Braid's changes to ${file.path}`, 'discard', () => this.act('undo', [file.key]));
      keep.dataset.action = 'keep';
      undo.dataset.action = 'undo';
      undo.disabled = running;
      if (running) undo.title = 'A turn is running; undo when it has ended';
      row.append(name, lines, status, keep, undo);
      list.append(row);
    }
    return list;
  }

  private choose(scope: ChangeScope): void {
    this.scope = scope;
    this.onChange(scope);
  }

  private act(action: 'keep' | 'undo', keys: readonly string[] | 'all'): void {
    this.post({ type: 'changes', action, scope: this.scope, keys });
  }
}
