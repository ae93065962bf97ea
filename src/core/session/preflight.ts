import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ImageContent, Message, TextContent, UserMessage } from '@mariozechner/pi-ai';
import { childEnvironment } from '../process/childEnvironment';
import { reminderBlock, reminderText } from '../format/reminder';

/** What the UserPromptSubmit hook decided. */
export type HookResult = { readonly blocked: true; readonly reason: string } | { readonly blocked: false; readonly context: string };

/**
 * Runs the user's UserPromptSubmit hook: a shell command that gets `{prompt, sessionId, cwd}` as
 * JSON on stdin. Exit code 2 blocks the prompt (stderr is the reason); with exit 0, stdout is
 * extra context for the model. Other failures are reported but do not block.
 */
export function runPromptHook(
  command: string,
  input: { prompt: string; sessionId: string; cwd: string },
  timeoutMs = 30_000,
): Promise<HookResult & { warning?: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd: input.cwd, env: childEnvironment(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ blocked: false, context: '', warning: `the UserPromptSubmit hook could not start: ${err.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 2) resolve({ blocked: true, reason: stderr.trim() || 'blocked by the UserPromptSubmit hook' });
      else if (code === 0) resolve({ blocked: false, context: stdout.trim() });
      else resolve({ blocked: false, context: '', warning: `the UserPromptSubmit hook exited with ${code}: ${stderr.trim().slice(0, 200)}` });
    });
    // A hook may exit without reading its input (one that blocks every prompt, say); writing to
    // its closed stdin then fails with EPIPE, which is no failure of the hook.
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(input));
  });
}

/** Instruction files read into every turn, in this order. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md'];

/** The workspace's instruction files as reminders. */
export function instructionReminders(workspaceDir: string): string[] {
  const out: string[] = [];
  for (const name of INSTRUCTION_FILES) {
    try {
      const text = fs.readFileSync(path.join(workspaceDir, name), 'utf8').trim();
      if (text) out.push(`Instructions from ${name} in the workspace:\n${text.slice(0, 20_000)}`);
    } catch {
      // absent
    }
  }
  return out;
}

/**
 * Of the context reminders a turn would give (instruction files, git context), the ones the model
 * does not have now: not in its context (a new session, or compacted away), or changed since the
 * latest one of their kind it was given. A reminder's kind is its first line ("Instructions from
 * AGENTS.md in the workspace:", "Git context of the workspace:"). So the context goes once, at the
 * start, and again only when it changed: the turns' messages, and the prompt's cached beginning,
 * do not grow by the same text each turn.
 */
export function untold(reminders: readonly string[], context: readonly Message[]): string[] {
  const latest = new Map<string, string>();
  for (const m of context) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) {
      const text = b.type === 'text' ? reminderText(b.text) : undefined;
      if (text !== undefined) latest.set(kindOf(text), text);
    }
  }
  return reminders.filter((r) => latest.get(kindOf(r)) !== r);
}

const kindOf = (reminder: string) => reminder.split('\n', 1)[0]!;

/**
 * The user message: one-shot reminders first, then static reminders, then the attachments'
 * `<attachment …>` blocks and images, the user's text always last. Every block before the
 * user's text ends its line, so the text starts on a line of its own however a provider joins them.
 */
export function buildUserMessage(
  text: string,
  oneShot: readonly string[],
  staticReminders: readonly string[],
  now = Date.now(),
  attachments: readonly string[] = [],
  images: readonly ImageContent[] = [],
): UserMessage {
  const blocks: (TextContent | ImageContent)[] = [...oneShot, ...staticReminders].map((r) => ({ type: 'text', text: reminderBlock(r) }));
  for (const a of attachments) blocks.push({ type: 'text', text: a.endsWith('\n') ? a : `${a}\n` });
  blocks.push(...images);
  blocks.push({ type: 'text', text });
  return { role: 'user', content: blocks, timestamp: now };
}

/** The user's own text of a message built by {@link buildUserMessage} (the last text block). */
export function userTextOf(message: UserMessage): string {
  if (typeof message.content === 'string') return message.content;
  const texts = message.content.filter((b): b is TextContent => b.type === 'text');
  return texts.at(-1)?.text ?? '';
}
