import { timeAgo } from '../../core/timeAgo';
import type { SessionRow } from '../../core/index/indexRows';

/** The JSON shape of a session in `list --json` and `search --json`. */
export function rowJson(row: SessionRow): Record<string, unknown> {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    workspaceDir: row.workspaceDir,
    workspaceKey: row.workspaceKey,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
    turnCount: row.turnCount,
    messageCount: row.messageCount,
    archived: row.archived,
    kind: row.kind,
    forkedFrom: row.forkedFrom,
    model: row.model,
    firstPrompt: row.firstPrompt,
    usage: row.usage,
  };
}

/** One line per session for humans. */
export function rowLine(row: SessionRow, withWorkspace: boolean): string {
  const title = row.title || row.firstPrompt || '(untitled)';
  const where = withWorkspace ? `  ${row.workspaceDir}` : '';
  return `${row.id}  ${row.status.padEnd(11)} ${String(row.turnCount).padStart(4)} turns  ${timeAgo(row.updatedAt, Date.now(), true).padStart(11)}  ${title}${where}`;
}
