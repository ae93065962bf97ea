import {
  answerText,
  splitInTwo,
  sse,
  type AnswerReply,
  type ScriptedToolCall,
  type ScriptedUsage,
  type StreamMeta,
  type WireFormat,
  type WireStream,
} from './wire';

/**
 * OpenAI's Responses API (`POST /v1/responses`), as Codex speaks it: a streamed answer is a
 * sequence of typed events, each with a `sequence_number`: `response.created`, output items
 * (reasoning, a message, function calls, custom tool calls) added, their deltas, done, and
 * `response.completed` carrying the whole response with its usage. No `[DONE]` line.
 */
export const responses: WireFormat = {
  path: '/v1/responses',
  errorBody: (status, message) => ({ error: { message, type: 'scripted_error', code: String(status), param: null } }),
  whole: (meta, reply) => responseObject(meta, 'completed', outputItems(meta, reply), reply.usage),
  stream: (meta) => new ResponsesStream(meta),
};

type Item = Record<string, unknown> & { id: string; type: string };

function reasoningItem(meta: StreamMeta, thinking: string): Item {
  return { id: `rs_${meta.id}`, type: 'reasoning', summary: [{ type: 'summary_text', text: thinking }] };
}

function messageItem(meta: StreamMeta, text: string, status: string): Item {
  return { id: `msg_${meta.id}`, type: 'message', status, role: 'assistant', content: text === '' && status !== 'completed' ? [] : [outputText(text)] };
}

function outputText(text: string): object {
  return { type: 'output_text', text, annotations: [] };
}

function callItem(call: ScriptedToolCall, status: string, done: boolean): Item {
  if (call.custom) return { id: `ctc_${call.id}`, type: 'custom_tool_call', status, call_id: call.id, name: call.name, input: done ? call.arguments : '' };
  const namespace = call.namespace ? { namespace: call.namespace } : {};
  return { id: `fc_${call.id}`, type: 'function_call', status, call_id: call.id, name: call.name, ...namespace, arguments: done ? call.arguments : '' };
}

function outputItems(meta: StreamMeta, reply: AnswerReply): Item[] {
  const text = answerText(reply);
  return [
    ...(reply.thinking ? [reasoningItem(meta, reply.thinking)] : []),
    ...(text ? [messageItem(meta, text, 'completed')] : []),
    ...(reply.kind === 'toolCalls' ? reply.calls.map((c) => callItem(c, 'completed', true)) : []),
  ];
}

function responseObject(meta: StreamMeta, status: string, output: Item[], usage: ScriptedUsage | undefined): object {
  return {
    id: `resp_${meta.id}`,
    object: 'response',
    created_at: meta.created,
    status,
    model: meta.model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    usage: usage ? usageJson(usage) : null,
  };
}

function usageJson(usage: ScriptedUsage): object {
  return {
    input_tokens: usage.prompt,
    input_tokens_details: { cached_tokens: usage.cached ?? 0 },
    output_tokens: usage.completion,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.prompt + usage.completion,
  };
}

class ResponsesStream implements WireStream {
  private sequence = 0;
  private readonly done: Item[] = [];
  private text_ = '';
  private textOpen = false;

  constructor(private readonly meta: StreamMeta) {}

  begin(thinking: string | undefined): string {
    const created = responseObject(this.meta, 'in_progress', [], undefined);
    let out = this.event('response.created', { response: created }) + this.event('response.in_progress', { response: created });
    if (thinking) {
      const item = reasoningItem(this.meta, thinking);
      out += this.event('response.output_item.added', { output_index: 0, item: { ...item, summary: [] } });
      out += this.event('response.reasoning_summary_part.added', {
        item_id: item.id,
        output_index: 0,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
      out += this.event('response.reasoning_summary_text.delta', { item_id: item.id, output_index: 0, summary_index: 0, delta: thinking });
      out += this.event('response.reasoning_summary_text.done', { item_id: item.id, output_index: 0, summary_index: 0, text: thinking });
      out += this.event('response.reasoning_summary_part.done', {
        item_id: item.id,
        output_index: 0,
        summary_index: 0,
        part: { type: 'summary_text', text: thinking },
      });
      out += this.itemDone(item);
    }
    return out;
  }

  text(delta: string): string {
    let out = '';
    const at = { item_id: `msg_${this.meta.id}`, output_index: this.done.length, content_index: 0 };
    if (!this.textOpen) {
      this.textOpen = true;
      out += this.event('response.output_item.added', { output_index: at.output_index, item: messageItem(this.meta, '', 'in_progress') });
      out += this.event('response.content_part.added', { ...at, part: outputText('') });
    }
    this.text_ += delta;
    return out + this.event('response.output_text.delta', { ...at, delta });
  }

  finish(reply: AnswerReply): string {
    let out = '';
    if (this.textOpen) {
      const at = { item_id: `msg_${this.meta.id}`, output_index: this.done.length, content_index: 0 };
      out += this.event('response.output_text.done', { ...at, text: this.text_ });
      out += this.event('response.content_part.done', { ...at, part: outputText(this.text_) });
      out += this.itemDone(messageItem(this.meta, this.text_, 'completed'));
    }
    for (const call of reply.kind === 'toolCalls' ? reply.calls : []) out += this.call(call);
    return out + this.event('response.completed', { response: responseObject(this.meta, 'completed', this.done, reply.usage) });
  }

  private call(call: ScriptedToolCall): string {
    const at = { item_id: callItem(call, '', false).id, output_index: this.done.length };
    const kind = call.custom ? 'response.custom_tool_call_input' : 'response.function_call_arguments';
    let out = this.event('response.output_item.added', { output_index: at.output_index, item: callItem(call, 'in_progress', false) });
    for (const piece of splitInTwo(call.arguments)) out += this.event(`${kind}.delta`, { ...at, delta: piece });
    out += this.event(`${kind}.done`, { ...at, [call.custom ? 'input' : 'arguments']: call.arguments });
    return out + this.itemDone(callItem(call, 'completed', true));
  }

  private itemDone(item: Item): string {
    this.done.push(item);
    return this.event('response.output_item.done', { output_index: this.done.length - 1, item });
  }

  private event(type: string, data: object): string {
    return sse({ type, sequence_number: this.sequence++, ...data }, type);
  }
}
