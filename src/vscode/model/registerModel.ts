import type * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import { registerCommands } from '../commands';
import { selectModelCommand } from '../commands/selectModel';
import { setApiKeyCommand } from '../commands/setApiKey';

/** The model's commands: Select Model, and Set API Key for a provider. */
export function registerModel(context: vscode.ExtensionContext, logger: Logger): void {
  registerCommands(context, logger, [setApiKeyCommand(context.secrets), selectModelCommand(context.secrets)]);
}
