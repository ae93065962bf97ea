import type { Logger } from '../logger';
import type { ApprovalGate } from './approvals';
import type { Checkpoints } from './checkpoints';
import type { WorkspaceFs } from './workspaceFs';

/** What tools need from the session that runs them. */
export interface ToolContext {
  readonly workspace: WorkspaceFs;
  /** In an untrusted workspace nothing writes or executes. */
  readonly trusted: boolean;
  readonly approvals: ApprovalGate;
  readonly checkpoints: Checkpoints;
  readonly logger: Logger;
  /**
   * The version of each file the conversation has seen (read or written), by the path as shown:
   * a change to an existing file needs its current bytes seen (seenFiles.ts). A session always
   * gives it; without it (a tool run outside a conversation) nothing is checked.
   */
  readonly seenFiles?: () => ReadonlyMap<string, string>;
}

/** Output caps: what a model sees of a big result. */
export const LIMITS = {
  readLines: 2000,
  lineChars: 2000,
  listEntries: 1000,
  globResults: 500,
  grepMatches: 200,
  outputChars: 30_000,
  grepFileBytes: 2 * 1024 * 1024,
  /** glob and grep run in a worker thread that is stopped after this long. */
  searchTimeoutMs: 20_000,
  /** edit_file reads the whole file; write tools keep a before-image of what they replace. */
  editFileBytes: 16 * 1024 * 1024,
  bashTimeoutMs: 120_000,
  bashMaxTimeoutMs: 600_000,
};

/** Keeps the head and the tail of a long text, saying how much was cut. */
export function capText(text: string, max = LIMITS.outputChars): string {
  if (text.length <= max) return text;
  const head = text.slice(0, Math.floor(max * 0.6));
  const tail = text.slice(text.length - Math.floor(max * 0.4));
  return `${head}\n[... ${text.length - head.length - tail.length} characters cut ...]\n${tail}`;
}

/** A tool result with one text block. */
export function textResult<T>(text: string, details: T): { content: [{ type: 'text'; text: string }]; details: T } {
  return { content: [{ type: 'text', text }], details };
}
