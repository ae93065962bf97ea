/** A rendered exchange: the user's prompt and the assistant's streamed answer. */
interface Exchange {
  readonly answer: HTMLElement;
  readonly status: HTMLElement;
}

/**
 * The transcript pane. Model output is inserted as text (textContent), never as HTML, so
 * nothing in an answer can run.
 */
export class Transcript {
  private readonly exchanges = new Map<string, Exchange>();

  constructor(private readonly root: HTMLElement) {}

  addPrompt(requestId: string, text: string): void {
    const item = document.createElement('article');
    item.className = 'exchange';
    item.dataset.requestId = requestId;

    const prompt = document.createElement('div');
    prompt.className = 'message user';
    prompt.setAttribute('aria-label', 'Your prompt');
    prompt.textContent = text;

    const answer = document.createElement('div');
    answer.className = 'message assistant';
    answer.setAttribute('aria-label', 'Answer');
    answer.setAttribute('aria-live', 'polite');

    const status = document.createElement('div');
    status.className = 'turn-status';
    status.textContent = 'Thinking…';

    item.append(prompt, answer, status);
    this.root.append(item);
    this.exchanges.set(requestId, { answer, status });
    item.scrollIntoView({ block: 'end' });
  }

  appendAnswer(requestId: string, text: string): void {
    const exchange = this.exchanges.get(requestId);
    if (!exchange) return;
    exchange.answer.textContent = (exchange.answer.textContent ?? '') + text;
    exchange.status.textContent = '';
  }

  end(requestId: string, outcome: string, detail: string): void {
    const exchange = this.exchanges.get(requestId);
    if (!exchange) return;
    exchange.status.textContent = detail;
    exchange.status.dataset.outcome = outcome;
    exchange.answer.parentElement?.setAttribute('data-outcome', outcome);
  }
}
