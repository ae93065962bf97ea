import type { Attachment } from '../format/attachment';
import type { ContextItem } from '../wire/records';

export type { Attachment };

/** Longest text one attachment sends to the model (characters). */
export const MAX_ATTACHMENT_CHARS = 20_000;
/** Longest text all the attachments of one prompt send together (characters). */
export const MAX_ATTACHMENTS_TOTAL = 60_000;

/** The bounded text blocks of a prompt's attachments, and the record of what was sent. */
export interface AttachedContext {
  readonly blocks: string[];
  /** The images, by blob, in the order attached. */
  readonly images: { readonly blob: string; readonly mimeType: string }[];
  readonly items: ContextItem[];
}

/** Quotes a value for the `<attachment …>` header: no quote or line break can end it early. */
function attribute(value: string): string {
  return JSON.stringify(value.replace(/[\r\n]+/g, ' '));
}

/**
 * Each attachment as an `<attachment …>` text block, cut to MAX_ATTACHMENT_CHARS and, together,
 * to MAX_ATTACHMENTS_TOTAL; a cut is said in the block, so the model knows it saw part of it.
 * Images (already stored as blobs) are listed apart: they go as image blocks, whole.
 */
export function attachContext(attachments: readonly Attachment[]): AttachedContext {
  const blocks: string[] = [];
  const images: AttachedContext['images'] = [];
  const items: ContextItem[] = [];
  let left = MAX_ATTACHMENTS_TOTAL;
  for (const a of attachments) {
    if (a.image?.blob) {
      images.push({ blob: a.image.blob, mimeType: a.image.mimeType });
      items.push({ kind: 'image', label: a.label, chars: 0, truncated: false, blob: a.image.blob, mimeType: a.image.mimeType });
      continue;
    }
    const limit = Math.min(MAX_ATTACHMENT_CHARS, left);
    const truncated = a.text.length > limit;
    const sent = truncated ? a.text.slice(0, limit) : a.text;
    left -= sent.length;
    const head = [`kind=${attribute(a.kind)}`, `label=${attribute(a.label)}`];
    if (a.path !== undefined) head.push(`path=${attribute(a.path)}`);
    if (a.lines) head.push(`lines="${a.lines[0]}-${a.lines[1]}"`);
    if (a.uri !== undefined) head.push(`uri=${attribute(a.uri)}`);
    const note = truncated ? `\n[Cut: the first ${sent.length} of ${a.text.length} characters are shown; read the rest with the tools if you need it.]` : '';
    blocks.push(`<attachment ${head.join(' ')}>\n${sent}${note}\n</attachment>`);
    items.push({
      kind: a.kind,
      label: a.label,
      ...(a.path !== undefined ? { path: a.path } : {}),
      ...(a.lines ? { lines: [a.lines[0], a.lines[1]] as [number, number] } : {}),
      ...(a.uri !== undefined ? { uri: a.uri } : {}),
      chars: sent.length,
      truncated,
    });
  }
  return { blocks, images, items };
}
