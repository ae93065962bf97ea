import type { ApprovalChange } from '../../protocol/frames';
import { DEFAULT_MODE, modeLabel, type TurnMode } from '../../protocol/modes';

/** What a tool wants to do, for the user to allow or deny. */
export interface ApprovalRequest {
  readonly tool: 'write_file' | 'edit_file' | 'bash' | 'mcp';
  /** The called tool's name (`mcp__<server>__<tool>` for an MCP call): what permission rules match. */
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
}

/** What a write does to its file, in a few words: the file, new or not, lines added and removed (what its approval card shows). */
export type FileChangeSummary = ApprovalChange;

/** The user's answer. `allow-session` allows this kind of action for the rest of the session. */
export type ApprovalDecision = 'allow' | 'allow-session' | 'deny';

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

/** The kind of approval a request needs: a write that can run programs, and an MCP call, count as a command. */
export function approvalKind(request: ApprovalRequest): 'writes' | 'shell' {
  return request.tool === 'bash' || request.tool === 'mcp' || request.commandRisk ? 'shell' : 'writes';
}

/** What "allow for this session" allows: a kind of action, or one MCP tool (never every server's tools at once). */
function sessionKey(request: ApprovalRequest): string {
  return request.tool === 'mcp' ? `mcp:${request.toolName ?? request.summary}` : approvalKind(request);
}

/**
 * Approvals for one session: the policy, the UI, what the user allowed for the session, and the
 * running turn's mode. Ask and Plan turns are offered no tool that changes anything; the gate
 * refuses such a call anyway, so a model naming one cannot get past the mode.
 */
export class ApprovalGate {
  private readonly allowedForSession = new Set<string>();
  /** The running turn's mode (set as each turn begins). */
  mode: TurnMode = DEFAULT_MODE;

  constructor(
    private readonly ui: ApprovalUi,
    private readonly policy: ApprovalPolicy = DEFAULT_POLICY,
  ) {}

  /** Resolves when allowed; throws a message for the model when denied. */
  async check(request: ApprovalRequest, signal?: AbortSignal): Promise<void> {
    const kind = approvalKind(request);
    if (this.mode === 'ask' || this.mode === 'plan')
      throw new Error(`This turn runs in ${modeLabel(this.mode)} mode: it may not change files or run commands (${request.summary}).`);
    if (this.policy[kind] === 'allow' || this.allowedForSession.has(sessionKey(request))) return;
    // Auto-accept edits: plain writes go ahead; commands, and writes that can run programs, still ask.
    if (this.mode === 'auto-edit' && kind === 'writes') return;
    const decision = await this.ui.request(request, signal);
    if (decision === 'allow-session') this.allowedForSession.add(sessionKey(request));
    if (decision === 'deny') throw new Error(`The user denied this ${deniedWhat(request)}: ${request.summary}`);
  }
}

function deniedWhat(request: ApprovalRequest): string {
  return request.tool === 'bash' ? 'command' : request.tool === 'mcp' ? 'MCP tool call' : 'change';
}

/** For headless runs: allow everything (`--yes`) or deny everything. */
export function fixedApprovals(allow: boolean): ApprovalUi {
  return { request: async () => (allow ? 'allow' : 'deny') };
}
