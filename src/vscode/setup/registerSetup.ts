import type * as vscode from 'vscode';
import { registerCommands } from '../commands';
import { approveProjectSetupCommand } from '../commands/approveProjectSetup';
import { chooseVscodeToolsCommand } from '../commands/chooseVscodeTools';
import type { CommandContext } from '../commands/commandContext';
import { showPermissionRulesCommand } from '../commands/permissionRules';
import { showSetupCommand } from '../commands/showSetup';
import { ApprovalNotice } from './approvalNotice';
import { SetupDocument } from './setupView';

/** The window's setup (MCP servers, hooks, rules, skills): its document, the notice asking to approve a project's, its commands. */
export function registerSetup(context: vscode.ExtensionContext, ctx: CommandContext): void {
  const { chat, logger } = ctx;
  const setupDocument = new SetupDocument(chat.setup);
  context.subscriptions.push(setupDocument, new ApprovalNotice(chat.setup, logger));
  registerCommands(context, logger, [
    showSetupCommand(setupDocument),
    approveProjectSetupCommand(chat.setup),
    chooseVscodeToolsCommand(),
    showPermissionRulesCommand(chat),
  ]);
}
