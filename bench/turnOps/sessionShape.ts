// The shape of a real coding session, as sizes to draw from: a prompt's length, the model calls
// each tool makes in a turn, a tool output's size, an assistant message's text. Read from the
// real pi sessions in `../shared/real-sessions/pi/` beside the repository when that folder is
// there (sessions a person ran, committed as pi wrote them), else the built-in figures below,
// which are what those files gave.
import fs from 'node:fs';
import path from 'node:path';

/** Each measure as its deciles: 11 values, the least, each tenth, the most. */
export interface SessionShape {
  /** Where the figures come from: `real-sessions` (read now) or `built-in`. */
  readonly source: 'real-sessions' | 'built-in';
  readonly promptChars: readonly number[];
  readonly toolCallsPerTurn: readonly number[];
  readonly toolOutputChars: readonly number[];
  readonly assistantChars: readonly number[];
}

/** The deciles of the four real pi sessions of `../shared/real-sessions/pi/` (3,498 lines, 263 prompts, 1,439 tool outputs). */
const BUILT_IN: SessionShape = {
  source: 'built-in',
  promptChars: [1, 17, 32, 50, 62, 80, 97, 129, 182, 317, 2159],
  toolCallsPerTurn: [0, 0, 1, 1, 2, 3, 4, 5, 7, 13, 72],
  toolOutputChars: [5, 37, 107, 139, 153, 204, 620, 1031, 1395, 2634, 51305],
  assistantChars: [0, 76, 103, 128, 153, 195, 269, 446, 788, 1407, 56960],
};

/** The real pi sessions the shape is read from (the ones a person ran; not the constructed fixture). */
const REAL_FILES = [
  'pi-mono--before-compaction.jsonl',
  'pi-mono--large-session.jsonl',
  'pi-mono--compact-root-commit-705ba5d.jsonl',
  'pi-mono--session-root-commit-d5dde00.jsonl',
];

/** The shape read from `../shared/real-sessions/pi/` beside `repoRoot`, or the built-in one when those files are not there. */
export function sessionShape(repoRoot: string): SessionShape {
  const folder = path.join(repoRoot, '..', 'shared', 'real-sessions', 'pi');
  const files = REAL_FILES.map((f) => path.join(folder, f)).filter((f) => fs.existsSync(f));
  if (files.length === 0) return BUILT_IN;
  const sizes = { prompts: [] as number[], calls: [] as number[], outputs: [] as number[], assistant: [] as number[] };
  for (const file of files) addSizes(file, sizes);
  return {
    source: 'real-sessions',
    promptChars: deciles(sizes.prompts),
    toolCallsPerTurn: deciles(sizes.calls),
    toolOutputChars: deciles(sizes.outputs),
    assistantChars: deciles(sizes.assistant),
  };
}

interface PiMessage {
  readonly role?: string;
  readonly content?: string | ReadonlyArray<{ type?: string; text?: string; thinking?: string; arguments?: unknown }>;
}

/** The characters of a pi message's text, thinking and tool arguments. */
function charsOf(content: PiMessage['content']): number {
  if (typeof content === 'string') return content.length;
  let n = 0;
  for (const block of content ?? [])
    n += (block.text?.length ?? 0) + (block.thinking?.length ?? 0) + (block.arguments ? JSON.stringify(block.arguments).length : 0);
  return n;
}

/** Adds a pi session's sizes: each user message starts a turn; tool calls are counted up to the next one. */
function addSizes(file: string, sizes: { prompts: number[]; calls: number[]; outputs: number[]; assistant: number[] }): void {
  let calls: number | undefined;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    let message: PiMessage | undefined;
    try {
      message = (JSON.parse(line) as { message?: PiMessage }).message;
    } catch {
      continue; // a torn or doubled line, as real files have
    }
    if (message?.role === 'user') {
      if (calls !== undefined) sizes.calls.push(calls);
      calls = 0;
      sizes.prompts.push(charsOf(message.content));
    } else if (message?.role === 'toolResult') sizes.outputs.push(charsOf(message.content));
    else if (message?.role === 'assistant') {
      sizes.assistant.push(charsOf(message.content));
      if (calls !== undefined && Array.isArray(message.content)) calls += message.content.filter((b) => b.type === 'toolCall').length;
    }
  }
  if (calls !== undefined) sizes.calls.push(calls);
}

function deciles(values: readonly number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  return Array.from({ length: 11 }, (_, k) => sorted[Math.round((k / 10) * (sorted.length - 1))] ?? 0);
}

/**
 * A value drawn from quantiles (deciles: 11 values; any evenly spaced cut points, least to most):
 * a span between two neighbours picked at random, then a point inside it (`next` gives numbers in [0, 1)).
 */
export function drawn(quantiles: readonly number[], next: () => number): number {
  const spans = quantiles.length - 1;
  const u = next() * spans;
  const k = Math.min(spans - 1, Math.floor(u));
  const lo = quantiles[k]!;
  const hi = quantiles[k + 1]!;
  return Math.round(lo + (u - k) * (hi - lo));
}
