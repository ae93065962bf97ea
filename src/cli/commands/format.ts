import { sessionTitle } from '../../core/format/titles';
import { timeAgo } from '../../core/timeAgo';
import type { SessionRow } from '../../core/index/indexRows';
import { sharedBy } from '../../core/format/sessionState';
import { writeFailureOfNote } from '../../core/format/writeFailure';
import { oneLine, shortLine } from '../terminalText';

/** A time as ISO 8601, or null when it is not one a Date can hold (one bad row never breaks a listing). */
export function isoTime(ms: number): string | null {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The JSON shape of a session in `list --json` and `search --json` (`shortId`: the form it is shown by). */
export function rowJson(row: SessionRow, shortId: string = row.id): Record<string, unknown> {
  return {
    id: row.id,
    shortId,
    title: row.title,
    status: row.status,
    error: row.error,
    // A log write that failed for good: its kind and message (null otherwise).
    writeFailure: writeFailureOfNote(row.error) ?? null,
    workspaceDir: row.workspaceDir,
    workspaceKey: row.workspaceKey,
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
    turnCount: row.turnCount,
    messageCount: row.messageCount,
    archived: row.archived,
    kind: row.kind,
    forkedFrom: row.forkedFrom,
    model: row.model,
    // The git branch of its last turn that recorded one (null: none did).
    branch: row.branch,
    // Where a session pulled from a git remote came from (null: this machine's).
    shared: row.shared,
    firstPrompt: row.firstPrompt,
    usage: row.usage,
  };
}

/** A branch name in a line longer than this is cut (its end shown as `…`). */
const SHOWN_BRANCH = 32;

/**
 * One line per session for humans, the session named by `shown` (its short form, or its whole id
 * where the user must tell ids apart), its title followed by its branch in parentheses when it has
 * one: a line break in a title or folder name cannot start a row of its own.
 */
export function rowLine(row: SessionRow, withWorkspace: boolean, shown: string): string {
  const title = sessionTitle(row) || '(untitled)';
  const branch = row.branch ? `  (${shortLine(row.branch, SHOWN_BRANCH)}${row.branch.length > SHOWN_BRANCH ? '…' : ''})` : '';
  const where = withWorkspace ? `  ${row.workspaceDir}` : '';
  const failure = writeFailureOfNote(row.error);
  const unsaved = failure ? `  [not saved: ${failure.kind}: ${failure.message}]` : '';
  const shared = row.shared ? `  [shared: ${sharedBy(row.shared)}]` : '';
  return oneLine(
    `${shown}  ${row.status.padEnd(11)} ${String(row.turnCount).padStart(4)} turns  ${timeAgo(row.updatedAt, Date.now(), true).padStart(11)}  ${title}${branch}${shared}${unsaved}${where}`,
  );
}
