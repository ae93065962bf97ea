// VS Code's `braid.mcpServers`, `braid.hooks` and `braid.permissions` (the user's own values) as
// one settings source of the setup. No vscode import: the shaping is tested without VS Code.
import { isObject, type SetupSettings } from '../../core/setup/settingsFiles';

/** The settings whose change makes the setup be read again. */
export const SETUP_SETTINGS = ['braid.mcpServers', 'braid.hooks', 'braid.permissions'] as const;

/** The user's values of the three settings, as VS Code gives them (anything: the user may have typed anything). */
export interface VscodeSetupValues {
  readonly mcpServers: unknown;
  readonly hooks: unknown;
  readonly permissions: unknown;
}

/**
 * The values as setup settings. VS Code merges `braid.hooks.userPromptSubmit` (its own older
 * setting, read on its own) into `braid.hooks`: it is taken out here, so the hooks are only
 * Claude Code's events. Empty objects say nothing and are left out; a value of the wrong type is
 * kept for the readers to report.
 */
export function vscodeSetupSettings(values: VscodeSetupValues): SetupSettings {
  const { userPromptSubmit: _promptHook, ...hooks } = isObject(values.hooks) ? values.hooks : {};
  return {
    ...(isObject(values.mcpServers) && Object.keys(values.mcpServers).length > 0 ? { mcpServers: values.mcpServers } : {}),
    ...(Object.keys(hooks).length > 0 ? { hooks } : values.hooks !== undefined && !isObject(values.hooks) ? { hooks: values.hooks } : {}),
    ...(isEmptyObject(values.permissions) || values.permissions === undefined ? {} : { permissions: values.permissions }),
  };
}

function isEmptyObject(value: unknown): boolean {
  return isObject(value) && Object.keys(value).length === 0;
}
