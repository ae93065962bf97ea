import * as vscode from 'vscode';
import { lmAgentToolName } from '../lm/lmToolAdapter';
import { readChosenVscodeTools, VSCODE_TOOLS_SETTING } from '../lm/vscodeLmTools';
import type { BraidCommand } from '../braidCommand';

export const CHOOSE_VSCODE_TOOLS_COMMAND = 'braid.chooseVscodeTools';

type ToolItem = vscode.QuickPickItem & { readonly tool: string };

/**
 * Braid: Choose VS Code Tools…: the tools VS Code offers (other extensions', the MCP servers
 * configured in VS Code), the chosen ones checked; the choice is saved in the user's own
 * `braid.vscodeTools` and applies from the next turn. A chosen tool VS Code no longer offers stays
 * chosen (its extension may come back) and is listed so it can be unchecked.
 */
export function chooseVscodeToolsCommand(): BraidCommand {
  return {
    id: CHOOSE_VSCODE_TOOLS_COMMAND,
    failure: 'Braid could not save the VS Code tools',
    run: async () => {
      const chosen = new Set(readChosenVscodeTools());
      const offered = [...vscode.lm.tools].sort((a, b) => a.name.localeCompare(b.name));
      const items: ToolItem[] = offered.map((t) => ({
        label: t.name,
        description: lmAgentToolName(t.name),
        detail: t.description,
        picked: chosen.has(t.name),
        tool: t.name,
      }));
      const missing = [...chosen].filter((name) => !offered.some((t) => t.name === name));
      for (const name of missing) items.push({ label: name, description: 'not offered by VS Code now', picked: true, tool: name });
      if (items.length === 0) {
        void vscode.window.showInformationMessage(
          'VS Code offers no tools now: install an extension that contributes tools, or configure an MCP server in VS Code.',
        );
        return;
      }
      const picks = await vscode.window.showQuickPick(items, {
        canPickMany: true,
        matchOnDescription: true,
        matchOnDetail: true,
        placeHolder: "Tools Braid's model may call (each call asks for approval)",
      });
      if (!picks) return;
      await vscode.workspace.getConfiguration('braid').update(VSCODE_TOOLS_SETTING, picks.map((p) => p.tool).sort(), vscode.ConfigurationTarget.Global);
    },
  };
}
