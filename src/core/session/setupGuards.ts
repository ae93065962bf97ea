import path from 'node:path';
import type { AfterToolCallContext, AfterToolCallResult, BeforeToolCallContext, BeforeToolCallResult } from '@mariozechner/pi-agent-core';
import type { Logger } from '../logger';
import { readHooks, type HookCommand } from '../setup/hooks/hookConfig';
import { claudeToolName, type HookEvent } from '../setup/hooks/hookEvents';
import { SessionHooks, type HookOutcome, type HookSessionInfo, type HookTarget } from '../setup/hooks/sessionHooks';
import { PermissionRules, suggestedRule } from '../setup/permissions/permissionRules';
import { addUserRule } from '../setup/permissions/userRuleFile';
import { isObject } from '../setup/settingsFiles';
import type { SetupSources } from '../setup/sources';
import type { ApprovalGate, ApprovalRules } from '../tools/approvals';

/** Tools that ask the approval gate themselves; a ruling for another tool is asked here. */
const GATED = new Set(['bash', 'write_file', 'edit_file']);

/** Tools that ask the approval gate themselves (Braid's that change things, MCP servers', VS Code's): a rule's ruling goes to the gate. */
function asksTheGate(name: string): boolean {
  return GATED.has(name) || name.startsWith('mcp__') || name.startsWith('vscode__');
}

/** How many times a Stop (or SubagentStop) hook may send the agent back to work in one turn. */
export const MAX_STOP_CONTINUATIONS = 3;

/** What the guards need from their session. */
export interface GuardHost {
  /** The setup as it is now: a different object than last time means it was read again (hooks and rules follow at the next call). */
  readonly setup?: () => SetupSources | undefined;
  /** The old `braid.hooks.userPromptSubmit` command. */
  readonly promptHook?: string;
  readonly gate: ApprovalGate;
  readonly logger: Logger;
  readonly info: () => HookSessionInfo;
  /** Writes an "Always allow" rule where the host keeps the user's rules (VS Code's `braid.permissions.allow`); Braid's user file when absent. */
  readonly alwaysAllow?: (rule: string) => Promise<void>;
}

/**
 * The user's hooks and permission rules at work in one session: the kernel's beforeToolCall and
 * afterToolCall, the approval gate's rules, and the session's moments (start, prompt, stop, end).
 */
export class SetupGuards implements ApprovalRules {
  private readonly legacy: readonly HookCommand[];
  private read: { readonly sources: SetupSources | undefined; readonly hooks: SessionHooks; readonly rules: PermissionRules } | undefined;

  constructor(private readonly host: GuardHost) {
    this.legacy = host.promptHook
      ? [
          {
            event: 'UserPromptSubmit',
            command: host.promptHook,
            timeoutSec: 60,
            origin: 'vscode',
            file: 'braid.hooks.userPromptSubmit',
            runs: true,
            legacy: true,
          },
        ]
      : [];
    host.gate.rules = this;
  }

  /** The hooks of the setup as it is now. */
  get hooks(): SessionHooks {
    return this.current().hooks;
  }

  /** The permission rules of the setup as it is now, with the rules made for this session. */
  get rules(): PermissionRules {
    return this.current().rules;
  }

  /**
   * Hooks and rules read from the setup the host has now: an open session follows a settings file
   * edited, a project approved or trust granted, without being opened again. The rules made for
   * this session ("Allow for this session") carry over.
   */
  private current(): { hooks: SessionHooks; rules: PermissionRules } {
    let sources: SetupSources | undefined;
    try {
      sources = this.host.setup?.();
    } catch (err) {
      if (this.read) return this.read; // the setup as last read holds (its deny rules with it)
      throw err;
    }
    if (this.read && this.read.sources === sources) return this.read;
    const read = sources ? readHooks(sources) : { hooks: [], problems: [] };
    const rules = sources ? PermissionRules.fromSources(sources) : new PermissionRules([]);
    for (const r of this.read?.rules.rules ?? []) if (r.origin === 'session') rules.addSessionRule(r.kind, r.rule.text);
    for (const problem of [...read.problems, ...rules.problems]) this.host.logger.warn(`setup: ${problem}`);
    this.read = { sources, hooks: new SessionHooks([...this.legacy, ...read.hooks]), rules };
    return this.read;
  }

