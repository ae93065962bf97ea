import { DEFAULT_MODE, modeLabel, type TurnMode } from '../wire/turnMode';

/** A write's file and the lines it adds and removes, as its approval card summarizes it. */
export interface ApprovalChange {
  readonly path: string;
  readonly created: boolean;
  readonly added: number;
  readonly removed: number;
}

/** What a tool wants to do, for the user to allow or deny. */
export interface ApprovalRequest {
  /**
   * The tool: one of Braid's that asks (write_file, edit_file, bash); `mcp`, a tool of an MCP
   * server; `external`, a tool another program offers (a VS Code extension's); or another tool a
   * permission rule or hook said to ask for.
   */
  readonly tool: 'write_file' | 'edit_file' | 'bash' | 'mcp' | 'external' | (string & {});
  /** The tool's name as the model calls it, when `tool` is not (`mcp__<server>__<tool>`, `vscode__<name>`): what rules match, and what "Allow for this session" allows. */
  readonly toolName?: string;
  /** One line: the file written, the command run, or an MCP call's "server: tool". */
  readonly summary: string;
  /** More: the change as a line diff, or the working folder of a command. */
  readonly detail?: string;
  /** A write's file (as the workspace shows it) and how many lines it adds and removes. */
  readonly change?: FileChangeSummary;
  /** The tool call's arguments as the model gave them (JSON), for the user to read in full. */
  readonly args?: string;
  /**
   * Set when a file write can make programs run later (a git hook, a VS Code task): why. Such a
   * write needs the approval a shell command needs, and the prompt says why.
   */
  readonly commandRisk?: string;
  /** The permission rule "Always allow" writes into the user's settings (`Bash(npm test:*)`, `Edit(./src/a.ts)`), when there is one. */
  readonly alwaysRule?: string;
}

/** What a write does to its file, in a few words: the file, new or not, lines added and removed (what its approval card shows). */
export type FileChangeSummary = ApprovalChange;

/**
 * The user's answer. `allow-session` allows this kind of action for the rest of the session;
 * `allow-always` allows it and writes the request's `alwaysRule` into the user's settings.
 */
export type ApprovalDecision = 'allow' | 'allow-session' | 'allow-always' | 'deny';

/** The UI's side of approvals: VS Code shows a prompt in the chat; the CLI answers from `--yes`. */
export interface ApprovalUi {
  request(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalDecision>;
}

/** Which kinds of action need no asking. */
export interface ApprovalPolicy {
  readonly writes: 'ask' | 'allow';
  readonly shell: 'ask' | 'allow';
}

/** Asking is the default for both: a model's output must not change files or run commands unseen. */
export const DEFAULT_POLICY: ApprovalPolicy = { writes: 'ask', shell: 'ask' };

/** The kind of approval a request needs: a write that can run programs, and any tool not Braid's, count as a command. */
export function approvalKind(request: ApprovalRequest): 'writes' | 'shell' {
  return request.tool === 'bash' || !isBraidTool(request) || request.commandRisk ? 'shell' : 'writes';
}

/** Braid's own tools, which `braid.approval.*` and Auto-accept edits speak of; any other tool (an MCP server's, an extension's) asks unless a rule allows it. */
function isBraidTool(request: ApprovalRequest): boolean {
  return request.tool === 'write_file' || request.tool === 'edit_file' || request.tool === 'bash';
}

/** What "Allow for this session" allows: a kind of Braid's actions, or one other tool by name (never every server's tools at once). */
function sessionKey(request: ApprovalRequest): string {
  return isBraidTool(request) ? approvalKind(request) : `tool:${request.toolName ?? request.tool}`;
}

/** What permission rules and PreToolUse hooks said of a call before it ran: allow skips the prompt, ask forces it. */
export type CallRuling = 'allow' | 'ask';

/** The session's side of rules: the rule "Always allow" would write, and what to do with the user's choice. */
export interface ApprovalRules {
  /** The rule "Always allow" writes for a request, if any. */
  suggest(request: ApprovalRequest): string | undefined;
  /** "Allow for this session" was chosen: the session's visible rule for this kind. */
  allowedForSession(kind: 'writes' | 'shell'): void;
  /** "Always allow" was chosen: the rule is written to the user's settings (by the host). */
  allowAlways(rule: string): Promise<void>;
  /** The session is about to ask the user (the Notification hook). */
  asking?(request: ApprovalRequest): void;
}

/**
 * Approvals for one session: the policy, the UI, what the user allowed for the session, and the
 * running turn's mode. Ask and Plan turns are offered no tool that changes anything; the gate
 * refuses such a call anyway, so a model naming one cannot get past the mode.
 */
export class ApprovalGate {
  /** `writes`, `shell`, or `tool:<name>`: what "Allow for this session" allowed. */
  private readonly allowedForSession = new Set<string>();
  /** Rulings of calls about to run, by tool and arguments (set before the tool runs, taken when it asks). */
  private readonly rulings = new Map<string, CallRuling>();
  /** The session's permission rules, when it has any. */
  rules: ApprovalRules | undefined;
  /** The running turn's mode (set as each turn begins). */
  mode: TurnMode = DEFAULT_MODE;

