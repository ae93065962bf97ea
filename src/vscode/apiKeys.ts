import type * as vscode from 'vscode';
import { resolveApiKey } from '../core/model/apiKey';

/** The key under which SecretStorage keeps a provider's API key. */
export const secretKey = (provider: string) => `braid.apiKey.${provider}`;

/** A provider's API key in VS Code: the one Braid: Set API Key stored, else BRAID_API_KEY, else the provider's variable. */
export async function lookUpApiKey(secrets: vscode.SecretStorage, provider: string): Promise<string | undefined> {
  return resolveApiKey(provider, process.env, await secrets.get(secretKey(provider)));
}

/** Every API key Braid: Set API Key stored, whatever its provider: keys a push must never send. */
export async function storedApiKeys(secrets: vscode.SecretStorage): Promise<string[]> {
  const names = (await secrets.keys()).filter((name) => name.startsWith(secretKey('')));
  const keys = await Promise.all(names.map((name) => secrets.get(name)));
  return keys.filter((key): key is string => Boolean(key));
}
