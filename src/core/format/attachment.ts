import type { ContextItem } from '../wire/records';

/** What the user attached to a prompt, its content already read by the host (kept so in a queued prompt). */
export interface Attachment {
  readonly kind: ContextItem['kind'];
  /** What the chip shows: a file name, "Problems", "Git diff". */
  readonly label: string;
  /** Workspace-relative path of a file, selection, folder or editor. */
  readonly path?: string;
  /** First and last line of a selection (1-based). */
  readonly lines?: readonly [number, number];
  /** An MCP server's resource, as `server:uri` (how `@server:uri` names it). */
  readonly uri?: string;
  /** The text the model gets; not cut yet (empty for an image). */
  readonly text: string;
  /** An image's type and bytes: base64 `data` as the page sent it, or the session's `blob` once stored. */
  readonly image?: { readonly mimeType: string; readonly blob?: string; readonly data?: string };
}

/** The image types a prompt can carry (what the providers take). */
export const IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

const KINDS = new Set(['file', 'selection', 'folder', 'editor', 'problems', 'gitDiff', 'image', 'mcpResource']);

/** Whether a value read from disk is an attachment. */
export function isAttachment(value: unknown): value is Attachment {
  if (typeof value !== 'object' || value === null) return false;
  const a = value as Record<string, unknown>;
  if (!KINDS.has(a.kind as string) || typeof a.label !== 'string' || typeof a.text !== 'string') return false;
  if (a.path !== undefined && typeof a.path !== 'string') return false;
  if (a.uri !== undefined && typeof a.uri !== 'string') return false;
  if (a.image !== undefined) {
    const image = a.image as Record<string, unknown> | null;
    if (typeof image !== 'object' || image === null || !IMAGE_TYPES.includes(image.mimeType as string) || !/^[0-9a-f]{64}$/.test(String(image.blob)))
      return false;
  }
  return a.lines === undefined || (Array.isArray(a.lines) && a.lines.length === 2 && a.lines.every((n) => Number.isInteger(n)));
}
