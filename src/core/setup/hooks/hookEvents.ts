// The hook events of Claude Code's format that Braid fires, and the names Claude Code gives
// Braid's tools (a matcher `Bash` or `Edit|Write` means what it means in Claude Code).

/** The events a hook can be registered for. */
export const HOOK_EVENTS = [
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'Notification',
] as const;

export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Events whose matcher names a tool. */
export const TOOL_EVENTS: readonly HookEvent[] = ['PreToolUse', 'PostToolUse'];

/** Claude Code's name of each of Braid's tools; MCP tools (`mcp__server__tool`) keep their name. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = {
  bash: 'Bash',
  read_file: 'Read',
  write_file: 'Write',
  edit_file: 'Edit',
  glob: 'Glob',
  grep: 'Grep',
  list_dir: 'LS',
  task: 'Task',
  web_fetch: 'WebFetch',
};

/** The name a hook sees for a Braid tool (`tool_name`, and what matchers match). */
export function claudeToolName(braidName: string): string {
  return CLAUDE_TOOL_NAMES[braidName] ?? braidName;
}

export function isHookEvent(name: string): name is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

/**
 * Whether a matcher matches a tool: empty or `*` matches every tool; otherwise a regular
 * expression matched against the whole of Claude Code's name or Braid's name (`Bash` and `bash`,
 * `Edit|Write`, `mcp__github__.*`). A matcher that is not a valid expression matches by equality.
 */
export function matcherMatches(matcher: string | undefined, braidName: string): boolean {
  return matcherMatchesAny(matcher, [claudeToolName(braidName), braidName]);
}

/** Whether a matcher matches one of `names` (a tool's two names, or SessionStart's source, PreCompact's trigger). */
export function matcherMatchesAny(matcher: string | undefined, names: readonly string[]): boolean {
  if (matcher === undefined || matcher.trim() === '' || matcher.trim() === '*') return true;
  let regex: RegExp;
  try {
    regex = new RegExp(`^(?:${matcher})$`);
  } catch {
    return names.includes(matcher);
  }
  return names.some((n) => regex.test(n));
}
