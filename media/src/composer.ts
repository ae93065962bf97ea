import { completions, SLASH_HELP } from './slashCommands';

/**
 * The prompt input: Enter sends, Shift+Enter breaks the line, Ctrl/Cmd+Enter steers into the
 * running turn; typing "/" offers the slash commands (arrows choose, Tab or Enter completes);
 * Up on the first line and Down on the last walk through earlier prompts.
 */
export class Composer {
  private choices: typeof SLASH_HELP = [];
  private selected = 0;
  /** Earlier prompts, newest first; Up walks back through them like a shell. */
  private history: string[] = [];
  private historyIndex = -1;
  private draft = '';

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly list: HTMLElement,
    private readonly submit: (text: string, steer: boolean) => void,
    private readonly onDraft: (text: string) => void,
  ) {
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', 'Slash commands');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-controls', list.id);
    input.addEventListener('input', () => {
      this.onDraft(input.value);
      this.suggest();
    });
    input.addEventListener('keydown', (event) => this.key(event));
  }

  get value(): string {
    return this.input.value;
  }

  set value(text: string) {
    this.input.value = text;
    this.onDraft(text);
    this.suggest();
  }

  /** The prompts Up and Down walk through, newest first. */
  setHistory(prompts: readonly string[]): void {
    this.history = [...prompts];
    this.historyIndex = -1;
  }

  /** A prompt just sent becomes the newest of the history. */
  remember(prompt: string): void {
    this.history = [prompt, ...this.history.filter((p) => p !== prompt)];
    this.historyIndex = -1;
  }

  /** Moves through the history; false at either end (the key then moves the caret as usual). */
  private walk(step: 1 | -1): boolean {
    const next = this.historyIndex + step;
    if (next < -1 || next >= this.history.length) return false;
    if (this.historyIndex === -1) this.draft = this.input.value;
    this.historyIndex = next;
    this.input.value = next === -1 ? this.draft : this.history[next]!;
    this.input.setSelectionRange(this.input.value.length, this.input.value.length);
    this.onDraft(this.input.value);
    return true;
  }

  private key(event: KeyboardEvent): void {
    if (event.isComposing) return;
    if (
      this.choices.length === 0 &&
      (event.key === 'ArrowUp' || event.key === 'ArrowDown') &&
      !event.shiftKey &&
      !event.altKey &&
      !event.ctrlKey &&
      !event.metaKey
    ) {
      const { value, selectionStart, selectionEnd } = this.input;
      const onFirstLine = selectionStart === selectionEnd && !value.slice(0, selectionStart).includes('\n');
      const onLastLine = selectionStart === selectionEnd && !value.slice(selectionEnd).includes('\n');
      if ((event.key === 'ArrowUp' && onFirstLine && this.walk(1)) || (event.key === 'ArrowDown' && onLastLine && this.walk(-1))) {
        event.preventDefault();
        return;
      }
    }
    if (this.choices.length > 0) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        this.selected = (this.selected + (event.key === 'ArrowDown' ? 1 : this.choices.length - 1)) % this.choices.length;
        this.show();
        return;
      }
      if (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey && !this.exact())) {
        event.preventDefault();
        this.complete(this.choices[this.selected]!.name);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        this.close();
        return;
      }
    }
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      const text = this.input.value;
      if (!text.trim()) return;
      this.close();
      this.submit(text, event.ctrlKey || event.metaKey);
    }
  }

  /** The text is exactly a command that needs no argument: Enter runs it. */
  private exact(): boolean {
    const name = this.input.value.trim().slice(1);
    return name !== 'btw' && SLASH_HELP.some((c) => c.name === name);
  }

  private complete(name: string): void {
    this.value = `/${name}${name === 'btw' ? ' ' : ''}`;
    this.close();
    this.input.focus();
  }

  private suggest(): void {
    this.choices = completions(this.input.value);
    this.selected = Math.min(this.selected, Math.max(0, this.choices.length - 1));
    this.show();
  }

  private close(): void {
    this.choices = [];
    this.show();
  }

  private show(): void {
    this.list.hidden = this.choices.length === 0;
    this.input.setAttribute('aria-expanded', String(this.choices.length > 0));
    this.list.replaceChildren(
      ...this.choices.map((c, i) => {
        const option = document.createElement('div');
        option.id = `slash-${c.name}`;
        option.className = 'completion';
        option.setAttribute('role', 'option');
        option.setAttribute('aria-selected', String(i === this.selected));
        const name = document.createElement('strong');
        name.textContent = `/${c.name}`;
        const hint = document.createElement('span');
        hint.textContent = ` ${c.hint}`;
        option.append(name, hint);
        option.addEventListener('mousedown', (event) => {
          event.preventDefault();
          this.complete(c.name);
        });
        return option;
      }),
    );
    if (this.choices.length > 0) this.input.setAttribute('aria-activedescendant', `slash-${this.choices[this.selected]!.name}`);
    else this.input.removeAttribute('aria-activedescendant');
  }
}
