import type { AttachmentChip, AttachmentRef, CustomCommandItem, MentionItem } from '../../src/protocol/messages';
import { attachmentChip, attachmentIcon } from './attachmentChips';
import { completions, SLASH_HELP, type SlashChoice } from './slashCommands';

/** How a chip of the composer shows (an image with its thumbnail). */
export function chipOf(item: AttachmentRef): AttachmentChip {
  return {
    kind: item.kind,
    label: item.label,
    ...(item.path ? { detail: item.path } : item.uri ? { detail: item.uri } : {}),
    truncated: false,
    ...(item.image ? { image: `data:${item.image.mimeType};base64,${item.image.data}` } : {}),
  };
}

/** The `@word` the caret ends: the query of the `@` list. */
const MENTION = /(?:^|\s)@([^\s@]*)$/;

/**
 * The prompt input: Enter sends, Shift+Enter breaks the line, Ctrl/Cmd+Enter steers into the
 * running turn; typing "/" offers the slash commands (arrows choose, Tab or Enter completes);
 * typing "@" offers files, open editors, folders, the problems list and the git diff, and the one
 * chosen becomes a chip above the input (its x removes it); Up on the first line and Down on the
 * last walk through earlier prompts. A next-prompt suggestion shows as the empty input's
 * placeholder (`data-suggestion`): Tab takes it, typing anything or Escape dismisses it.
 */
