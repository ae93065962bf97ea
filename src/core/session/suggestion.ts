import type { Api, Message, Model } from '@mariozechner/pi-ai';
import { OPENAI_COMPATIBLE } from '../model/modelSettings';

/**
 * What a next-prompt suggestion asks, as a user message after the whole history (docs/reference.md,
 * Turns and prompts). The demo agent recognises it by its first words (src/demo/demoRequest.ts).
 */
export const SUGGESTION_REQUEST =
  "Suggest the next prompt the user would most likely type now. Reply with that prompt alone, in the user's voice, on one line, at most 15 words, without quotes or explanation, and call no tool. If no next step is likely, reply NONE.";

/** The longest answer a suggestion asks for: one short line, with room for a model that thinks aloud first. */
export const SUGGESTION_MAX_TOKENS = 256;

/** The longest suggestion shown; a longer answer ignored the request and is dropped, never cut. */
export const SUGGESTION_MAX_CHARS = 120;

/** `braid.suggestions`: `auto` asks only a model on this machine, where the call costs nothing. */
export const SUGGESTION_SETTINGS = ['auto', 'on', 'off'] as const;
export type SuggestionSetting = (typeof SUGGESTION_SETTINGS)[number];

/** Host names of this machine: a server there is not metered. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether to ask `model` for suggestions under `setting`: `on` and `off` say so; `auto` only an
 * OpenAI-compatible server on this machine (Ollama, llama-server, `npm start`'s demo), never a
 * metered provider, whose every call is paid.
 */
export function suggestionsWanted(setting: SuggestionSetting, model: Pick<Model<Api>, 'provider' | 'baseUrl'>): boolean {
  if (setting !== 'auto') return setting === 'on';
  if (model.provider !== OPENAI_COMPATIBLE) return false;
  try {
    return LOOPBACK.has(new URL(model.baseUrl).hostname.toLowerCase());
  } catch {
    return false;
  }
}

/**
 * The context of a suggestion: the history exactly as the conversation's requests send it (the
 * kernel's roles, nothing cut), so the provider's cached prefix is reused, and the request last.
 */
export function suggestionContext(history: readonly Message[]): Message[] {
  const kept = history.filter((m) => m.role === 'user' || m.role === 'assistant' || m.role === 'toolResult');
  return [...kept, { role: 'user', content: SUGGESTION_REQUEST, timestamp: Date.now() }];
}

/** Quotes and labels a model may wrap its one line in. */
const QUOTE = /["'“”‘’`«»]/;
const LABEL = /^(next prompt|suggested prompt|suggestion|prompt)\s*:\s*/i;
/** Control, zero-width and bidi characters: model text never steers how the input shows. */
// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/**
 * A line without the quotes around it: a quote is taken off only with one at the other end, so a
 * quote the prompt itself ends with (Run `ls -la`) stays. A step per pair (a pattern for the
 * closing ones would try each start of a long run of them).
 */
function unquoted(line: string): string {
  let start = 0;
  let end = line.length;
  while (end - start >= 2 && QUOTE.test(line[start]!) && QUOTE.test(line[end - 1]!)) {
    start++;
    end--;
  }
  return line.slice(start, end);
}

/**
 * The suggestion in a model's answer: its first line without thinking tags, quotes or a label,
 * invisible characters and whitespace runs made one space; undefined for NONE, nothing, or a line longer than SUGGESTION_MAX_CHARS.
 */
export function suggestionText(answer: string): string | undefined {
  const line = answer
    .replace(/<think>[\s\S]*?(<\/think>|$)/gi, '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (!line) return undefined;
  const text = unquoted(line.replace(INVISIBLE, ' ').replace(LABEL, '')).replace(/\s+/g, ' ').trim();
  if (!text || /^none\W*$/i.test(text)) return undefined;
  return text.length > SUGGESTION_MAX_CHARS ? undefined : text;
}
