import * as vscode from 'vscode';
import { getModels, getProviders, type KnownProvider } from '@mariozechner/pi-ai';
import type { SessionUsageLine, UsageLine } from '../../core/index/usageRows';
import type { SessionStore } from '../../core/store/sessionStore';
import { labelText } from '../../core/store/titles';
import { VSCODE_LM } from '../lm/vscodeLmStream';
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

/** Braid: Select Model — a model VS Code offers, or a provider's model from pi-ai's catalogue; saved in the user settings. */
export function selectModelCommand(): BraidCommand {
  return {
    id: 'braid.selectModel',
    run: async () => {
      const lm = await vscode.lm.selectChatModels({});
      type Item = vscode.QuickPickItem & { provider?: string; model?: string; more?: boolean };
      const items: Item[] = [
        ...(lm.length ? [{ label: 'Models in VS Code', kind: vscode.QuickPickItemKind.Separator } as Item] : []),
        ...lm.map((m) => ({ label: m.name, description: `${m.vendor} · ${m.id}`, provider: VSCODE_LM, model: m.id })),
        { label: 'Providers', kind: vscode.QuickPickItemKind.Separator },
        ...getProviders().map((p) => ({ label: p, description: 'choose a model…', provider: p, more: true })),
        { label: 'openai-compatible', description: 'Ollama, vLLM, LM Studio: set braid.baseUrl and braid.model', provider: 'openai-compatible', more: true },
      ];
      const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Model for the next turns' });
      if (!pick?.provider) return;
      let model = pick.model;
      if (pick.more && pick.provider === 'openai-compatible') {
        model = await vscode.window.showInputBox({ prompt: 'Model id on your OpenAI-compatible server', value: vscode.workspace.getConfiguration('braid').get<string>('model') ?? '' });
      } else if (pick.more) {
        const models = getModels(pick.provider as KnownProvider);
        const chosen = await vscode.window.showQuickPick(models.map((m) => ({ label: m.id, description: `${Math.round(m.contextWindow / 1000)}k context` })), { placeHolder: `A model of ${pick.provider}` });
        model = chosen?.label;
      }
      if (!model) return;
      const config = vscode.workspace.getConfiguration('braid');
      await config.update('provider', pick.provider, vscode.ConfigurationTarget.Global);
      await config.update('model', model, vscode.ConfigurationTarget.Global);
      void vscode.window.showInformationMessage(`Braid will use ${pick.provider} · ${model} from the next turn.`);
    },
  };
}
