import * as vscode from 'vscode';
import { getModels, getProviders, type KnownProvider } from '@mariozechner/pi-ai';
import { VSCODE_LM } from '../lm/vscodeLmStream';
import type { UsagePanel } from '../usage/usagePanel';
import type { BraidCommand } from './command';

/** Braid: Show Usage (and the Chat view's /usage): the Usage view, calls, tokens and cost each model call counted once. */
export function showUsageCommand(view: UsagePanel): BraidCommand {
  return { id: 'braid.showUsage', run: () => view.show() };
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
