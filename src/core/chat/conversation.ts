import { Agent } from '@mariozechner/pi-agent-core';
import type { Api, AssistantMessage, Model } from '@mariozechner/pi-ai';
import type { Logger } from '../logger';

/** How a turn ended, with the usage of its last answer. */
export interface TurnResult {
  readonly outcome: 'completed' | 'failed' | 'cancelled';
  readonly error?: string;
  readonly usage?: { input: number; output: number; cacheRead: number; costTotal: number };
}

export interface ConversationOptions {
  readonly model: Model<Api>;
  readonly apiKey: () => Promise<string | undefined> | string | undefined;
  readonly systemPrompt: string;
  readonly logger: Logger;
}

/**
 * A conversation with the kernel's `Agent`, held in memory. This is the foundation's working
 * path from a prompt to a streamed answer; the durable `Session` seam (wire logs, tools, queue)
 * replaces it without changing the webview protocol.
 */
export class InMemoryConversation {
  private readonly agent: Agent;
  private running = false;

  constructor(private readonly options: ConversationOptions) {
    this.agent = new Agent({
      initialState: { model: options.model, systemPrompt: options.systemPrompt, thinkingLevel: 'off', tools: [] },
      getApiKey: () => options.apiKey(),
    });
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Runs one turn; `onDelta` gets each piece of assistant text as it streams. */
  async run(text: string, onDelta: (text: string) => void): Promise<TurnResult> {
    if (this.running) return { outcome: 'failed', error: 'A turn is already running; wait for it or press Stop.' };
    this.running = true;
    const unsubscribe = this.agent.subscribe((event) => {
      if (event.type === 'message_update' && event.assistantMessageEvent.type === 'text_delta') {
        onDelta(event.assistantMessageEvent.delta);
      }
    });
    try {
      await this.agent.prompt(text);
      return this.resultOfLastAnswer();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.options.logger.error(`turn failed: ${message}`);
      return { outcome: 'failed', error: message };
    } finally {
      unsubscribe();
      this.running = false;
    }
  }

  /** Aborts the running turn, if any; it ends `cancelled`. */
  cancel(): void {
    this.agent.abort();
  }

  private resultOfLastAnswer(): TurnResult {
    const last = [...this.agent.state.messages].reverse().find((m): m is AssistantMessage => m.role === 'assistant');
    if (!last) return { outcome: 'failed', error: this.agent.state.errorMessage ?? 'The model gave no answer.' };
    const usage = { input: last.usage.input, output: last.usage.output, cacheRead: last.usage.cacheRead, costTotal: last.usage.cost.total };
    if (last.stopReason === 'aborted') return { outcome: 'cancelled', usage };
    if (last.stopReason === 'error') return { outcome: 'failed', error: last.errorMessage ?? 'The model request failed.', usage };
    return { outcome: 'completed', usage };
  }
}
