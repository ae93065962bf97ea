import type { ModelInfo } from '../../src/protocol/messages';
import { welcomeExamples, welcomeModelLine } from './welcomePrompts';

/**
 * What a new or empty session shows instead of a blank area: what Braid does, three example
 * prompts (a click puts one in the input) and the model in use.
 */
export class Welcome {
  private key = '';

  constructor(
    private readonly element: HTMLElement,
    private readonly pick: (prompt: string) => void,
  ) {}

  /** Shows the welcome for `model`, or hides it. */
  show(visible: boolean, model: ModelInfo | undefined): void {
    this.element.hidden = !visible;
    const key = JSON.stringify([model?.demo, model?.provider, model?.id]);
    if (!visible || key === this.key) return;
    this.key = key;
    const title = document.createElement('h2');
    title.textContent = 'Braid';
    const what = document.createElement('p');
    what.textContent = 'A coding agent for this workspace: it reads and searches your files, and asks before it changes one or runs a command.';
    const durable = document.createElement('p');
    durable.textContent = 'Every conversation is a session you can resume, fork or rewind, files included.';
    const label = document.createElement('div');
    label.className = 'welcome-label';
    label.textContent = 'Try:';
    const examples = welcomeExamples(model).map((prompt) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'example';
      button.dataset.prompt = prompt;
      button.title = 'Put this prompt in the input';
      button.textContent = prompt;
      button.addEventListener('click', () => this.pick(prompt));
      return button;
    });
    const modelLine = document.createElement('div');
    modelLine.className = 'welcome-model';
    modelLine.dataset.role = 'welcome-model';
    modelLine.textContent = welcomeModelLine(model);
    this.element.replaceChildren(title, what, durable, label, ...examples, modelLine);
  }
}
