// Permission rules in Claude Code's syntax: a tool name, optionally with a specifier in
// parentheses (`Bash(npm test:*)`, `Read(./secrets/**)`, `WebFetch(domain:example.com)`), or an
// MCP name (`mcp__server`, `mcp__server__tool`, `mcp__server__*`).

/** One rule as written, split into its tool and its specifier. */
export interface PermissionRule {
  /** The rule as the user wrote it (trimmed). */
  readonly text: string;
  /** The tool part: `Bash`, `Read`, `Edit`, `Write`, `WebFetch`, `Glob`, `Grep`, `LS`, `Task`, or an `mcp__…` name. */
  readonly tool: string;
  /** What is inside the parentheses, when there are any. */
  readonly specifier?: string;
}

/** The tool names Braid matches; a rule for another Claude Code tool (NotebookEdit, WebSearch) is kept and listed but matches nothing. */
export const KNOWN_RULE_TOOLS = ['Bash', 'Read', 'Edit', 'Write', 'WebFetch', 'Glob', 'Grep', 'LS', 'Task'] as const;

/** Parses one rule; an error sentence when it is not a rule at all. */
export function parseRule(text: unknown): PermissionRule | { error: string } {
  if (typeof text !== 'string') return { error: `a rule must be a string, not ${JSON.stringify(text)}` };
  const trimmed = text.trim();
  const match = /^([A-Za-z][\w-]*(?:__\*)?)(?:\((.*)\))?$/s.exec(trimmed);
  if (!match) return { error: `"${trimmed}" is not a rule (expected Tool or Tool(specifier))` };
  const [, tool, specifier] = match;
  if (specifier !== undefined && specifier.trim() === '') return { text: trimmed, tool: tool! };
  return { text: trimmed, tool: tool!, ...(specifier !== undefined ? { specifier: specifier.trim() } : {}) };
}

/** True for a rule naming an MCP server or tool. */
export function isMcpRule(rule: PermissionRule): boolean {
  return rule.tool.startsWith('mcp__');
}
