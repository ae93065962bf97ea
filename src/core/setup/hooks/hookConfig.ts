import { sourceApproved } from '../permissions/settingsApproval';
import { isObject, type SettingsSource, type SetupOrigin } from '../settingsFiles';
import type { SetupSources } from '../sources';
import { isHookEvent, type HookEvent } from './hookEvents';

/** One hook command, with where it came from and whether it may run. */
export interface HookCommand {
  readonly event: HookEvent;
  /** The tool matcher (PreToolUse, PostToolUse), or the SessionStart/PreCompact source matcher. */
  readonly matcher?: string;
  readonly command: string;
  /** Seconds before the hook is killed (60 by default). */
  readonly timeoutSec: number;
  readonly origin: SetupOrigin;
  readonly file: string;
  /** False for a project's hook in an untrusted workspace or a settings file not approved as it is now. */
  readonly runs: boolean;
  /** Set for the old `braid.hooks.userPromptSubmit` setting: its input also carries `sessionId`. */
  readonly legacy?: true;
}

/** Seconds a hook may run unless its `timeout` says otherwise. */
export const DEFAULT_HOOK_TIMEOUT_SEC = 60;

/** Every hook of every source, the user's first; problems with the files they are in. */
export function readHooks(sources: SetupSources): { hooks: HookCommand[]; problems: string[] } {
  const hooks: HookCommand[] = [];
  const problems: string[] = [];
  for (const source of [...sources.user, ...sources.project]) hooks.push(...hooksOf(source, sourceApproved(sources, source), problems));
  return { hooks, problems };
}

/**
 * The hooks of one settings file in Claude Code's shape
 * `{ Event: [{ matcher, hooks: [{ type: "command", command, timeout }] }] }`. A string under
 * `userPromptSubmit` (the old `braid.hooks.userPromptSubmit` setting) is a UserPromptSubmit hook.
 */
export function hooksOf(source: SettingsSource, runs: boolean, problems: string[]): HookCommand[] {
  const config = source.settings.hooks;
  if (config === undefined) return [];
  if (!isObject(config)) {
    problems.push(`${source.file}: "hooks" is not an object`);
    return [];
  }
  const out: HookCommand[] = [];
  const base = { origin: source.origin, file: source.file, runs };
  for (const [event, groups] of Object.entries(config)) {
    if (event === 'userPromptSubmit') {
      if (typeof groups === 'string' && groups.trim() !== '')
        out.push({ ...base, event: 'UserPromptSubmit', command: groups, timeoutSec: DEFAULT_HOOK_TIMEOUT_SEC, legacy: true });
      continue;
    }
    if (!isHookEvent(event)) {
      problems.push(`${source.file}: "${event}" is not a hook event Braid knows; its hooks do not run`);
      continue;
    }
    if (!Array.isArray(groups)) {
      problems.push(`${source.file}: hooks.${event} is not a list`);
      continue;
    }
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks)) {
        problems.push(`${source.file}: an entry of hooks.${event} has no "hooks" list`);
        continue;
      }
      const matcher = typeof group.matcher === 'string' ? group.matcher : undefined;
      for (const hook of group.hooks) {
        if (!isObject(hook) || hook.type !== 'command' || typeof hook.command !== 'string' || hook.command.trim() === '') {
          problems.push(`${source.file}: a hook of ${event} is not {"type": "command", "command": "…"}; it does not run`);
          continue;
        }
        const timeout = typeof hook.timeout === 'number' && hook.timeout > 0 ? hook.timeout : DEFAULT_HOOK_TIMEOUT_SEC;
        out.push({ ...base, event, command: hook.command, timeoutSec: timeout, ...(matcher !== undefined ? { matcher } : {}) });
      }
    }
  }
  return out;
}
