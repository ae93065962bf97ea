import { getEnvApiKey, getModels, getProviders, type KnownProvider } from '@mariozechner/pi-ai';
import * as vscode from 'vscode';
import { OPENAI_COMPATIBLE } from '../../core/model/modelSettings';
import type { ModelChoiceItem, ModelPick } from '../../protocol/messages';
import { secretKey } from '../apiKeys';
import { chooseModel } from '../lm/chooseModel';
import { VSCODE_LM } from '../lm/vscodeLmStream';
import { readModelSettings, writingModelSettings } from '../settings';
import { modelChoices, providerModelLines, settingsForPick } from './modelChoices';

const isCatalogueProvider = (provider: string) => (getProviders() as string[]).includes(provider);

/** The model the next turn uses: as resolved (VS Code's pick included), else as configured. */
async function currentModel(): Promise<{ provider: string; id: string } | undefined> {
  try {
    const { model } = await chooseModel();
    return { provider: model.provider, id: model.id };
  } catch {
    const settings = readModelSettings();
    return settings.provider && settings.model ? { provider: settings.provider, id: settings.model } : undefined;
  }
}

/**
 * The model picker's lines (Braid: Select Model and the chat's dropdown list the same). A provider
 * counts as configured with a key in SecretStorage or its own variable; BRAID_API_KEY is one key,
 * so it counts for the configured provider only. openai-compatible needs a server address.
 */
export async function listModelChoices(secrets: vscode.SecretStorage): Promise<ModelChoiceItem[]> {
  const settings = readModelSettings();
  const providers = getProviders() as string[];
  const stored = new Set<string>();
  await Promise.all(
    providers.map(async (p) => {
      if (await secrets.get(secretKey(p))) stored.add(p);
    }),
  );
  const lm = await vscode.lm.selectChatModels({});
  return modelChoices({
    current: await currentModel(),
    vscodeModels: lm.map((m) => ({ provider: VSCODE_LM, id: m.id, name: m.name, vendor: m.vendor })),
    providers,
    configured: (p) =>
      p === OPENAI_COMPATIBLE
        ? settings.baseUrl.trim() !== ''
        : stored.has(p) || Boolean(getEnvApiKey(p)) || (p === settings.provider && Boolean(process.env.BRAID_API_KEY)),
  });
}

/** The second step for a provider: one of its models (a quick pick), or an OpenAI-compatible server's model and address. */
async function chooseProviderModel(provider: string): Promise<{ provider: string; model: string; baseUrl?: string } | undefined> {
  const settings = readModelSettings();
  const mine = settings.provider === provider ? settings.model : undefined;
  if (provider === OPENAI_COMPATIBLE) {
    const model = await vscode.window.showInputBox({
      title: 'OpenAI-compatible server',
      prompt: 'Model id on your OpenAI-compatible server',
      value: mine ?? '',
      ignoreFocusOut: true,
    });
    if (!model?.trim()) return undefined;
    const baseUrl = await vscode.window.showInputBox({
      title: 'OpenAI-compatible server',
      prompt: 'Address of the server (its /v1 endpoint)',
      value: settings.baseUrl || 'http://127.0.0.1:11434/v1',
      ignoreFocusOut: true,
      validateInput: (v) => (/^https?:\/\/\S+$/i.test(v.trim()) ? undefined : 'Enter an http(s) address, for example http://127.0.0.1:11434/v1.'),
    });
    return baseUrl?.trim() ? { provider, model: model.trim(), baseUrl: baseUrl.trim() } : undefined;
  }
  const lines = providerModelLines(getModels(provider as KnownProvider), mine);
  const chosen = await vscode.window.showQuickPick(
    lines.map((l) => ({ label: l.current ? `$(check) ${l.id}` : l.id, description: l.current ? `current · ${l.description}` : l.description, id: l.id })),
    { placeHolder: `A model of ${provider}, for the next turns`, matchOnDescription: true },
  );
  return chosen ? { provider, model: chosen.id } : undefined;
}

/** A picked line to settings: a model as it is, a provider through its second step. */
export async function resolvePick(pick: ModelPick): Promise<{ provider: string; model: string; baseUrl?: string } | undefined> {
  if (pick.kind === 'model' && pick.model) return { provider: pick.provider, model: pick.model };
  return chooseProviderModel(pick.provider);
}

/** Saves the model in the user's settings (they are user-only: see the Security model); the next turn uses it. */
export async function applyModel(secrets: vscode.SecretStorage, pick: { provider: string; model: string; baseUrl?: string }): Promise<void> {
  const { now, next } = await writingModelSettings(async () => {
    const now = readModelSettings();
    const next = settingsForPick(now, pick, isCatalogueProvider);
    const config = vscode.workspace.getConfiguration('braid');
    const write = (key: 'provider' | 'model' | 'baseUrl', value: string, was: string) =>
      value === was ? undefined : config.update(key, value, vscode.ConfigurationTarget.Global);
    await write('baseUrl', next.baseUrl, now.baseUrl);
    await write('provider', next.provider, now.provider);
    await write('model', next.model, now.model);
    if (now.demo && !next.demo) await config.update('demoModel', false, vscode.ConfigurationTarget.Global);
    return { now, next };
  });
  const cleared = next.clearedBaseUrl ? ` braid.baseUrl (${now.baseUrl}) was cleared: it was the address for ${now.provider || 'the previous provider'}.` : '';
  const needsKey =
    isCatalogueProvider(next.provider) && !(await secrets.get(secretKey(next.provider))) && !getEnvApiKey(next.provider) && !process.env.BRAID_API_KEY;
  if (needsKey) {
    const choice = await vscode.window.showWarningMessage(
      `Braid uses ${next.provider} · ${next.model} from the next turn, but has no API key for ${next.provider} yet.${cleared}`,
      'Set API Key',
    );
    if (choice) await vscode.commands.executeCommand('braid.setApiKey');
  } else if (cleared) {
    void vscode.window.showInformationMessage(`Braid uses ${next.provider} · ${next.model} from the next turn.${cleared}`);
  } else {
    vscode.window.setStatusBarMessage(`Braid: the next turn uses ${next.provider} · ${next.model}`, 5_000);
  }
}

/**
 * The chat dropdown's pick: used only if it is a line the picker offers now (the page cannot name
 * a model of its own), then saved like Braid: Select Model saves it.
 */
export async function switchModel(secrets: vscode.SecretStorage, pick: ModelPick): Promise<void> {
  const offered = (await listModelChoices(secrets)).some(
    (c) => c.kind === pick.kind && c.provider === pick.provider && (pick.kind === 'provider' || c.model === pick.model),
  );
  if (!offered) throw new Error(`${pick.provider}${pick.model ? ` · ${pick.model}` : ''} is not among the models Braid offers now; open the model list again.`);
  const resolved = await resolvePick(pick);
  if (resolved) await applyModel(secrets, resolved);
}