export class Composer {
  private choices: SlashChoice[] = [];
  private selected = 0;
  /** The custom slash commands the host found (the `/` menu lists them after the built-in ones). */
  commands: readonly CustomCommandItem[] = [];
  /** The `@` list's lines, and where its `@` is in the input (-1: no list). */
  private mentions: readonly MentionItem[] = [];
  private mentionAt = -1;
  /** The chips the next prompt carries. */
  private chips: AttachmentRef[] = [];
  /** Earlier prompts, newest first; Up walks back through them like a shell. */
  private history: string[] = [];
  private historyIndex = -1;
  private draft = '';
  /** The suggestion shown as ghost text, and the last one dismissed (a snapshot does not bring it back). */
  private suggestion: string | undefined;
  private dismissed: string | undefined;
  /** The input's own placeholder, shown when there is no suggestion. */
  private readonly placeholder: string;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly list: HTMLElement,
    private readonly submit: (text: string, steer: boolean) => void,
    private readonly onDraft: (text: string) => void,
    /** Where the chips show. */
    private readonly chipBox: HTMLElement,
    /** Asks the host for the `@` list of a query (it answers through `showMentions`). */
    private readonly findMentions: (query: string) => void,
  ) {
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', 'Slash commands');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-controls', list.id);
    this.placeholder = input.placeholder;
    input.addEventListener('input', () => {
      this.dismissSuggestion();
      this.onDraft(input.value);
      this.suggest();
    });
    input.addEventListener('keydown', (event) => this.key(event));
  }

  /** Takes the `/` menu's commands the host listed (the MCP servers' prompts come after the menu is first opened). */
  updateCommands(commands: readonly CustomCommandItem[]): void {
    this.commands = commands;
    if (this.input.value.startsWith('/')) this.suggest();
  }

  get value(): string {
    return this.input.value;
  }

  set value(text: string) {
    if (text !== '') this.dismissSuggestion(); // a prompt put in the input (a rewind's, an example) replaces it
    this.input.value = text;
    this.onDraft(text);
    this.suggest();
  }

  /** Shows `text` as ghost text in the empty input (undefined: none); one the user dismissed stays dismissed. */
  offer(text: string | undefined): void {
    if (text !== undefined && text === this.dismissed) return;
    this.suggestion = text;
    if (text === undefined) {
      this.input.placeholder = this.placeholder;
      delete this.input.dataset.suggestion;
    } else {
      this.input.placeholder = text;
      this.input.dataset.suggestion = text;
    }
  }

  /** The suggestion shown, if any. */
  get offered(): string | undefined {
    return this.suggestion;
  }

  private dismissSuggestion(): void {
    if (this.suggestion === undefined) return;
    this.dismissed = this.suggestion;
    this.offer(undefined);
  }

  /** Tab in the empty input takes the suggestion; Escape dismisses it. True when the key did. */
  private suggestionKey(event: KeyboardEvent): boolean {
    if (this.suggestion === undefined || this.input.value !== '') return false;
    if (event.key === 'Tab' && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      const text = this.suggestion;
      this.dismissSuggestion();
      this.value = text;
      this.input.setSelectionRange(text.length, text.length);
      return true;
    }
    if (event.key === 'Escape') {
      event.preventDefault();
      this.dismissSuggestion();
      return true;
    }
    return false;
  }

  /** The chips the next prompt carries. */
  get attachments(): readonly AttachmentRef[] {
    return this.chips;
  }

  /** Adds a chip (an `@` pick, Braid: Add Selection to Chat, an image); the same file or selection twice is one chip. */
  attach(item: AttachmentRef): void {
    const same = (a: AttachmentRef) =>
      a.kind === item.kind && a.path === item.path && a.uri === item.uri && a.lines?.join() === item.lines?.join() && a.label === item.label;
    if (this.chips.some(same) && !item.image) return this.showChips();
    this.chips.push({
      kind: item.kind,
      label: item.label,
      ...(item.path ? { path: item.path } : {}),
      ...(item.lines ? { lines: item.lines } : {}),
      ...(item.uri ? { uri: item.uri } : {}),
      ...(item.image ? { image: item.image } : {}),
    });
    this.showChips();
  }

  /** Removes every chip (after a send). */
  clearAttachments(): void {
    this.chips = [];
    this.showChips();
  }

  /** The host's `@` list for the query typed; dropped when the user has moved on. */
  showMentions(items: readonly MentionItem[]): void {
    if (this.mentionAt < 0) return;
    this.mentions = items;
    this.selected = 0;
    this.show();
  }

  private showChips(): void {
    this.chipBox.hidden = this.chips.length === 0;
    this.chipBox.replaceChildren(
      ...this.chips.map((item, i) => {
        const chip = attachmentChip(chipOf(item));
        const remove = document.createElement('button');
        remove.type = 'button';
        remove.className = 'attachment-remove';
        remove.title = `Remove ${item.label}`;
        remove.setAttribute('aria-label', `Remove ${item.label}`);
        const x = document.createElement('span');
        x.className = 'codicon codicon-close';
        x.setAttribute('aria-hidden', 'true');
        remove.append(x);
        remove.addEventListener('click', () => {
          this.chips.splice(i, 1);
          this.showChips();
          this.input.focus();
        });
        chip.append(remove);
        return chip;
      }),
    );
  }

  /** Takes the `@query` out of the input and makes the item a chip. */
  private pick(item: MentionItem): void {
    const caret = this.input.selectionStart;
    const before = this.input.value.slice(0, this.mentionAt);
    const after = this.input.value.slice(caret);
    this.input.value = before + after;
    this.input.setSelectionRange(before.length, before.length);
    this.onDraft(this.input.value);
    this.closeMentions();
    this.attach(item);
    this.input.focus();
  }

  private closeMentions(): void {
    this.mentions = [];
    this.mentionAt = -1;
    this.show();
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

  /** Up and Down move through an open list of `count` lines (round at either end); true when the key did. */
  private moveSelection(event: KeyboardEvent, count: number): boolean {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return false;
    event.preventDefault();
    this.selected = (this.selected + (event.key === 'ArrowDown' ? 1 : count - 1)) % count;
    this.show();
    return true;
  }

  private key(event: KeyboardEvent): void {
    if (event.isComposing) return;
    if (this.suggestionKey(event)) return;
    if (this.mentions.length > 0) {
      if (this.moveSelection(event, this.mentions.length)) return;
      if (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey)) {
        event.preventDefault();
        this.pick(this.mentions[this.selected]!);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        this.closeMentions();
        return;
      }
    }
    if (
      this.choices.length === 0 &&
      this.mentions.length === 0 &&
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
      if (this.moveSelection(event, this.choices.length)) return;
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
    return name !== 'btw' && (SLASH_HELP.some((c) => c.name === name) || this.commands.some((c) => c.name === name));
  }

  private complete(name: string): void {
    const takesText = name === 'btw' || this.commands.some((c) => c.name === name && c.argumentHint);
    this.value = `/${name}${takesText ? ' ' : ''}`;
    this.close();
    this.input.focus();
  }

  private suggest(): void {
    this.choices = completions(this.input.value, this.commands);
    this.selected = Math.min(this.selected, Math.max(0, this.choices.length - 1));
    const mention = this.choices.length === 0 ? MENTION.exec(this.input.value.slice(0, this.input.selectionStart)) : null;
    if (mention) {
      this.mentionAt = this.input.selectionStart - mention[1]!.length - 1;
      this.findMentions(mention[1]!);
    } else if (this.mentionAt >= 0) {
      this.closeMentions();
      return;
    }
    this.show();
  }

  private close(): void {
    this.choices = [];
    this.show();
  }

  private show(): void {
    if (this.mentions.length > 0) return this.showMentionList();
    this.list.setAttribute('aria-label', 'Slash commands');
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

  private showMentionList(): void {
    this.list.hidden = false;
    this.list.setAttribute('aria-label', 'Files and context to attach');
    this.input.setAttribute('aria-expanded', 'true');
    this.list.replaceChildren(
      ...this.mentions.map((m, i) => {
        const option = document.createElement('div');
        option.id = `mention-${i}`;
        option.className = 'completion mention';
        option.setAttribute('role', 'option');
        option.setAttribute('aria-selected', String(i === this.selected));
        const icon = document.createElement('span');
        icon.className = `codicon codicon-${attachmentIcon(m.kind)}`;
        icon.setAttribute('aria-hidden', 'true');
        const name = document.createElement('strong');
        name.textContent = ` ${m.label}`;
        const hint = document.createElement('span');
        hint.textContent = ` ${m.detail}`;
        option.append(icon, name, hint);
        option.addEventListener('mousedown', (event) => {
          event.preventDefault();
          this.pick(m);
        });
        return option;
      }),
    );
    this.input.setAttribute('aria-activedescendant', `mention-${this.selected}`);
  }
}
