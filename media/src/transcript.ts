import type { TranscriptEntry } from '../../src/protocol/messages';
import { renderMarkdown } from './markdown';

/** A rendered exchange: the user's prompt and the assistant's streamed answer. */
interface Exchange {
  readonly item: HTMLElement;
  answer: HTMLElement;
  /** The raw markdown of the current answer block. */
  text: string;
  readonly status: HTMLElement;
}

/**
 * The transcript pane. Prompts are inserted as text; answers are markdown rendered through a
 * sanitizer, so nothing in an answer can run. While an answer streams, rendering is coalesced to
 * one per animation frame.
 */
export class Transcript {
  private readonly exchanges = new Map<string, Exchange>();
  private readonly dirty = new Set<Exchange>();
  private frame = 0;

  constructor(private readonly root: HTMLElement, private readonly onAction: (action: 'rewind' | 'fork' | 'edit', ids: { messageId?: string; requestId?: string }) => void) {}

  /** A user message with its actions: rewind to here, fork from here, edit & resend, copy. */
  private userMessage(text: string, ids: { messageId?: string; requestId?: string }): HTMLElement {
    const box = this.element('div', 'message user', '', 'Your prompt');
    box.append(this.element('div', 'prompt-text', text));
    const bar = this.element('div', 'message-actions');
    const button = (label: string, title: string, run: () => void) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = label;
      b.title = title;
      b.setAttribute('aria-label', title);
      b.addEventListener('click', run);
      bar.append(b);
    };
    button('Rewind', 'Rewind to here: drop this prompt and what followed', () => this.onAction('rewind', ids));
    button('Fork', 'Fork from here: a new session with the conversation up to this turn', () => this.onAction('fork', ids));
    button('Edit', 'Edit & resend this prompt', () => this.onAction('edit', ids));
    button('Copy', 'Copy this prompt', () => void navigator.clipboard.writeText(text));
    box.append(bar);
    return box;
  }

  /** Replaces everything with a stored session's entries. */
  show(entries: readonly TranscriptEntry[], hasOlder: boolean): void {
    this.root.textContent = '';
    this.exchanges.clear();
    if (hasOlder) this.root.append(this.element('div', 'older', 'Older messages are in the session log.'));
    let current: HTMLElement | undefined;
    for (const entry of entries) {
      if (entry.kind === 'user' || !current) {
        current = this.element('article', 'exchange');
        current.dataset.outcome = 'completed';
        this.root.append(current);
      }
      if (entry.kind === 'user') current.append(this.userMessage(entry.text, { messageId: entry.messageId }));
      else if (entry.kind === 'assistant') {
        const answer = this.element('div', 'message assistant', '', 'Answer');
        renderMarkdown(answer, entry.text);
        current.append(answer);
      }
      else current.append(this.toolLine(entry.summary, entry.isError));
    }
    this.root.lastElementChild?.scrollIntoView({ block: 'end' });
  }

  addPrompt(requestId: string, text: string): void {
    const item = this.element('article', 'exchange');
    item.dataset.requestId = requestId;
    const answer = this.element('div', 'message assistant', '', 'Answer');
    answer.setAttribute('aria-live', 'polite');
    const status = this.element('div', 'turn-status', 'Thinking…');
    item.append(this.userMessage(text, { requestId }), answer, status);
    this.root.append(item);
    this.exchanges.set(requestId, { item, answer, text: '', status });
    item.scrollIntoView({ block: 'end' });
  }

  appendAnswer(requestId: string, text: string): void {
    const exchange = this.exchanges.get(requestId);
    if (!exchange) return;
    exchange.text += text;
    exchange.status.textContent = '';
    this.dirty.add(exchange);
    this.frame ||= requestAnimationFrame(() => this.flush());
  }

  /** Renders the answers that changed since the last frame. */
  private flush(): void {
    this.frame = 0;
    for (const exchange of this.dirty) renderMarkdown(exchange.answer, exchange.text);
    this.dirty.clear();
  }

  /** A tool line; text after it goes into a fresh answer block, so the order reads as it happened. */
  addTool(requestId: string, summary: string, phase: 'start' | 'end', isError: boolean): void {
    const exchange = this.exchanges.get(requestId);
    if (!exchange) return;
    if (phase === 'start') {
      this.flush();
      const line = this.toolLine(summary, false);
      exchange.item.insertBefore(line, exchange.status);
      const answer = this.element('div', 'message assistant', '', 'Answer');
      exchange.item.insertBefore(answer, exchange.status);
      exchange.answer = answer;
      exchange.text = '';
    } else if (isError) {
      const lines = exchange.item.querySelectorAll('.tool');
      const last = lines[lines.length - 1] as HTMLElement | undefined;
      if (last) {
        last.dataset.error = 'true';
        last.title = summary;
      }
    }
  }

  end(requestId: string, outcome: string, detail: string): void {
    const exchange = this.exchanges.get(requestId);
    if (!exchange) return;
    this.flush();
    exchange.status.textContent = detail;
    exchange.status.dataset.outcome = outcome;
    exchange.item.dataset.outcome = outcome;
  }

  private toolLine(summary: string, isError: boolean): HTMLElement {
    const line = this.element('div', 'tool', summary, 'Tool call');
    if (isError) line.dataset.error = 'true';
    return line;
  }

  private element(tag: string, className: string, text = '', label?: string): HTMLElement {
    const el = document.createElement(tag);
    el.className = className;
    if (text) el.textContent = text;
    if (label) el.setAttribute('aria-label', label);
    return el;
  }
}
