import os from 'node:os';
import path from 'node:path';
import type { SettingsSource, SetupOrigin } from '../settingsFiles';
import { isObject } from '../settingsFiles';
import type { SetupSources } from '../sources';
import { partsOf, pathMatches, ruleMatches, type ToolUse } from './ruleMatch';
import { parseRule, type PermissionRule } from './ruleSyntax';
import { sourceApproved } from './settingsApproval';

/** What a rule says of a call. Precedence: deny over ask over allow. */
export type RuleKind = 'allow' | 'ask' | 'deny';

/** A rule with where it came from, as `braid permissions` and the quick pick list it. */
export interface ListedRule {
  readonly kind: RuleKind;
  readonly rule: PermissionRule;
  /** `session` for a rule "Allow for this session" made. */
  readonly origin: SetupOrigin | 'session';
  /** The settings file it is in (for VS Code: "VS Code user settings"; for a session rule: "this session"). */
  readonly file: string;
  /** False for a project's allow rule in an untrusted workspace or an unapproved file: listed, never applied. */
  readonly applies: boolean;
}

/** The rule that decided a call. */
export interface RuleVerdict {
  readonly kind: RuleKind;
  readonly rule: ListedRule;
}

const KINDS: readonly RuleKind[] = ['deny', 'ask', 'allow'];

/**
 * The permission rules of a session: the user's (Braid's user file, VS Code's `braid.permissions`),
 * the project's (its allow rules only when trusted and approved), and the rules made for this
 * session. Asked for every tool call.
 */
export class PermissionRules {
  private readonly listed: ListedRule[];
  /** Rules a person could not have meant, with the file they are in. */
  readonly problems: string[];

  constructor(
    rules: readonly ListedRule[],
    problems: readonly string[] = [],
    private readonly home = os.homedir(),
  ) {
    this.listed = [...rules];
    this.problems = [...problems];
  }

  /** Reads the rules of every source. */
  static fromSources(sources: SetupSources, home = os.homedir()): PermissionRules {
    const rules: ListedRule[] = [];
    const problems: string[] = [];
    for (const source of [...sources.user, ...sources.project]) {
      const approved = sourceApproved(sources, source);
      for (const item of rulesOf(source, problems)) rules.push({ ...item, applies: item.kind !== 'allow' || approved });
    }
    return new PermissionRules(rules, problems, home);
  }

  /** Every rule, in the order: user's, project's, session's. */
  get rules(): readonly ListedRule[] {
    return this.listed;
  }

  /** Adds a rule for this session only ("Allow for this session"); a rule already there is not added twice. */
  addSessionRule(kind: RuleKind, text: string): void {
    const rule = parseRule(text);
    if ('error' in rule) throw new Error(rule.error);
    if (this.listed.some((r) => r.origin === 'session' && r.kind === kind && r.rule.text === rule.text)) return;
    this.listed.push({ kind, rule, origin: 'session', file: 'this session', applies: true });
  }

  /** Adds a rule the user just wrote into their settings ("Always allow"), so it applies at once. */
  addUserRule(kind: RuleKind, text: string, file: string, origin: SetupOrigin = 'user'): void {
    const rule = parseRule(text);
    if ('error' in rule) throw new Error(rule.error);
    this.listed.push({ kind, rule, origin, file, applies: true });
  }

  /**
   * The rule deciding a call, deny before ask before allow. A command is denied or asked for when
   * any of its parts matches; it is allowed only when every part is matched by an allow rule.
   */
  decide(name: string, args: unknown, workspaceDir: string): RuleVerdict | undefined {
    const use: ToolUse = { name, args: isObject(args) ? args : {}, workspaceDir, home: this.home };
    const parts = partsOf(use);
    for (const kind of KINDS) {
      const rules = this.listed.filter((r) => r.kind === kind && r.applies);
      if (kind === 'allow') {
        const matched = parts.map((part) => rules.find((r) => ruleMatches(r.rule, use, part, true)));
        if (matched.every((r) => r !== undefined)) return matched[0] ? { kind, rule: matched[0] } : undefined;
      } else {
        const hit = rules.find((r) => parts.some((part) => ruleMatches(r.rule, use, part, false)));
        if (hit) return { kind, rule: hit };
      }
    }
    return undefined;
  }

  /** True when a Read deny rule covers this absolute path (a search's results inside it are hidden). */
  readDenied(file: string, workspaceDir: string): boolean {
    return this.listed.some(
      (r) =>
        r.kind === 'deny' &&
        r.applies &&
        r.rule.tool === 'Read' &&
        r.rule.specifier !== undefined &&
        pathMatches(r.rule.specifier, file, { workspaceDir, home: this.home }),
    );
  }
}

function rulesOf(source: SettingsSource, problems: string[]): Omit<ListedRule, 'applies'>[] {
  const permissions = source.settings.permissions;
  if (permissions === undefined) return [];
  if (!isObject(permissions)) {
    problems.push(`${source.file}: "permissions" is not an object`);
    return [];
  }
  const out: Omit<ListedRule, 'applies'>[] = [];
  for (const kind of KINDS) {
    const list = permissions[kind];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      problems.push(`${source.file}: "permissions.${kind}" is not a list`);
      continue;
    }
    for (const text of list) {
      const rule = parseRule(text);
      if ('error' in rule) problems.push(`${source.file}: ${rule.error}`);
      else out.push({ kind, rule, origin: source.origin, file: source.file });
    }
  }
  return out;
}

/**
 * The rule "Always allow" writes for an approval: `Bash(<first words>:*)` for a command (its first
 * word, two when the first is a runner like npm or git), `Edit(<path>)` for a file write.
 */
export function suggestedRule(tool: string, args: unknown, workspaceDir: string): string | undefined {
  const a = isObject(args) ? args : {};
  if (tool === 'bash' && typeof a.command === 'string') {
    const words = a.command.trim().split(/\s+/);
    if (!words[0] || /[;&|`$<>()]/.test(a.command)) return undefined; // a compound command gets no blanket rule
    const runners = new Set(['npm', 'npx', 'pnpm', 'yarn', 'git', 'cargo', 'go', 'make', 'python', 'python3', 'node', 'docker', 'bun', 'deno']);
    const prefix = runners.has(words[0]) && words[1] && !words[1].startsWith('-') ? `${words[0]} ${words[1]}` : words[0];
    return `Bash(${prefix}:*)`;
  }
  if ((tool === 'write_file' || tool === 'edit_file') && typeof a.path === 'string') {
    const relative = path.relative(workspaceDir, path.resolve(workspaceDir, a.path)).split(path.sep).join('/');
    return relative.startsWith('..') ? `Edit(/${path.resolve(workspaceDir, a.path)})` : `Edit(./${relative})`;
  }
  return undefined;
}
