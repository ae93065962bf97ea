import { MODEL_GROUP_TITLES, type ModelChoiceItem, type ModelInfo, type WebviewToHost } from '../../src/protocol/messages';

/** The model line's text: what the next turn uses. */
export function modelLabel(info: ModelInfo): string {
  return info.id ? `${info.provider} · ${info.id}` : 'No model configured';
}

/** Tokens in thousands as people name windows: 128000 -> "128k", 32768 -> "32k" (binary), 500 -> "500". */
function kTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n % 1000 === 0) return `${n / 1000}k`;
  return n % 1024 === 0 ? `${n / 1024}k` : `${Math.round(n / 1000)}k`;
}

/** The model's limits in one sentence, and where each came from. */
function limitsSentence(limits: NonNullable<ModelInfo['limits']>): string {
  return `Context window ${limits.contextWindow.toLocaleString('en-US')} tokens (${limits.contextFrom}); answers up to ${limits.maxOutputTokens.toLocaleString('en-US')} tokens (${limits.outputFrom}).`;
}

function span(className: string, text = ''): HTMLElement {
  const e = document.createElement('span');
  e.className = className;
  e.textContent = text;
  return e;
}

/**
 * The header's model dropdown: the same lines as Braid: Select Model (the current model first,
 * with a check), asked from the host each time it opens. A model line switches the next turn's
 * model; a provider line lets the host ask which of its models. Arrows move, Enter picks,
 * Escape closes.
 */
export class ModelMenu {
  private choices: readonly ModelChoiceItem[] = [];
  private options: HTMLElement[] = [];
  private active = 0;

  constructor(
    private readonly button: HTMLButtonElement,
    /** The button's text: the provider and the model id, the provider cut first when narrow. */
    private readonly name: HTMLElement,
    private readonly list: HTMLElement,
    private readonly send: (message: WebviewToHost) => void,
  ) {
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', 'Models');
    list.tabIndex = -1;
    button.setAttribute('aria-haspopup', 'listbox');
    button.setAttribute('aria-expanded', 'false');
    button.addEventListener('click', () => (this.isOpen ? this.close(true) : this.open()));
    list.addEventListener('keydown', (event) => this.key(event));
    document.addEventListener('mousedown', (event) => {
      const target = event.target as Node;
      if (this.isOpen && !list.contains(target) && !button.contains(target)) this.close(false);
    });
  }

  get isOpen(): boolean {
    return !this.list.hidden;
  }

  /** Shows the model the next turn uses on the button (and its limits), with all of it in the tooltip. */
  show(info: ModelInfo): void {
    const label = modelLabel(info);
    const { limits } = info;
    // Parts, so a narrow view drops the limits and cuts the provider before the model id; the text reads as one label.
    this.name.replaceChildren(
      ...(info.id
        ? [
            span('model-provider', info.provider),
            span('model-separator', ' · '),
            span('model-id', info.id),
            ...(limits ? [span('model-limits', ` · ${kTokens(limits.contextWindow)} context · ${kTokens(limits.maxOutputTokens)} out`)] : []),
          ]
        : [span('model-id', label)]),
    );
    const about = info.id ? `The next turn uses ${label}.${limits ? ` ${limitsSentence(limits)}` : ''}` : 'No model is configured.';
    this.button.title = `${about} Choose another model (/model)`;
    this.button.setAttribute('aria-label', `${about} Choose another model`);
  }

  open(): void {
    this.list.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
    this.options = [];
    this.list.replaceChildren(span('model-group', 'Loading models…'));
    this.list.focus();
    this.send({ type: 'listModels' });
  }

  /** The host's lines for the open dropdown. */
  setChoices(choices: readonly ModelChoiceItem[]): void {
    if (!this.isOpen) return;
    this.choices = choices;
    const children: HTMLElement[] = [];
    this.options = [];
    let group: ModelChoiceItem['group'] | undefined;
    choices.forEach((choice, i) => {
      if (choice.group !== group) {
        group = choice.group;
        const heading = span('model-group', MODEL_GROUP_TITLES[group]);
        heading.setAttribute('role', 'presentation');
        children.push(heading);
      }
      const option = this.option(choice, i);
      this.options.push(option);
      children.push(option);
    });
    this.list.replaceChildren(...children);
    this.move(0);
  }

  private option(choice: ModelChoiceItem, index: number): HTMLElement {
    const option = document.createElement('div');
    option.className = 'model-option';
    option.id = `model-option-${index}`;
    option.dataset.group = choice.group;
    option.dataset.provider = choice.provider;
    if (choice.model) option.dataset.model = choice.model;
    option.setAttribute('role', 'option');
    option.setAttribute('aria-selected', String(choice.group === 'current'));
    option.title = `${choice.label} · ${choice.description}`;
    const icon = choice.group === 'current' ? 'check' : choice.kind === 'provider' ? 'chevron-right' : 'blank';
    const mark = span(`codicon codicon-${icon}`);
    mark.setAttribute('aria-hidden', 'true');
    option.append(mark, span('model-option-label', choice.label), span('model-option-description', choice.description));
    option.addEventListener('mousedown', (event) => event.preventDefault());
    option.addEventListener('click', () => this.pick(index));
    return option;
  }

  private move(index: number): void {
    if (this.options.length === 0) return;
    this.active = (index + this.options.length) % this.options.length;
    this.options.forEach((o, i) => o.classList.toggle('active', i === this.active));
    const option = this.options[this.active]!;
    this.list.setAttribute('aria-activedescendant', option.id);
    option.scrollIntoView({ block: 'nearest' });
  }

  private key(event: KeyboardEvent): void {
    const moves: Record<string, number> = { ArrowDown: this.active + 1, ArrowUp: this.active - 1, Home: 0, End: this.options.length - 1 };
    if (event.key in moves) this.move(moves[event.key]!);
    else if (event.key === 'Enter' || event.key === ' ') this.pick(this.active);
    else if (event.key === 'Escape') this.close(true);
    else if (event.key === 'Tab') this.close(false);
    else return;
    event.stopPropagation(); // Escape here closes the dropdown only, not the side question's overlay
    if (event.key !== 'Tab') event.preventDefault();
  }

  private pick(index: number): void {
    const choice = this.choices[index];
    if (!choice) return;
    this.send({ type: 'selectModel', choice: { kind: choice.kind, provider: choice.provider, ...(choice.model ? { model: choice.model } : {}) } });
    this.close(true);
  }

  close(focusButton: boolean): void {
    this.list.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
    this.list.removeAttribute('aria-activedescendant');
    if (focusButton) this.button.focus();
  }
}
