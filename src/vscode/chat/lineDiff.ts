import { lineDiff } from '../../core/format/lineDiff';

/** The diff a write or edit tool call makes, from its arguments; empty for other tools. */
export function toolDiff(name: string, args: unknown): string {
  const a = (args ?? {}) as Record<string, unknown>;
  if (name === 'edit_file' && typeof a.old_text === 'string' && typeof a.new_text === 'string') return lineDiff(a.old_text, a.new_text);
  if (name === 'write_file' && typeof a.content === 'string') return lineDiff('', a.content);
  return '';
}
