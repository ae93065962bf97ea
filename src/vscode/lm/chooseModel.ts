import * as vscode from 'vscode';
import { ModelConfigError, resolveModelWithLimits, SETTINGS_NAMES, withLimits } from '../../core/model/modelSettings';
import type { ModelChoice } from '../../core/session/session';
import { settledModelSettings } from '../settings';
import { VSCODE_LM, vscodeLmModel } from './vscodeLmStream';

/**
 * The model for the next turn. With `braid.provider` empty or `vscode-lm`, a model VS Code
 * offers (Copilot's, or any extension's): `braid.model` picks it by id, else the first one.
 * Otherwise the pi-ai provider the settings name. Either way with its limits: the user's
 * `braid.contextWindow` / `braid.maxOutputTokens`, else what the server or catalogue says.
 */
export async function chooseModel(): Promise<ModelChoice> {
  const settings = await settledModelSettings();
  if (settings.provider && settings.provider !== VSCODE_LM) return { ...(await resolveModelWithLimits(settings)), thinking: 'off' };
  const models = await vscode.lm.selectChatModels(settings.model ? { id: settings.model } : {});
  const chat = models[0];
  if (!chat) {
    throw new ModelConfigError(
      settings.model
        ? `VS Code offers no language model "${settings.model}"; check braid.model.`
        : 'No model is configured and VS Code offers none: set braid.provider and braid.model, or install a language model extension such as Copilot.',
    );
  }
  return { ...withLimits(vscodeLmModel(chat), settings, SETTINGS_NAMES, undefined, "VS Code's model information"), thinking: 'off' };
}
