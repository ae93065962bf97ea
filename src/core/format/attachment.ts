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
  /** The text the model gets; not cut yet. */
  readonly text: string;
}

const KINDS = new Set(['file', 'selection', 'folder', 'editor', 'problems', 'gitDiff', 'image']);

/** Whether a value read from disk is an attachment. */
export function isAttachment(value: unknown): value is Attachment {
  if (typeof value !== 'object' || value === null) return false;
  const a = value as Record<string, unknown>;
  if (!KINDS.has(a.kind as string) || typeof a.label !== 'string' || typeof a.text !== 'string') return false;
  if (a.path !== undefined && typeof a.path !== 'string') return false;
  return a.lines === undefined || (Array.isArray(a.lines) && a.lines.length === 2 && a.lines.every((n) => Number.isInteger(n)));
}
