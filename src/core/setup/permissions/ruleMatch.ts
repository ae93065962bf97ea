import fs from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { isMcpRule, type PermissionRule } from './ruleSyntax';
import { bashSpecifierMatches, commandParts, hasSubstitution } from './shellParts';

// Which of Braid's tools a rule's tool name covers, and how its specifier is matched against a
// call's arguments. Paths in rules follow Claude Code: `//abs` is an absolute path, `~/x` is in
// the home folder, `/x`, `./x` and `x` are relative to the workspace folder; globs as gitignore
// writes them (`*`, `**`).

/** A tool call as the rules see it. */
export interface ToolUse {
  /** Braid's tool name (`bash`, `read_file`, `mcp__server__tool`, …). */
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** The workspace folder: relative paths in rules and arguments start there. */
  readonly workspaceDir: string;
  readonly home: string;
}

/** Braid's tools each rule tool covers (`Read` covers every tool that reads files by path). */
const COVERED: Readonly<Record<string, readonly string[]>> = {
  Bash: ['bash'],
  Read: ['read_file', 'list_dir', 'glob', 'grep'],
  Edit: ['write_file', 'edit_file'],
  Write: ['write_file', 'edit_file'],
  LS: ['list_dir'],
  Glob: ['glob'],
  Grep: ['grep'],
  Task: ['task'],
  WebFetch: ['web_fetch'],
};

/** The parts a call is judged by: a command's simple commands, otherwise the call as one part. */
export function partsOf(use: ToolUse): (string | undefined)[] {
  if (use.name !== 'bash') return [undefined];
  const parts = commandParts(typeof use.args.command === 'string' ? use.args.command : '');
  return parts.length > 0 ? parts : [''];
}

/**
 * Whether `rule` matches `part` of `use` (a simple command for bash). `forAllow`: a command part
 * that runs hidden commands (`$(…)`) is never allowed by a specific Bash rule.
 */
export function ruleMatches(rule: PermissionRule, use: ToolUse, part: string | undefined, forAllow: boolean): boolean {
  if (isMcpRule(rule)) return mcpMatches(rule.tool, use.name);
  if (!COVERED[rule.tool]?.includes(use.name)) return false;
  const spec = rule.specifier;
  if (spec === undefined || spec === '*') return true;
  switch (rule.tool) {
    case 'Bash':
      if (part === undefined || (forAllow && hasSubstitution(part))) return false;
      return bashSpecifierMatches(spec, part);
    case 'WebFetch':
      return domainMatches(spec, use.args.url);
    case 'Task':
      return false; // Braid's task has no agent types to name
    default:
      return targetPaths(use).some((p) => pathMatches(spec, p, use));
  }
}

function mcpMatches(ruleTool: string, name: string): boolean {
  if (ruleTool.endsWith('__*')) return name.startsWith(ruleTool.slice(0, -1));
  const rest = ruleTool.slice('mcp__'.length);
  // `mcp__server` names every tool of the server; `mcp__server__tool` one tool.
  return rest.includes('__') ? name === ruleTool : name.startsWith(`${ruleTool}__`);
}

function domainMatches(spec: string, url: unknown): boolean {
  if (!spec.startsWith('domain:') || typeof url !== 'string') return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  const domain = spec.slice('domain:'.length).trim().toLowerCase();
  return domain.startsWith('*.') ? host.endsWith(domain.slice(1)) : host === domain;
}

/** The absolute paths a call reads or writes: the given path and, when it exists, its real path. */
export function targetPaths(use: ToolUse): string[] {
  const given = typeof use.args.path === 'string' && use.args.path.trim() !== '' ? use.args.path : '.';
  const absolute = path.resolve(use.workspaceDir, given);
  let real: string | undefined;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    real = undefined;
  }
  return real && real !== absolute ? [absolute, real] : [absolute];
}

/** Whether a path specifier (`./secrets/**`, `//etc/**`, `~/x`, `src/*.ts`) matches an absolute path. */
export function pathMatches(spec: string, file: string, where: { workspaceDir: string; home: string }): boolean {
  const pattern = absolutePattern(spec, where);
  return picomatch(pattern, { dot: true })(file.split(path.sep).join('/'));
}

function absolutePattern(spec: string, where: { workspaceDir: string; home: string }): string {
  const posix = (p: string) => p.split(path.sep).join('/');
  if (spec.startsWith('//')) return spec.slice(1);
  if (spec === '~' || spec.startsWith('~/')) return path.posix.join(posix(where.home), spec.slice(1));
  return path.posix.join(posix(where.workspaceDir), spec);
}
