import { injectedOf, type CacheBreakRecord, type CompactionRecord, type ContextRecord, type MessageRecord } from '../../core/wire/records';
import { cacheBreakLine } from '../../core/format/cacheBreaks';
import { messageText, promptText } from '../../core/format/messageText';
import { textStart } from '../../core/format/textStart';
import type { AttachmentChip, ToolEntry, TranscriptEntry } from '../../protocol/frames';
import type { TurnMode } from '../../core/wire/turnMode';
import { toolDiff } from './lineDiff';

/** Longest argument or result text a tool card carries (characters). */
const CARD_TEXT = 4000;

/** Longest summary of a tool call (characters). */
const SUMMARY_TEXT = 200;

function cut(text: string): string {
  if (text.length <= CARD_TEXT) return text;
  const shown = textStart(text, CARD_TEXT);
  return `${shown}\n… ${text.length - shown.length} more characters`;
}

/** One line describing a tool call: its name and its main argument (its start: a command can be megabytes). */
export function toolSummary(name: string, args: unknown): string {
  const a = (args ?? {}) as Record<string, unknown>;
  const main = a.path ?? a.command ?? a.pattern ?? a.description;
  return typeof main === 'string' ? textStart(`${name} ${textStart(main, SUMMARY_TEXT)}`, SUMMARY_TEXT) : name;
}

/** A tool card for a call that has not ended yet: no diff yet (an approval card shows it while asked). */
export function toolCard(key: string, name: string, args: unknown): ToolEntry {
  let json: string;
  try {
    json = JSON.stringify(args ?? {}, null, 2) ?? '';
  } catch {
    json = String(args);
  }
  return { kind: 'tool', key, name, summary: toolSummary(name, args), args: cut(json), diff: '', status: 'running', result: '' };
}

/** A tool result's text for its card. */
export function resultText(content: readonly { type: string; text?: string }[]): string {
  return cut(content.map((b) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`)).join('\n'));
}

/** The divider of a compaction; its key is the same live and from the log. */
export function compactionEntry(record: CompactionRecord): TranscriptEntry {
  return { kind: 'compaction', key: `compaction:${record.ts}:${record.firstKeptMessageId}`, summary: record.summary, summarized: record.summarized ?? 0 };
}

/** The transcript's marker of a cache break, under the answer whose call broke the cache; the same key live and from the log. */
export function cacheBreakEntry(record: CacheBreakRecord): TranscriptEntry {
  return { kind: 'cacheBreak', key: `cache-break:${record.messageId}`, cause: record.cause, text: cacheBreakLine(record) };
}

/** An image's `data:` URI from the session's blobs, or undefined when it cannot be shown. */
export type ImageReader = (blob: string, mimeType: string) => string | undefined;

/** The chips of a context record, as the transcript shows them under its prompt (an image with its thumbnail). */
export function attachmentChips(record: ContextRecord, imageOf?: ImageReader): AttachmentChip[] {
  return record.items.map((item) => {
    const lines = item.lines ? `:${item.lines[0]}-${item.lines[1]}` : '';
    const detail = item.path !== undefined ? `${item.path}${lines}` : item.uri;
    const image = item.blob && item.mimeType ? imageOf?.(item.blob, item.mimeType) : undefined;
    return { kind: item.kind, label: item.label, ...(detail !== undefined ? { detail } : {}), truncated: item.truncated, ...(image ? { image } : {}) };
  });
}

/** What a page of the log says beside its messages. */
export interface PageFacts {
  /** Its compactions, each with the id of the message it follows (undefined: before the first). */
  readonly compactions?: readonly { record: CompactionRecord; afterMessageId: string | undefined }[];
  /** The mode of each turn whose turn_begin names one: its prompt shows it. */
  readonly modes?: ReadonlyMap<number, TurnMode>;
  /** What the user attached to each prompt, by its message id: chips under the prompt. */
  readonly contexts?: ReadonlyMap<string, ContextRecord>;
  /** Reads an attached image's thumbnail. */
  readonly imageOf?: ImageReader;
  /** The records are an older page: newer messages exist. */
  readonly newerExist?: boolean;
  /** Cache breaks, by the id of the answer whose call broke the cache. */
  readonly breaks?: ReadonlyMap<string, CacheBreakRecord>;
}

/**
 * The transcript entries of committed messages, with the divider of each compaction after the
 * message it follows in the log, and each prompt's mode and attachments. A tool call's card
 * carries its result when the result is among `records`; without it, the call still runs, unless
 * newer messages exist.
 */
export function toEntries(
  records: readonly MessageRecord[],
  { compactions = [], modes, contexts, imageOf, newerExist = false, breaks }: PageFacts = {},
): TranscriptEntry[] {
  const results = new Map<string, { isError: boolean; text: string; diff: unknown }>();
  for (const { message } of records) {
    if (message.role === 'toolResult')
      results.set(message.toolCallId, {
        isError: message.isError,
        text: resultText(message.content),
        diff: (message.details as { diff?: unknown } | undefined)?.diff,
      });
  }
  const entries: TranscriptEntry[] = compactions.filter((c) => c.afterMessageId === undefined).map((c) => compactionEntry(c.record));
  const after = new Map<string, TranscriptEntry[]>();
  for (const c of compactions)
    if (c.afterMessageId !== undefined) after.set(c.afterMessageId, [...(after.get(c.afterMessageId) ?? []), compactionEntry(c.record)]);
  for (const record of records) {
    const { message, id, turn } = record;
    // Agent, the usual mode, goes unsaid; the others show on their prompts.
    const mode = modes?.get(turn) === 'agent' ? undefined : modes?.get(turn);
    const injected = injectedOf(record);
    if (injected) entries.push({ kind: 'context', key: id, by: injected.by, what: injected.kind, text: messageText(message) });
    else if (message.role === 'user') {
      const context = contexts?.get(id);
      entries.push({
        kind: 'user',
        key: id,
        text: promptText(message),
        messageId: id,
        ...(mode ? { mode } : {}),
        ...(context ? { attachments: attachmentChips(context, imageOf) } : {}),
      });
    } else if (message.role === 'assistant') {
      const text = messageText(message);
      const thinking = message.content.map((b) => (b.type === 'thinking' ? b.thinking : '')).join('');
      const failed = message.stopReason === 'error' && message.errorMessage ? `\n\n*${message.errorMessage}*` : '';
      if (text.trim() || thinking.trim()) entries.push({ kind: 'assistant', key: id, text: text + (text.trim() ? failed : ''), thinking });
      for (const block of message.content) {
        if (block.type !== 'toolCall') continue;
        const card = toolCard(block.id, block.name, block.arguments);
        const result = results.get(block.id);
        // Without its result here, a call still runs, unless newer messages (an older page's
        // caller knows) hold the result.
        // A done write's diff: the one its result keeps (with context lines), or, in a log written
        // before results kept one, the replaced fragment from its arguments.
        const diff = typeof result?.diff === 'string' ? result.diff : toolDiff(block.name, block.arguments);
        if (result) entries.push({ ...card, status: result.isError ? 'error' : 'done', result: result.text, diff: result.isError ? '' : diff });
        else entries.push(newerExist ? { ...card, status: 'done', diff } : card);
      }
    }
    const broke = breaks?.get(id);
    if (broke) entries.push(cacheBreakEntry(broke));
    entries.push(...(after.get(id) ?? []));
  }
  return entries;
}
