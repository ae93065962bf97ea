import { spawn } from 'node:child_process';
import { childEnvironment } from '../../process/childEnvironment';
import { killProcessGroup } from '../../process/processGroup';
import { isObject } from '../settingsFiles';

/** What one hook process did. */
export interface HookProcessResult {
  /** The exit code; null when killed (a timeout) or when it could not start. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Set when the process could not start. */
  readonly startError?: string;
}

/** A hook's answer, read from its exit code and output (Claude Code's conventions). */
export interface HookAnswer {
  /** Exit 2, `decision: "block"`, or `permissionDecision: "deny"`: the reason. */
  readonly block?: string;
  /** `continue: false`: the turn stops, with this reason for the user. */
  readonly stop?: string;
  readonly permission?: 'allow' | 'deny' | 'ask';
  readonly permissionReason?: string;
  /** Context for the model: `additionalContext`, or plain stdout where the event takes it. */
  readonly context?: string;
  /** A failure that blocks nothing: a timeout, an exit code other than 0 and 2, a start error. */
  readonly warning?: string;
}

/** Output kept of a hook: enough for any reason or context, bounded against a runaway hook. */
const MAX_OUTPUT_CHARS = 100_000;

/**
 * Runs one hook command with bash in `cwd`, the event's JSON on stdin; killed with everything it
 * started after `timeoutMs` or when `signal` aborts.
 */
export function runHookProcess(
  command: string,
  input: string,
  options: { cwd: string; env: Readonly<Record<string, string>>; timeoutMs: number; signal?: AbortSignal },
): Promise<HookProcessResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd: options.cwd, env: childEnvironment(options.env), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const kill = () => killProcessGroup(child);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', (c: Buffer) => stdout.length < MAX_OUTPUT_CHARS && (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => stderr.length < MAX_OUTPUT_CHARS && (stderr += c.toString()));
    let startError: string | undefined;
    child.on('error', (err) => (startError = err.message));
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      resolve({ code: timedOut ? null : code, stdout, stderr, timedOut, ...(startError ? { startError } : {}) });
    });
    // A hook may exit without reading its input; writing to its closed stdin then fails with EPIPE, which is no failure of the hook.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

/**
 * Reads a hook's answer: exit 2 blocks with stderr; exit 0 with JSON on stdout is read as Claude
 * Code's JSON output; exit 0 with other stdout is context where `plainContext`; anything else is
 * a warning that blocks nothing.
 */
export function readHookAnswer(result: HookProcessResult, label: string, plainContext: boolean, timeoutSec: number): HookAnswer {
  if (result.startError) return { warning: `${label} could not start: ${result.startError}` };
  if (result.timedOut) return { warning: `${label} did not finish within ${timeoutSec} s and was stopped` };
  if (result.code === 2) return { block: result.stderr.trim() || `blocked by ${label}` };
  if (result.code !== 0) return { warning: `${label} exited with ${result.code}${result.stderr.trim() ? `: ${result.stderr.trim().slice(0, 500)}` : ''}` };
  const out = result.stdout.trim();
  const json = out.startsWith('{') ? parseJson(out) : undefined;
  if (json) return jsonAnswer(json);
  return plainContext && out ? { context: out } : {};
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function jsonAnswer(json: Record<string, unknown>): HookAnswer {
  const specific = isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
  const reason = text(json.reason);
  const decision = specific.permissionDecision;
  const permission = decision === 'allow' || decision === 'deny' || decision === 'ask' ? decision : json.decision === 'approve' ? 'allow' : undefined;
  const permissionReason = text(specific.permissionDecisionReason) ?? reason;
  const block = json.decision === 'block' ? (reason ?? 'blocked by a hook') : permission === 'deny' ? (permissionReason ?? 'denied by a hook') : undefined;
  const context = text(specific.additionalContext) ?? text(json.additionalContext);
  return {
    ...(block ? { block } : {}),
    ...(json.continue === false ? { stop: text(json.stopReason) ?? 'stopped by a hook' } : {}),
    ...(permission ? { permission } : {}),
    ...(permissionReason && permission ? { permissionReason } : {}),
    ...(context ? { context } : {}),
  };
}
