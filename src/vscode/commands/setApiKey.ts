import * as vscode from 'vscode';
import { secretKey } from '../apiKeys';
import { readModelSettings } from '../settings';
import type { BraidCommand } from '../braidCommand';

/** Braid: Set API Key — stores the key of the configured provider in VS Code's SecretStorage. */
export function setApiKeyCommand(secrets: vscode.SecretStorage): BraidCommand {
  return {
    id: 'braid.setApiKey',
    run: async () => {
      const provider =
        readModelSettings().provider || (await vscode.window.showInputBox({ prompt: 'Provider id (for example anthropic, openai, openrouter)' }));
      if (!provider) return;
      const key = await vscode.window.showInputBox({ prompt: `API key for ${provider}`, password: true, ignoreFocusOut: true });
      if (key === undefined) return;
      if (key === '') await secrets.delete(secretKey(provider));
      else await secrets.store(secretKey(provider), key);
      void vscode.window.showInformationMessage(key ? `Braid stored the API key for ${provider}.` : `Braid removed the API key for ${provider}.`);
    },
  };
}