  private get workspaceDir(): string {
    return this.host.info().workspaceDir;
  }

  /** Runs an event's hooks, logging the ones that failed without blocking. */
  async fire(event: HookEvent, fields: Readonly<Record<string, unknown>>, target: HookTarget = {}): Promise<HookOutcome> {
    const outcome = await this.hooks.run(event, this.host.info(), fields, target);
    for (const warning of outcome.warnings) this.host.logger.warn(warning);
    return outcome;
  }

  /** Deny rules, then PreToolUse hooks; what they say to allow or ask goes to the gate. */
  async beforeToolCall(ctx: BeforeToolCallContext, signal?: AbortSignal): Promise<BeforeToolCallResult | undefined> {
    const name = ctx.toolCall.name;
    const verdict = this.rules.decide(name, ctx.args, this.workspaceDir);
    if (verdict?.kind === 'deny')
      return {
        block: true,
        reason: `The permission rule deny ${verdict.rule.rule.text} (${verdict.rule.file}) forbids this call; do not try to get around it.`,
      };
    const hook = await this.fire(
      'PreToolUse',
      { tool_input: hookToolInput(name, ctx.args, this.workspaceDir) },
      { toolName: name, ...(signal ? { signal } : {}) },
    );
    const blocked = hook.block ?? hook.stop;
    if (blocked) return { block: true, reason: `A PreToolUse hook blocked this call: ${blocked}` };
    const ruling =
      hook.permission === 'ask' || verdict?.kind === 'ask' ? 'ask' : hook.permission === 'allow' || verdict?.kind === 'allow' ? 'allow' : undefined;
    if (asksTheGate(name)) this.host.gate.rule(name, ctx.args, ruling);
    else if (ruling === 'ask') {
      const why = verdict?.kind === 'ask' ? `the rule ask ${verdict.rule.rule.text}` : (hook.permissionReason ?? 'a PreToolUse hook');
      const args = JSON.stringify(ctx.args, null, 2);
      const decision = await this.host.gate.askUser({ tool: name, summary: `${claudeToolName(name)} (asked for by ${why})`, args }, signal);
      if (decision === 'deny') return { block: true, reason: `The user denied this ${claudeToolName(name)} call.` };
    }
    return undefined;
  }

