import type { Message } from '@mariozechner/pi-ai';
import type { History } from '../wire/replay';
import { injectedOf } from '../wire/records';
import { scanWireLog, type ScanReport } from '../wire/wireReader';
import type { SessionState } from '../format/sessionState';
import { messageText, promptText } from '../format/messageText';
import { shownTitle } from '../format/titles';

/** A code fence around `text`, longer than any run of backticks in it. */
function fence(text: string, lang = ''): string {
  // A loop, not Math.max(...runs): a text of millions of runs would overflow the call's arguments.
  let longest = 2;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

/** Where an exported Markdown file finds an image of the session (a path beside it), by blob and type. */
export type ImageLink = (blob: string, mimeType: string) => string;

/** The file name an exported image gets: its hash and its type's extension. */
export function imageFileName(blob: string, mimeType: string): string {
  const ext = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' }[mimeType] ?? 'bin';
  return `${blob}.${ext}`;
}

/** The images a prompt carried, as the log names them (blob and type). */
export function promptImages(message: Message): { blob: string; mimeType: string }[] {
  if (message.role !== 'user' || typeof message.content === 'string') return [];
  return (message.content as unknown as Record<string, unknown>[]).flatMap((b) =>
    b.type === 'image' && typeof b.blob === 'string' && typeof b.mimeType === 'string' ? [{ blob: b.blob, mimeType: b.mimeType }] : [],
  );
}

/**
 * The effective conversation as Markdown: prompts, answers, tool calls and results. A prompt's
 * images are linked through `imageLink` (files written beside), or named when there is none.
 */
export function exportMarkdown(state: SessionState, history: History, imageLink?: ImageLink): string {
  const out: string[] = [`# ${shownTitle(state) || state.id}`, ''];
  out.push(
    `- Session: \`${state.id}\``,
    `- Workspace: \`${state.workspaceDir}\``,
    `- Created: ${new Date(state.createdAt).toISOString()}`,
    `- Turns: ${state.turnCount}`,
    `- Tokens${state.forkedFrom ? ' (with the history inherited from the fork source)' : ''}: ${state.usage.input} in, ${state.usage.output} out, ${state.usage.cacheRead} cached; cost ${state.usage.cost.toFixed(4)}`,
  );
  if (state.forkedFrom) out.push(`- Forked from: \`${state.forkedFrom.sessionId}\`${state.forkedFrom.turn ? ` at turn ${state.forkedFrom.turn}` : ''}`);
  // A compaction is shown at the end of the turn it was made in.
  const compactionsOf = (t: number) =>
    history.compactions
      .filter((c) => c.turn === t)
      .flatMap((c) => [
        '',
        `*Context compacted: ${c.summarized} earlier messages summarized for the model (they stay above and in the log).*`,
        '',
        '<details><summary>Summary the model sees</summary>',
        '',
        c.summary,
        '',
        '</details>',
      ]);
  let turn = 0;
  for (const record of history.messages) {
    const { message, turn: t } = record;
    if (t !== turn) {
      out.push(...compactionsOf(turn));
      turn = t;
      out.push('', `## Turn ${t}`);
    }
    const injected = injectedOf(record);
    if (injected)
      out.push('', `<details><summary>Context ${injected.by} added (${injected.kind})</summary>`, '', fence(messageText(message)), '', '</details>');
    else if (message.role === 'user') {
      out.push('', '### User', '', promptText(message));
      for (const image of promptImages(message))
        out.push('', imageLink ? `![Attached image](${imageLink(image.blob, image.mimeType)})` : `*An image was attached (${image.mimeType}).*`);
      const added = typeof message.content === 'string' ? [] : message.content.slice(0, -1).filter((b) => b.type === 'text');
      if (added.length)
        out.push('', '<details><summary>Context Braid added</summary>', '', ...added.map((b) => fence(b.type === 'text' ? b.text : '')), '', '</details>');
    } else if (message.role === 'assistant') {
      out.push('', '### Assistant');
      if (message.stopReason === 'error') out.push('', `*The model call failed: ${message.errorMessage ?? 'unknown error'}*`);
      for (const block of message.content) {
        if (block.type === 'text') out.push('', block.text);
        else if (block.type === 'thinking') out.push('', '<details><summary>Thinking</summary>', '', block.thinking, '', '</details>');
        else if (block.type === 'toolCall')
          out.push('', `Tool call \`${block.name}\` (\`${block.id}\`):`, '', fence(JSON.stringify(block.arguments, null, 2), 'json'));
      }
    } else {
      const text = message.content.map((b) => (b.type === 'text' ? b.text : '[image]')).join('\n');
      out.push('', `Result of \`${message.toolName}\`${message.isError ? ' (error)' : ''}:`, '', fence(text));
    }
  }
  out.push(...compactionsOf(turn));
  return `${out.join('\n')}\n`;
}

/** The main log's readable lines as they are (unknown records included; a torn tail and damaged lines left out), and what the read skipped. */
export function exportJsonl(logFile: string): { text: string; report: ScanReport } {
  const lines: string[] = [];
  const report = scanWireLog(logFile, (_r, _o, _l, raw) => lines.push(raw));
  return { text: lines.length ? `${lines.join('\n')}\n` : '', report };
}
