import * as vscode from 'vscode';
import type { SessionUsageLine, UsageLine } from '../../core/index/usageRows';
import type { SessionStore } from '../../core/store/sessionStore';
import { labelText } from '../../core/store/summary';
import type { BraidCommand } from './command';

function table<T extends UsageLine>(title: string, rows: readonly T[], label: (row: T) => string): string {
  const lines = [`## ${title}`, '', '| | calls | input | cached | output | cost |', '| --- | ---: | ---: | ---: | ---: | ---: |'];
  for (const r of rows) lines.push(`| ${label(r).replace(/\|/g, '\\|')} | ${r.calls} | ${r.input} | ${r.cacheRead} | ${r.output} | ${r.cost.toFixed(4)} |`);
  if (rows.length === 0) lines.push('| (no usage yet) | | | | | |');
  return lines.join('\n');
}

/** A session's line: its title, or what became of it (deleted: only its forks keep its calls). */
function sessionName(row: SessionUsageLine): string {
  return row.title === null ? `deleted session ${row.key} (its calls are kept in forks)` : labelText(row.title) || `Untitled session ${row.key}`;
}

/**
 * Braid: Show Usage (and the Chat view's /usage) — calls, tokens and cost of this workspace by
 * session, model and day, each model call counted once (the same figures as `braid usage`).
 */
export function showUsageCommand(store: SessionStore | undefined, workspaceKey: string | undefined): BraidCommand {
  return {
    id: 'braid.showUsage',
    run: async () => {
      if (!store) return;
      const report = store.index.usageReport(workspaceKey);
      const text = [
        '# Braid usage in this workspace',
        '',
        'Each model call is counted once: a fork\'s copy of its source\'s history and the turns an undo brings back are not new calls.',
        '',
        table('Total', [{ key: 'All sessions', ...report.total }], (r) => r.key),
        '',
        table('By session', report.bySession, sessionName),
        '',
        table('By model', report.byModel, (r) => r.key),
        '',
        table('By day (UTC)', report.byDay, (r) => r.key),
        '',
      ].join('\n');
      const doc = await vscode.workspace.openTextDocument({ content: text, language: 'markdown' });
      await vscode.window.showTextDocument(doc, { preview: true });
    },
  };
}
