import type { Api, AssistantMessage, Model } from '@mariozechner/pi-ai';
import path from 'node:path';
import { duration, type Logger } from '../logger';
import type { TurnOutcome } from '../wire/records';
import { describeModelError } from './modelErrors';
import { counted } from '../counted';
import { excerpt, firstLine } from '../format/textStart';

/**
 * The lines a user debugging a session needs in the Output channel (or `braid --verbose`): the
 * session opened and closed, each turn's start and end with its duration, each model call with
 * its outcome and latency, each tool call with its duration and outcome. One info line each,
 * with the session id. What they never hold: prompt or answer text, file contents, search
 * patterns, command lines (arguments can carry tokens) or keys (the Session's logger takes keys
 * out of every line anyway). A tool line names its file (relative to the workspace) or, for a
 * command, its program; an error is its first line, at most 300 characters.
 */
export class SessionLog {
  private turnStartedAt = 0;
  private callStartedAt = 0;
  private calls = 0;
  private tools = 0;
  private readonly toolStarts = new Map<string, { at: number; target: string }>();

  constructor(
    private readonly logger: Logger,
    private readonly sessionId: string,
    private readonly workspaceDir: string,
  ) {}

  opened(created: boolean, turns: number, queued: number): void {
    const what = created ? 'created' : `opened (${counted(turns, 'turn')} so far${queued ? `, ${counted(queued, 'queued prompt')} paused` : ''})`;
    this.logger.info(`session ${this.sessionId} ${what}`);
  }

  closed(): void {
    this.logger.info(`session ${this.sessionId} closed`);
  }

  turnStarted(turn: number, model: Model<Api>, thinking: string): void {
    this.turnStartedAt = Date.now();
    this.callStartedAt = this.turnStartedAt;
    this.calls = 0;
    this.tools = 0;
    this.toolStarts.clear();
    this.logger.info(
      `session ${this.sessionId} turn ${turn} started: model ${model.provider}/${model.id}, thinking ${thinking}, context window ${model.contextWindow} tokens, answers up to ${model.maxTokens}`,
    );
  }

  /** The kernel is about to call the model again (after tool results or a steered prompt). */
  callStarting(): void {
    this.callStartedAt = Date.now();
  }

  callEnded(turn: number, answer: AssistantMessage): void {
    this.calls++;
    const took = duration(Date.now() - this.callStartedAt);
    const call = `session ${this.sessionId} turn ${turn}: model call ${answer.provider}/${answer.model}`;
    if (answer.stopReason === 'error') {
      this.logger.info(`${call} failed after ${took}: ${errorLine(describeModelError(answer.errorMessage))}`);
      return;
    }
    const { input, cacheRead, output } = answer.usage;
    this.logger.info(
      `${call} ${answer.stopReason === 'aborted' ? 'stopped' : 'answered'} in ${took} (stop: ${answer.stopReason}; ${input + cacheRead} tokens in, ${output} out)`,
    );
  }

  /** A call read far less from the prompt cache than the one before; the cause only (its detail can quote the system prompt). */
  cacheBroke(turn: number, note: { cause: string; cacheRead: number; expected: number }): void {
    this.logger.info(
      `session ${this.sessionId} turn ${turn}: prompt cache broke (${note.cause}): ${note.cacheRead} tokens read from the cache, ${note.expected} before`,
    );
  }

  toolStarted(toolCallId: string, name: string, args: unknown): void {
    this.toolStarts.set(toolCallId, { at: Date.now(), target: toolTarget(name, args, this.workspaceDir) });
  }

  toolEnded(turn: number, toolCallId: string, name: string, isError: boolean): void {
    this.tools++;
    const start = this.toolStarts.get(toolCallId);
    this.toolStarts.delete(toolCallId);
    const took = start ? ` in ${duration(Date.now() - start.at)}` : '';
    this.logger.info(`session ${this.sessionId} turn ${turn}: tool ${name}${start?.target ? ` ${start.target}` : ''} ${isError ? 'failed' : 'done'}${took}`);
  }

  turnEnded(turn: number, outcome: TurnOutcome, error: string | undefined): void {
    const counts = `${counted(this.calls, 'model call')}, ${counted(this.tools, 'tool call')}`;
    this.logger.info(
      `session ${this.sessionId} turn ${turn} ${outcome} after ${duration(Date.now() - this.turnStartedAt)} (${counts})${error ? `: ${errorLine(error)}` : ''}`,
    );
  }
}

/** An error's first line, at most 300 characters: a provider that echoes the request cannot fill the log with it (nor take long: only its start is read). */
function errorLine(text: string): string {
  return excerpt(firstLine(text).trim(), 300);
}

/**
 * What a tool line may say about the call: the file of a file tool (relative to the workspace),
 * the program of a command (its first word, when it is a plain name). Nothing else: patterns,
 * contents and command arguments stay out.
 */
export function toolTarget(name: string, args: unknown, workspaceDir: string): string {
  const a = (args && typeof args === 'object' ? args : {}) as Record<string, unknown>;
  if (['read_file', 'write_file', 'edit_file', 'list_dir'].includes(name) && typeof a.path === 'string') {
    const relative = path.isAbsolute(a.path) ? path.relative(workspaceDir, a.path) : a.path;
    return JSON.stringify(excerpt(relative, 200));
  }
  if (name === 'bash' && typeof a.command === 'string') {
    const program = /^\s*([A-Za-z0-9_./-]{1,64})(?:\s|$)/.exec(a.command)?.[1];
    return program ? `(${path.basename(program)})` : '';
  }
  return '';
}
