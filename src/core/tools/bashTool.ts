import { spawn } from 'node:child_process';
import { Type } from '@mariozechner/pi-ai';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { childEnvironment } from '../process/childEnvironment';
import { killProcessGroup } from '../process/processGroup';
import { capText, LIMITS, textResult, type ToolContext } from './context';
import { ToolError } from './workspaceFs';

/** `bash`: runs a command in the workspace folder, with a timeout, an output cap, and Stop. */
export function bashTool(ctx: ToolContext): AgentTool {
  return {
    name: 'bash',
    label: 'Run command',
    description:
      'Run a shell command (bash) in the workspace folder. Output (stdout and stderr) is capped; the command is killed after timeout_ms (default 120000).',
    parameters: Type.Object({
      command: Type.String({ description: 'The command line' }),
      timeout_ms: Type.Optional(Type.Integer({ minimum: 1, description: 'Kill the command after this many milliseconds' })),
    }),
    executionMode: 'sequential',
    async execute(id, raw: unknown, signal) {
      const params = raw as { command: string; timeout_ms?: number };
      if (!ctx.trusted) throw new ToolError('This workspace is not trusted, so Braid cannot run commands. Trust the workspace to allow it.');
      await ctx.approvals.check({ tool: 'bash', summary: params.command, detail: `in ${ctx.workspace.primary}`, args: JSON.stringify(raw, null, 2) }, signal);
      const timeout = Math.min(params.timeout_ms ?? LIMITS.bashTimeoutMs, LIMITS.bashMaxTimeoutMs);
      // Files the command changes or deletes become file changes a rewind can restore.
      const snapshot = await ctx.checkpoints.snapshot(ctx.workspace.primary, signal).catch((err: unknown) => {
        if (signal?.aborted) return undefined;
        throw err;
      });
      if (!snapshot) return textResult('Cancelled by the user before the command started.', { exitCode: null, timedOut: false, cancelled: true });
      const result = await runCommand(params.command, ctx.workspace.primary, timeout, signal);
      await ctx.checkpoints.recordCommand(snapshot, id);
      const header = result.cancelled
        ? 'Cancelled by the user.'
        : result.timedOut
          ? `Killed after ${timeout} ms (timeout).`
          : `Exit code ${result.code ?? result.signal}.`;
      const untracked = snapshot.partial
        ? "\n[listing the workspace's files took too long, so some files this command changed cannot be restored by a rewind]"
        : '';
      return textResult(`${header}\n${capText(result.output) || '(no output)'}${untracked}`, {
        exitCode: result.code,
        timedOut: result.timedOut,
        cancelled: result.cancelled,
      });
    },
  };
}

interface CommandResult {
  code: number | null;
  signal: string | null;
  output: string;
  timedOut: boolean;
  cancelled: boolean;
}

/** Runs `command` in its own process group so a timeout or Stop ends it and everything it started. */
export function runCommand(command: string, cwd: string, timeoutMs: number, signal?: AbortSignal): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnvironment({ PAGER: 'cat', GIT_PAGER: 'cat' }),
    });
    let output = '';
    let timedOut = false;
    let cancelled = false;
    const collect = (chunk: Buffer) => {
      if (output.length < LIMITS.outputChars * 4) output += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const kill = () => killProcessGroup(child);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    const onAbort = () => {
      cancelled = true;
      kill();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      output += `\n${err.message}`;
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve({ code, signal: sig, output, timedOut, cancelled });
    });
  });
}
