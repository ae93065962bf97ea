import { answerText, splitInTwo, sse, type AnswerReply, type ScriptedUsage, type StreamMeta, type WireFormat, type WireStream } from './wire';

/**
 * OpenAI's Chat Completions API (`POST /v1/chat/completions`), as Ollama, vLLM and llama-server
 * speak it: chunks of `choices[0].delta`, tool calls as indexed deltas, usage in a last chunk
 * without choices, `data: [DONE]`. Thinking goes in `reasoning_content`, as llama-server and
 * DeepSeek send it.
 */
export const chatCompletions: WireFormat = {
  path: '/v1/chat/completions',
  errorBody: (status, message) => ({ error: { message, type: 'scripted_error', code: status } }),
  whole(meta, reply) {
    const toolCalls =
      reply.kind === 'toolCalls' ? reply.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) : undefined;
    const message = {
      role: 'assistant',
      content: reply.kind === 'toolCalls' && !reply.text ? null : answerText(reply),
      ...(reply.thinking ? { reasoning_content: reply.thinking } : {}),
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
    };
    return {
      id: meta.id,
      object: 'chat.completion',
      created: meta.created,
      model: meta.model,
      choices: [{ index: 0, message, finish_reason: toolCalls ? 'tool_calls' : 'stop' }],
      ...(reply.usage ? { usage: usageJson(reply.usage) } : {}),
    };
  },
  stream: (meta) => new ChatStream(meta),
};

class ChatStream implements WireStream {
  constructor(private readonly meta: StreamMeta) {}

  begin(thinking: string | undefined): string {
    return (
      this.chunk({ delta: { role: 'assistant', content: '' }, finish_reason: null }) +
      (thinking ? this.chunk({ delta: { reasoning_content: thinking }, finish_reason: null }) : '')
    );
  }

  text(delta: string): string {
    return this.chunk({ delta: { content: delta }, finish_reason: null });
  }

  finish(reply: AnswerReply): string {
    let out = '';
    if (reply.kind === 'toolCalls') {
      reply.calls.forEach((call, index) => {
        out += this.chunk({
          delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] },
          finish_reason: null,
        });
        for (const piece of splitInTwo(call.arguments))
          out += this.chunk({ delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null });
      });
    }
    out += this.chunk({ delta: {}, finish_reason: reply.kind === 'toolCalls' ? 'tool_calls' : 'stop' });
    if (reply.usage) out += this.chunk(null, usageJson(reply.usage));
    return out + 'data: [DONE]\n\n';
  }

  private chunk(choice: object | null, usage?: object): string {
    const { id, created, model } = this.meta;
    return sse({ id, object: 'chat.completion.chunk', created, model, choices: choice ? [{ index: 0, ...choice }] : [], ...(usage ? { usage } : {}) });
  }
}

function usageJson(usage: ScriptedUsage): object {
  return {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
    prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
  };
}
