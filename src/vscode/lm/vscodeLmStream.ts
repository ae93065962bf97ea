import * as vscode from 'vscode';
import type { StreamFn } from '@mariozechner/pi-agent-core';
import {
  createAssistantMessageEventStream,
  streamSimple,
  type Api,
  type AssistantMessage,
  type Context,
  type Message,
  type Model,
  type TextContent,
  type ToolCall,
} from '@mariozechner/pi-ai';
import { errorMessage } from '../../core/errors';

/** The provider id (and API name) of models that VS Code's language model API serves. */
export const VSCODE_LM = 'vscode-lm';

/** The kernel's description of a vscode.lm chat model. */
export function vscodeLmModel(chat: vscode.LanguageModelChat): Model<Api> {
  return {
    id: chat.id,
    name: chat.name,
    api: VSCODE_LM,
    provider: VSCODE_LM,
    baseUrl: '',
    reasoning: false,
    input: ['text'],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: chat.maxInputTokens,
    maxTokens: 8_192,
  };
}

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  return content
    .filter((b): b is TextContent => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

/** The kernel's context as vscode.lm messages. vscode.lm has no system role: the system prompt leads as a user message. */
export function toLmMessages(context: Context): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  if (context.systemPrompt) out.push(vscode.LanguageModelChatMessage.User(`<instructions>\n${context.systemPrompt}\n</instructions>`));
  for (const m of context.messages) {
    if (m.role === 'user') out.push(vscode.LanguageModelChatMessage.User(textOf(m.content)));
    else if (m.role === 'toolResult') {
      out.push(
        vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(m.toolCallId, [new vscode.LanguageModelTextPart(textOf(m.content))])]),
      );
    } else {
      if (m.stopReason === 'error' || m.stopReason === 'aborted') continue;
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = [];
      for (const b of m.content) {
        if (b.type === 'text' && b.text) parts.push(new vscode.LanguageModelTextPart(b.text));
        else if (b.type === 'toolCall') parts.push(new vscode.LanguageModelToolCallPart(b.id, b.name, b.arguments));
      }
      if (parts.length) out.push(vscode.LanguageModelChatMessage.Assistant(parts));
    }
  }
  return out;
}

/**
 * Streams one answer from a vscode.lm chat model in the kernel's event protocol: text deltas and
 * tool calls as they come, then done (or error/aborted). vscode.lm reports no usage, so tokens
 * are counted with the model's own tokenizer.
 */
export function streamVscodeLm(model: Model<Api>, context: Context, options?: { signal?: AbortSignal }): ReturnType<typeof streamSimple> {
  const stream = createAssistantMessageEventStream();
  const output: AssistantMessage = {
    role: 'assistant',
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: 'stop',
    timestamp: Date.now(),
  };
  void (async () => {
    const cancel = new vscode.CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    options?.signal?.addEventListener('abort', onAbort, { once: true });
    let textIndex = -1;
    const closeText = () => {
      if (textIndex < 0) return;
      stream.push({ type: 'text_end', contentIndex: textIndex, content: (output.content[textIndex] as TextContent).text, partial: output });
      textIndex = -1;
    };
    try {
      const [chat] = await vscode.lm.selectChatModels({ id: model.id });
      if (!chat) throw new Error(`VS Code has no language model "${model.id}" now; pick another with Braid: Select Model or set braid.provider`);
      stream.push({ type: 'start', partial: output });
      const messages = toLmMessages(context);
      const tools = (context.tools ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters as object }));
      const response = await chat.sendRequest(messages, { tools, justification: 'Braid answers your prompt with this model.' }, cancel.token);
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          if (textIndex < 0) {
            output.content.push({ type: 'text', text: '' });
            textIndex = output.content.length - 1;
            stream.push({ type: 'text_start', contentIndex: textIndex, partial: output });
          }
          (output.content[textIndex] as TextContent).text += part.value;
          stream.push({ type: 'text_delta', contentIndex: textIndex, delta: part.value, partial: output });
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          closeText();
          const call: ToolCall = { type: 'toolCall', id: part.callId, name: part.name, arguments: part.input as Record<string, unknown> };
          output.content.push(call);
          const index = output.content.length - 1;
          stream.push({ type: 'toolcall_start', contentIndex: index, partial: output });
          stream.push({ type: 'toolcall_end', contentIndex: index, toolCall: call, partial: output });
        }
      }
      closeText();
      const sent = messages.map((m) => m.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('')).join('\n');
      output.usage.input = await chat.countTokens(sent).then(
        (n) => n,
        () => 0,
      );
      output.usage.output = await chat.countTokens(output.content.map((b) => (b.type === 'text' ? b.text : JSON.stringify(b))).join('')).then(
        (n) => n,
        () => 0,
      );
      output.usage.totalTokens = output.usage.input + output.usage.output;
      output.stopReason = output.content.some((b) => b.type === 'toolCall') ? 'toolUse' : 'stop';
      stream.push({ type: 'done', reason: output.stopReason as 'stop' | 'toolUse', message: output });
      stream.end(output);
    } catch (err) {
      closeText();
      const aborted = options?.signal?.aborted === true;
      output.stopReason = aborted ? 'aborted' : 'error';
      output.errorMessage = aborted ? 'cancelled' : err instanceof vscode.LanguageModelError ? `${err.message} (${err.code})` : errorMessage(err);
      stream.push({ type: 'error', reason: output.stopReason, error: output });
      stream.end(output);
    } finally {
      options?.signal?.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
  })();
  return stream;
}

/** The kernel's stream function with vscode.lm models routed to VS Code, every other model to pi-ai. */
export const vscodeAwareStream: StreamFn = (model, context, options) =>
  model.api === VSCODE_LM ? streamVscodeLm(model, context, options) : streamSimple(model, context, options);
