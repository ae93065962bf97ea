import * as vscode from 'vscode';
import { PermissionRules, type ListedRule } from '../../core/setup/permissions/permissionRules';
import { removeUserRule } from '../../core/setup/permissions/userRuleFile';
import type { ChatHub } from '../chat/chatHub';
import { changeVscodeRule, vscodeSetupSources } from '../setup/permissionSetting';
import type { BraidCommand } from '../braidCommand';
import { UserFacingError } from '../reported';

/**
 * Braid: Show Permission Rules — every rule with its kind and origin (the open session's, its
 * session rules included; else the settings as they are now). Picking one of the user's rules
 * offers to remove it from the settings it is in.
 */
export function showPermissionRulesCommand(chat: ChatHub): BraidCommand {
  return {
    id: 'braid.showPermissionRules',
    failure: 'Braid could not show the permission rules',
    run: async () => {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const rules = chat.current.permissionRules ?? (folder ? PermissionRules.fromSources(vscodeSetupSources(folder)) : undefined);
      if (!rules || rules.rules.length === 0) {
        void vscode.window.showInformationMessage(
          'No permission rules. Add them under "braid.permissions" in your settings, or choose "Always allow" on an approval.',
        );
        return;
      }
      const picked = await vscode.window.showQuickPick(
        rules.rules.map((r) => ({ label: `${r.kind} ${r.rule.text}`, description: origin(r), detail: r.file, rule: r })),
        { title: 'Braid: Permission Rules (deny over ask over allow)', placeHolder: 'Pick one of your rules to remove it', matchOnDescription: true },
      );
      if (!picked) return;
      await offerRemove(picked.rule);
    },
  };
}

function origin(rule: ListedRule): string {
  const where = rule.origin === 'vscode' ? 'VS Code user settings' : rule.origin === 'session' ? 'this session' : rule.origin;
  return rule.applies ? where : `${where}: not applied until the project's settings are approved`;
}

async function offerRemove(rule: ListedRule): Promise<void> {
  if (rule.origin !== 'user' && rule.origin !== 'vscode') {
    void vscode.window.showInformationMessage(
      rule.origin === 'session' ? 'A session rule lasts until the session closes.' : `This rule is the project's; edit ${rule.file} to change it.`,
    );
    return;
  }
  const remove = await vscode.window.showWarningMessage(`Remove the rule ${rule.kind} ${rule.rule.text} from ${rule.file}?`, { modal: true }, 'Remove');
  if (remove !== 'Remove') return;
  if (rule.origin === 'vscode') await changeVscodeRule(rule.kind, rule.rule.text, 'remove');
  else if (!(await removeUserRule(rule.file, rule.kind, rule.rule.text))) throw new UserFacingError(`The rule ${rule.rule.text} is no longer in ${rule.file}.`);
  void vscode.window.showInformationMessage(`Removed ${rule.kind} ${rule.rule.text}; sessions opened from now on no longer have it.`);
}