  /** Hides search results inside paths a Read deny rule covers; PostToolUse hooks add their reasons and context. */
  async afterToolCall(ctx: AfterToolCallContext, signal?: AbortSignal): Promise<AfterToolCallResult | undefined> {
    const name = ctx.toolCall.name;
    const content = name === 'glob' || name === 'grep' ? this.withoutDenied(name, ctx.args, ctx.result.content) : ctx.result.content;
    const text = content.map((b: { type: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : '')).join('\n');
    const hook = await this.fire(
      'PostToolUse',
      { tool_input: hookToolInput(name, ctx.args, this.workspaceDir), tool_response: { content: text, is_error: ctx.isError } },
      { toolName: name, ...(signal ? { signal } : {}) },
    );
    const notes = [...(hook.block ? [`PostToolUse hook: ${hook.block}`] : []), ...(hook.stop ? [`PostToolUse hook: ${hook.stop}`] : []), ...hook.context];
    if (notes.length === 0 && content === ctx.result.content) return undefined;
    return { content: notes.length > 0 ? [...content, { type: 'text', text: notes.join('\n') }] : content };
  }

  private withoutDenied(name: string, args: unknown, content: AfterToolCallContext['result']['content']): AfterToolCallContext['result']['content'] {
    const a = isObject(args) ? args : {};
    const base = path.resolve(this.workspaceDir, typeof a.path === 'string' ? a.path : '.');
    let hidden = 0;
    const out = content.map((block) => {
      if (block.type !== 'text' || !block.text) return block;
      const lines = block.text.split('\n').filter((line) => {
        const file = name === 'glob' ? path.resolve(base, line) : path.resolve(this.workspaceDir, /^(.*?):\d+:/.exec(line)?.[1] ?? '\0');
        const denied = line.trim() !== '' && this.rules.readDenied(file, this.workspaceDir);
        if (denied) hidden++;
        return !denied;
      });
      return { ...block, text: lines.join('\n') };
    });
    if (hidden === 0) return content;
    return [...out, { type: 'text' as const, text: `[${hidden} result${hidden === 1 ? '' : 's'} hidden by a permission rule]` }];
  }

  /** UserPromptSubmit: a block (the reason for the user), or context for the model. */
  async promptSubmitted(prompt: string): Promise<{ block?: string; context: readonly string[] }> {
    const hook = await this.fire('UserPromptSubmit', { prompt });
    const block = hook.block ?? hook.stop;
    return { ...(block ? { block } : {}), context: hook.context };
  }

  /**
   * Stop or SubagentStop: the reason the agent must go on, when a hook blocks (not after
   * `continue: false`). `active` is Claude Code's stop_hook_active: true when a hook already made it go on.
   */
  async stopReason(event: 'Stop' | 'SubagentStop', active: boolean): Promise<string | undefined> {
    const hook = await this.fire(event, { stop_hook_active: active });
    return hook.stop ? undefined : hook.block;
  }

  // ApprovalRules: the gate's side.

  suggest(request: { tool: string; args?: string }): string | undefined {
    let args: unknown;
    try {
      args = JSON.parse(request.args ?? '{}');
    } catch {
      return undefined;
    }
    return suggestedRule(request.tool, args, this.workspaceDir);
  }

  allowedForSession(kind: 'writes' | 'shell'): void {
    this.rules.addSessionRule('allow', kind === 'shell' ? 'Bash' : 'Edit');
  }

  async allowAlways(rule: string): Promise<void> {
    const setup = this.host.setup?.();
    const file = setup ? path.join(setup.userConfigDir, 'settings.json') : undefined;
    try {
      if (this.host.alwaysAllow) await this.host.alwaysAllow(rule);
      else if (file) await addUserRule(file, 'allow', rule);
      this.rules.addUserRule(
        'allow',
        rule,
        this.host.alwaysAllow ? 'VS Code user settings' : (file ?? 'this session'),
        this.host.alwaysAllow ? 'vscode' : 'user',
      );
    } catch (err) {
      // Allowed this once all the same; the rule is added for the session so it is not asked again now.
      this.host.logger.warn(`setup: the rule ${rule} could not be saved (${(err as Error).message}); it applies to this session only`);
      this.rules.addSessionRule('allow', rule);
    }
  }

  asking(request: { tool: string; summary: string }): void {
    const message = `Braid needs your permission to use ${claudeToolName(request.tool)}`;
    void this.fire('Notification', { message }).catch(() => undefined);
  }
}

/** A tool's arguments as a hook reads them: Braid's own, plus Claude Code's names (`file_path`, `old_string`, `new_string`). */
export function hookToolInput(name: string, args: unknown, workspaceDir: string): Record<string, unknown> {
  const a = isObject(args) ? { ...args } : {};
  if (typeof a.path === 'string' && ['read_file', 'write_file', 'edit_file'].includes(name)) a.file_path = path.resolve(workspaceDir, a.path);
  if (name === 'edit_file') {
    if (typeof a.old_text === 'string') a.old_string = a.old_text;
    if (typeof a.new_text === 'string') a.new_string = a.new_text;
  }
  return a;
}
