import { claudeToolName, matcherMatches, matcherMatchesAny, type HookEvent } from './hookEvents';
import type { HookCommand } from './hookConfig';
import { readHookAnswer, runHookProcess, type HookAnswer } from './runHook';

/** What the hooks of one event decided together. */
export interface HookOutcome {
  /** Some hook blocked: the reasons, one per line. */
  readonly block?: string;
  /** Some hook said `continue: false`: its stop reason. */
  readonly stop?: string;
  /** The strictest permission decision: deny over ask over allow. */
  readonly permission?: 'allow' | 'deny' | 'ask';
  readonly permissionReason?: string;
  /** Context for the model, one entry per hook that gave some. */
  readonly context: readonly string[];
  /** Hooks that failed without blocking (shown in the log). */
  readonly warnings: readonly string[];
}

/** The session a hook's input names. */
export interface HookSessionInfo {
  readonly sessionId: string;
  /** The session's wire.jsonl. */
  readonly transcriptPath: string;
  readonly workspaceDir: string;
}

/** What selects the hooks of an event: a tool (PreToolUse, PostToolUse) or a source/trigger (SessionStart, PreCompact). */
export interface HookTarget {
  readonly toolName?: string;
  readonly matchValue?: string;
  readonly signal?: AbortSignal;
}

/** Events whose plain stdout (exit 0, not JSON) is context for the model. */
const PLAIN_CONTEXT: readonly HookEvent[] = ['UserPromptSubmit', 'SessionStart'];

/** The hooks that run in one session (the runnable ones of its sources), fired at the session's moments. */
export class SessionHooks {
  readonly commands: readonly HookCommand[];

  constructor(commands: readonly HookCommand[]) {
    this.commands = commands.filter((c) => c.runs);
  }

  /** The hooks that would run for an event and target. */
  selected(event: HookEvent, target: HookTarget = {}): HookCommand[] {
    return this.commands.filter((c) => {
      if (c.event !== event) return false;
      if (target.toolName !== undefined) return matcherMatches(c.matcher, target.toolName);
      if (target.matchValue !== undefined) return matcherMatchesAny(c.matcher, [target.matchValue]);
      return true;
    });
  }

  /**
   * Runs the event's hooks in parallel, each with the event's JSON on stdin (Claude Code's fields:
   * session_id, transcript_path, cwd, hook_event_name, then the event's own), and combines their answers.
   */
  async run(event: HookEvent, info: HookSessionInfo, fields: Readonly<Record<string, unknown>>, target: HookTarget = {}): Promise<HookOutcome> {
    const hooks = this.selected(event, target);
    if (hooks.length === 0) return { context: [], warnings: [] };
    const common = { session_id: info.sessionId, transcript_path: info.transcriptPath, cwd: info.workspaceDir, hook_event_name: event };
    const toolName = target.toolName !== undefined ? { tool_name: claudeToolName(target.toolName) } : {};
    const env = { CLAUDE_PROJECT_DIR: info.workspaceDir, BRAID_PROJECT_DIR: info.workspaceDir };
    const answers = await Promise.all(
      hooks.map(async (hook) => {
        // The old setting's hook got `{prompt, sessionId, cwd}`; it still does, with Claude Code's fields after.
        const input = hook.legacy ? { prompt: fields.prompt, sessionId: info.sessionId, ...common } : { ...common, ...toolName, ...fields };
        const result = await runHookProcess(hook.command, JSON.stringify(input), {
          cwd: info.workspaceDir,
          env,
          timeoutMs: hook.timeoutSec * 1000,
          ...(target.signal ? { signal: target.signal } : {}),
        });
        return readHookAnswer(result, `the ${event} hook "${shortCommand(hook.command)}" (${hook.file})`, PLAIN_CONTEXT.includes(event), hook.timeoutSec);
      }),
    );
    return combine(answers);
  }
}

function combine(answers: readonly HookAnswer[]): HookOutcome {
  const blocks = answers.flatMap((a) => (a.block ? [a.block] : []));
  const stop = answers.find((a) => a.stop)?.stop;
  const decided = (['deny', 'ask', 'allow'] as const).map((p) => answers.find((a) => a.permission === p)).find((a) => a !== undefined);
  return {
    ...(blocks.length > 0 ? { block: blocks.join('\n') } : {}),
    ...(stop ? { stop } : {}),
    ...(decided?.permission ? { permission: decided.permission } : {}),
    ...(decided?.permissionReason ? { permissionReason: decided.permissionReason } : {}),
    context: answers.flatMap((a) => (a.context ? [a.context] : [])),
    warnings: answers.flatMap((a) => (a.warning ? [a.warning] : [])),
  };
}

function shortCommand(command: string): string {
  const line = command.trim().split('\n', 1)[0]!;
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}
