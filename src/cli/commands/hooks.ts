import path from 'node:path';
import { readHooks, type HookCommand } from '../../core/setup/hooks/hookConfig';
import { PermissionRules, type ListedRule, type RuleKind } from '../../core/setup/permissions/permissionRules';
import { approveProjectSettings, sourceApproved } from '../../core/setup/permissions/settingsApproval';
import { removeUserRule } from '../../core/setup/permissions/userRuleFile';
import { userSettingsFile, type SettingsSource } from '../../core/setup/settingsFiles';
import { readSetupSources, type SetupSources } from '../../core/setup/sources';
import { expectPositionals, parseArgs, UsageError } from '../args';
import { jsonText, oneLine } from '../terminalText';

/** What `hooks` and `permissions` need: the workspace, the environment, and where to print. */
export interface SetupCommandInput {
  readonly env: NodeJS.ProcessEnv;
  readonly workspace: string;
  out(text: string): void;
}

/** The CLI runs where its user chose to run it: the workspace counts as trusted (approval still applies to project files). */
function sources(input: SetupCommandInput): SetupSources {
  return readSetupSources({ workspaceDir: input.workspace, trusted: true, env: input.env });
}

/**
 * `hooks [--json]`: every hook with its event, matcher, command, origin and (for a project's)
 * whether it runs. `hooks trust`: approves the workspace's project settings files as they are now.
 */
export async function hooks(argv: readonly string[], input: SetupCommandInput): Promise<number> {
  const args = parseArgs(argv, { flags: ['json'] });
  if (args.positionals[0] === 'trust') {
    expectPositionals({ ...args, positionals: args.positionals.slice(1) }, []);
    return trust(input);
  }
  expectPositionals(args, []);
  const setup = sources(input);
  const { hooks: list, problems } = readHooks(setup);
  if (args.options.has('json')) {
    input.out(`${jsonText({ hooks: list.map((h) => ({ ...h, file: shownFile(setup, h.file) })), problems }, 2)}\n`);
    return 0;
  }
  if (list.length === 0) input.out('No hooks. Hooks live in the "hooks" key of settings files (see docs/setup-hooks-permissions.md).\n');
  for (const hook of list) input.out(`${hookLine(setup, hook)}\n`);
  for (const problem of problems) input.out(`problem: ${oneLine(problem)}\n`);
  return 0;
}

function hookLine(setup: SetupSources, hook: HookCommand): string {
  const matcher = hook.matcher === undefined || hook.matcher === '' ? '*' : hook.matcher;
  const state = hook.origin !== 'project' ? '' : hook.runs ? '  [approved]' : '  [not approved: braid hooks trust]';
  return `${hook.event.padEnd(16)} ${matcher.padEnd(12)} ${oneLine(hook.command)}  (${hook.origin}: ${shownFile(setup, hook.file)}, timeout ${hook.timeoutSec}s)${state}`;
}

async function trust(input: SetupCommandInput): Promise<number> {
  const setup = sources(input);
  const approved = await approveProjectSettings(setup);
  if (approved.length === 0) {
    input.out(`No project settings file with hooks or permissions in ${oneLine(input.workspace)}; nothing to approve.\n`);
    return 0;
  }
  for (const source of approved) {
    input.out(`Approved ${shownFile(setup, source.file)} as it is now:\n`);
    const { hooks: list } = readHooks({ ...setup, user: [], project: [source] });
    for (const hook of list) input.out(`  hook  ${hookLine(setup, hook).replace(/\s+\[.*\]$/, '')}\n`);
    for (const rule of rulesOf(setup, source)) input.out(`  ${rule.kind.padEnd(5)} ${oneLine(rule.rule.text)}\n`);
  }
  input.out('A change to any of these files asks for approval again.\n');
  return 0;
}

function rulesOf(setup: SetupSources, source: SettingsSource): readonly ListedRule[] {
  return PermissionRules.fromSources({ ...setup, user: [], project: [source] }).rules;
}

/**
 * `permissions [--json]`: every permission rule with its kind and origin, and whether it applies.
 * `permissions remove <rule> [--kind allow|ask|deny]`: removes a rule from Braid's user settings file.
 */
export async function permissions(argv: readonly string[], input: SetupCommandInput): Promise<number> {
  const args = parseArgs(argv, { flags: ['json'], valued: ['kind'] });
  if (args.positionals[0] === 'remove') {
    const [rule] = expectPositionals({ ...args, positionals: args.positionals.slice(1) }, ['rule']);
    const kind = (args.options.get('kind') as string | undefined) ?? 'allow';
    if (kind !== 'allow' && kind !== 'ask' && kind !== 'deny') throw new UsageError('--kind must be allow, ask or deny');
    const file = userSettingsFile(input.env);
    if (!(await removeUserRule(file, kind as RuleKind, rule!)))
      throw new Error(`${kind} ${rule} is not in ${file}; braid permissions lists the rules and their files`);
    input.out(`Removed ${kind} ${oneLine(rule!)} from ${oneLine(file)}.\n`);
    return 0;
  }
  expectPositionals(args, []);
  const setup = sources(input);
  const rules = PermissionRules.fromSources(setup);
  if (args.options.has('json')) {
    const listed = rules.rules.map((r) => ({ kind: r.kind, rule: r.rule.text, origin: r.origin, file: shownFile(setup, r.file), applies: r.applies }));
    input.out(`${jsonText({ rules: listed, problems: rules.problems }, 2)}\n`);
    return 0;
  }
  if (rules.rules.length === 0) input.out('No permission rules. They live in the "permissions" key of settings files (see docs/setup-hooks-permissions.md).\n');
  for (const r of rules.rules) {
    const note = r.applies ? '' : '  [ignored: a project allow rule applies once approved with braid hooks trust]';
    input.out(`${r.kind.padEnd(5)} ${oneLine(r.rule.text).padEnd(28)} (${r.origin}: ${shownFile(setup, r.file)})${note}\n`);
  }
  for (const problem of rules.problems) input.out(`problem: ${oneLine(problem)}\n`);
  const unapproved = setup.project.filter((s) => s.settings.permissions !== undefined && !sourceApproved(setup, s));
  if (unapproved.length > 0) input.out(`Not approved: ${unapproved.map((s) => shownFile(setup, s.file)).join(', ')} (braid hooks trust approves them).\n`);
  return 0;
}

/** A project file relative to the workspace; others as they are. */
function shownFile(setup: SetupSources, file: string): string {
  return path.isAbsolute(file) && file.startsWith(setup.workspaceDir + path.sep) ? path.relative(setup.workspaceDir, file) : file;
}
