import * as vscode from 'vscode';
import { MODEL_GROUP_TITLES, type ModelChoiceItem } from '../../protocol/messages';
import { applyModel, listModelChoices, resolvePick } from '../model/modelPicker';
import type { BraidCommand } from '../braidCommand';

type Line = vscode.QuickPickItem & { choice?: ModelChoiceItem };

/** The picker's lines as quick pick items: the current model with a check, a separator per group. */
function quickPickItems(choices: readonly ModelChoiceItem[]): Line[] {
  const items: Line[] = [];
  let group: ModelChoiceItem['group'] | undefined;
  for (const choice of choices) {
    if (choice.group !== group) {
      group = choice.group;
      items.push({ label: MODEL_GROUP_TITLES[group], kind: vscode.QuickPickItemKind.Separator });
    }
    items.push({ label: choice.group === 'current' ? `$(check) ${choice.label}` : choice.label, description: choice.description, choice });
  }
  return items;
}

/**
 * Braid: Select Model (and /model): the current model first and marked, then models VS Code
 * offers, providers with an API key, and the rest; saved in the user settings for the next turn.
 */
export function selectModelCommand(secrets: vscode.SecretStorage): BraidCommand {
  return {
    id: 'braid.selectModel',
    run: async () => {
      const pick = await vscode.window.showQuickPick(quickPickItems(await listModelChoices(secrets)), {
        placeHolder: 'Model for the next turns',
        matchOnDescription: true,
      });
      if (!pick?.choice) return;
      const resolved = await resolvePick(pick.choice);
      if (resolved) await applyModel(secrets, resolved);
    },
  };
}
