// Reads an OpenAI-style chat request the way the demo agent needs it: whose request it is (the
// main agent, a subagent, a compaction, a side question), the user's own words, and the tool calls
// made since them with their results.

/** One message of an OpenAI-style chat request, as the demo reads it. */
export interface ChatMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: ReadonlyArray<{ readonly id?: string; readonly function?: { readonly name?: string; readonly arguments?: string } }>;
  readonly tool_call_id?: string;
}

/** The body of a `/v1/chat/completions` request. */
export interface ChatRequest {
  readonly messages?: readonly ChatMessage[];
  readonly [key: string]: unknown;
}

/** A tool call the agent already made in this turn, with the result it got (absent while none came back). */
export interface DoneCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly result: string | undefined;
}

/** Whose request this is: Braid's main agent, a subagent, the summary of a compaction, a side question, or a next-prompt suggestion. */
export type Asker = 'main' | 'subagent' | 'compaction' | 'side-question' | 'suggestion';

/** The first words of Braid's next-prompt suggestion request (SUGGESTION_REQUEST in src/core/session/suggestion.ts; a test keeps them in step). */
const SUGGESTION = /^Suggest the next prompt the user would most likely type/;

/** What the demo agent reads from a request. */
export interface DemoContext {
  readonly asker: Asker;
  /** The user's own text: the last text part of the last user message, without any system reminder. */
  readonly userText: string;
  /** Tool calls made since that message, oldest first. */
  readonly done: readonly DoneCall[];
  /** Prompts of the conversation before this one (user texts), oldest first. */
  readonly earlierPrompts: readonly string[];
  /** The turn's mode, as Braid's reminder in the user message tells it (Agent when none does). */
  readonly mode: DemoMode;
  /** The user's text of the latest earlier prompt asked in Plan mode: what "Carry out this plan" carries out. */
  readonly plannedPrompt: string | undefined;
  /** Characters the request holds, for a plausible token count. */
  readonly size: number;
  /** The number of messages, to keep tool call ids unique within a conversation. */
  readonly messageCount: number;
}

/** The modes the demo tells apart; Auto-accept edits behaves as Agent for it. */
export type DemoMode = 'ask' | 'plan' | 'agent';

/** The first words of Braid's mode reminder (modeReminder in src/core/session/modes.ts; a test keeps them in step). */
const MODE_REMINDER = /This turn runs in (Ask|Plan) mode/;

const REMINDER = /<system-reminder>[\s\S]*?(<\/system-reminder>|$)/g;

/** The text parts of a message's content (a string, or OpenAI content parts). */
function textParts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: { type?: string; text?: unknown }) => (typeof part?.text === 'string' ? [part.text] : []));
}

/**
 * The user's own words of a user message: Braid puts its reminders (git context, AGENTS.md, hook
 * output) in text parts before the user's text, which is always the last one. Reminder blocks are
 * taken out anyway, so that nothing hidden is ever quoted back.
 */
export function ownText(content: unknown): string {
  const parts = textParts(content)
    .map((t) => t.replace(REMINDER, '').trim())
    .filter(Boolean);
  return parts.at(-1) ?? '';
}

/** The mode a user message's reminders name. */
function modeOf(message: ChatMessage | undefined): DemoMode {
  const named = message ? MODE_REMINDER.exec(textParts(message.content).join('\n'))?.[1] : undefined;
  return named === 'Ask' ? 'ask' : named === 'Plan' ? 'plan' : 'agent';
}

function parseArgs(text: string | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text ?? '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function askerOf(messages: readonly ChatMessage[], lastUser: ChatMessage | undefined): Asker {
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .flatMap((m) => textParts(m.content))
    .join('\n');
  if (/subagent of Braid/i.test(system)) return 'subagent';
  if (/^You summarize the earlier part of a conversation/i.test(system.trim())) return 'compaction';
  // Braid builds every prompt of its main agent as content parts (reminders, then the user's text);
  // a side question and a suggestion request are asked as plain text after the history.
  if (typeof lastUser?.content === 'string') return SUGGESTION.test(lastUser.content) ? 'suggestion' : 'side-question';
  return 'main';
}

/** Reads a request for the demo agent. */
export function readRequest(body: ChatRequest): DemoContext {
  const messages = body.messages ?? [];
  let at = -1;
  for (let i = messages.length - 1; i >= 0 && at < 0; i--) if (messages[i]!.role === 'user') at = i;
  const lastUser = at >= 0 ? messages[at] : undefined;
  const results = new Map<string, string>();
  for (const m of messages.slice(at + 1)) if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, textParts(m.content).join('\n'));
  const done: DoneCall[] = [];
  for (const m of messages.slice(at + 1)) {
    for (const call of m.tool_calls ?? []) {
      done.push({ name: call.function?.name ?? '', args: parseArgs(call.function?.arguments), result: call.id ? results.get(call.id) : undefined });
    }
  }
  const earlierUsers = messages.slice(0, Math.max(at, 0)).filter((m) => m.role === 'user');
  const planned = earlierUsers.filter((m) => modeOf(m) === 'plan').at(-1);
  return {
    asker: askerOf(messages, lastUser),
    userText: lastUser ? ownText(lastUser.content) : '',
    done,
    earlierPrompts: earlierUsers.map((m) => ownText(m.content)).filter(Boolean),
    mode: modeOf(lastUser),
    plannedPrompt: planned ? ownText(planned.content) : undefined,
    size: messages.reduce((n, m) => n + textParts(m.content).join('').length, 0),
    messageCount: messages.length,
  };
}