  constructor(
    private readonly ui: ApprovalUi,
    private readonly policy: ApprovalPolicy = DEFAULT_POLICY,
  ) {}

  /** Records what the rules and hooks said of a call before it runs; its approval check takes it. */
  rule(tool: string, args: unknown, ruling: CallRuling | undefined): void {
    const key = rulingKey(tool, JSON.stringify(args));
    if (ruling) this.rulings.set(key, ruling);
    else this.rulings.delete(key);
  }

  /** Throws the model's message when the running turn's mode (Ask, Plan) changes nothing, whatever the change. */
  refuseByMode(summary: string): void {
    if (this.mode === 'ask' || this.mode === 'plan')
      throw new Error(`This turn runs in ${modeLabel(this.mode)} mode: it may not change files or run commands (${summary}).`);
  }

  /** Resolves when allowed; throws a message for the model when denied. */
  async check(request: ApprovalRequest, signal?: AbortSignal): Promise<void> {
    const kind = approvalKind(request);
    const key = rulingKey(request.toolName ?? request.tool, request.args);
    const ruling = this.rulings.get(key);
    this.rulings.delete(key);
    this.refuseByMode(request.summary);
    if (ruling === 'allow') return;
    if (ruling !== 'ask') {
      if ((isBraidTool(request) && this.policy[kind] === 'allow') || this.allowedForSession.has(sessionKey(request))) return;
      // Auto-accept edits: plain writes go ahead; commands, and writes that can run programs, still ask.
      if (this.mode === 'auto-edit' && isBraidTool(request) && kind === 'writes') return;
    }
    const decision = await this.askUser(request, signal);
    if (decision === 'allow-session') {
      this.allowedForSession.add(sessionKey(request));
      if (isBraidTool(request)) this.rules?.allowedForSession(kind);
    }
    if (decision === 'deny') throw new Error(`The user denied this ${deniedWhat(request)}: ${request.summary}`);
  }

  /**
   * Asks the user about a request whatever the policy (a rule or hook said ask): the Notification
   * hook fires, and an "Always allow" answer writes the request's rule.
   */
  async askUser(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalDecision> {
    const alwaysRule = this.rules?.suggest(request);
    const asked = alwaysRule ? { ...request, alwaysRule } : request;
    this.rules?.asking?.(asked);
    const decision = await this.ui.request(asked, signal);
    if (decision === 'allow-always' && alwaysRule) await this.rules?.allowAlways(alwaysRule);
    return decision;
  }
}

function deniedWhat(request: ApprovalRequest): string {
  if (request.tool === 'bash') return 'command';
  if (request.tool === 'mcp') return 'MCP tool call';
  return isBraidTool(request) ? 'change' : 'tool call';
}

/** The key a call's ruling is kept by: its tool and its arguments as JSON, however the tool spaced them. */
export function rulingKey(tool: string, args: string | undefined): string {
  let canonical = args ?? '';
  try {
    canonical = JSON.stringify(JSON.parse(canonical));
  } catch {
    // not JSON: compared as given
  }
  return `${tool}\n${canonical}`;
}

/** For headless runs: allow everything (`--yes`) or deny everything. */
export function fixedApprovals(allow: boolean): ApprovalUi {
  return { request: async () => (allow ? 'allow' : 'deny') };
}
