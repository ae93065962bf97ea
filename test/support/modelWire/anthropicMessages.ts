import { answerText, splitInTwo, sse, type AnswerReply, type ScriptedUsage, type StreamMeta, type WireFormat, type WireStream } from './wire';

/**
 * Anthropic's Messages API (`POST /v1/messages`), as Claude Code speaks it: `message_start` with
 * the input usage, content blocks (thinking with a signature, text, tool_use whose input arrives
 * as `input_json_delta` pieces) started, changed and stopped by index, `message_delta` with the
 * stop reason and the output tokens, `message_stop`. Input tokens exclude the cached ones there.
 */
export const anthropicMessages: WireFormat = {
  path: '/v1/messages',
  errorBody: (status, message) => ({ type: 'error', error: { type: errorType(status), message } }),
  whole(meta, reply) {
    const text = answerText(reply);
    const content = [
      ...(reply.thinking ? [{ type: 'thinking', thinking: reply.thinking, signature: signatureOf(reply.thinking) }] : []),
      ...(text ? [{ type: 'text', text }] : []),
      ...(reply.kind === 'toolCalls' ? reply.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.arguments) as unknown })) : []),
    ];
    return {
      ...messageObject(meta, reply.usage),
      content,
      stop_reason: stopReason(reply),
      usage: { ...usageJson(reply.usage), output_tokens: reply.usage?.completion ?? 0 },
    };
  },
  stream: (meta) => new MessagesStream(meta),
};

function errorType(status: number): string {
  const types: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    404: 'not_found_error',
    429: 'rate_limit_error',
    529: 'overloaded_error',
  };
  return types[status] ?? 'api_error';
}

function stopReason(reply: AnswerReply): string {
  return reply.kind === 'toolCalls' ? 'tool_use' : 'end_turn';
}

/** A stand-in for the signature the API puts on thinking (opaque to clients, sent back as it came). */
function signatureOf(thinking: string): string {
  return Buffer.from(`scripted:${thinking.length}`).toString('base64');
}

function messageObject(meta: StreamMeta, usage: ScriptedUsage | undefined): Record<string, unknown> {
  return {
    id: `msg_${meta.id}`,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...usageJson(usage), output_tokens: 1 },
  };
}

function usageJson(usage: ScriptedUsage | undefined): Record<string, number> {
  const cached = usage?.cached ?? 0;
  const written = usage?.cacheWrite ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt ?? 0) - cached - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached,
  };
}

class MessagesStream implements WireStream {
  private index = -1;
  private textOpen = false;

  constructor(private readonly meta: StreamMeta) {}

  begin(thinking: string | undefined): string {
    let out = sse({ type: 'message_start', message: messageObject(this.meta, this.meta.usage) }, 'message_start');
    if (thinking) {
      out += this.start({ type: 'thinking', thinking: '', signature: '' });
      out += this.delta({ type: 'thinking_delta', thinking });
      out += this.delta({ type: 'signature_delta', signature: signatureOf(thinking) });
      out += this.stop();
    }
    return out + sse({ type: 'ping' }, 'ping');
  }

  text(delta: string): string {
    let out = '';
    if (!this.textOpen) {
      this.textOpen = true;
      out += this.start({ type: 'text', text: '' });
    }
    return out + this.delta({ type: 'text_delta', text: delta });
  }

  finish(reply: AnswerReply): string {
    let out = this.textOpen ? this.stop() : '';
    this.textOpen = false;
    for (const call of reply.kind === 'toolCalls' ? reply.calls : []) {
      out += this.start({ type: 'tool_use', id: call.id, name: call.name, input: {} });
      for (const piece of splitInTwo(call.arguments)) out += this.delta({ type: 'input_json_delta', partial_json: piece });
      out += this.stop();
    }
    const usage = { ...usageJson(reply.usage), output_tokens: reply.usage?.completion ?? 0 };
    out += sse({ type: 'message_delta', delta: { stop_reason: stopReason(reply), stop_sequence: null }, usage }, 'message_delta');
    return out + sse({ type: 'message_stop' }, 'message_stop');
  }

  private start(block: object): string {
    this.index++;
    return sse({ type: 'content_block_start', index: this.index, content_block: block }, 'content_block_start');
  }

  private delta(delta: object): string {
    return sse({ type: 'content_block_delta', index: this.index, delta }, 'content_block_delta');
  }

  private stop(): string {
    return sse({ type: 'content_block_stop', index: this.index }, 'content_block_stop');
  }
}
