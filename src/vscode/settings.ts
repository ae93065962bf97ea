import * as vscode from 'vscode';
import type { ModelSettings } from '../core/model/modelSettings';

/** Reads the `braid.*` model settings. */
export function readModelSettings(): ModelSettings {
  const config = vscode.workspace.getConfiguration('braid');
  return {
    provider: config.get<string>('provider', ''),
    model: config.get<string>('model', ''),
    baseUrl: config.get<string>('baseUrl', ''),
    demo: config.get<boolean>('demoModel', false),
  };
}

/** True when a change touches the model settings. */
export function affectsModelSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return ['provider', 'model', 'baseUrl', 'demoModel'].some((key) => event.affectsConfiguration(`braid.${key}`));
}
