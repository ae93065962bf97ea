import { DEFAULT_MODE, isTurnMode, TURN_MODES, type TurnMode } from '../../core/wire/turnMode';
import type { Api, Model } from '@mariozechner/pi-ai';
import { errorMessage } from '../../core/errors';
import { resolveApiKey } from '../../core/model/apiKey';
import { ENV_NAMES, resolveModel, resolveModelWithLimits } from '../../core/model/modelSettings';
import { preloadProviders } from '../../core/model/preloadProviders';
import type { Logger } from '../../core/logger';
import { requireWorkspaceFolder, Session } from '../../core/session/session';
import type { SessionEvent } from '../../core/session/events';
import { systemPrompt } from '../../core/session/systemPrompt';
import type { SessionState } from '../../core/format/sessionState';
import { firstLine } from '../../core/format/textStart';
import type { SessionStore } from '../../core/store/sessionStore';
import { fixedApprovals, type ApprovalUi } from '../../core/tools/approvals';
import type { McpHub } from '../../core/setup/mcp/hub';
import { mcpPromptToSend, mentionedResources } from '../../core/setup/mcp/mcpMentions';
import type { Attachment } from '../../core/format/attachment';
import { cliMcpHub } from './mcp';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import { parseArgs, UsageError } from '../args';
import type { CliContext } from '../context';
import { isFolder } from '../../core/fs/probe';
import { modelSettingsFromEnv } from '../env';
import { StopSignals } from '../stopSignals';
import { resolveSessionId, shortSessionId } from '../resolveIds';
import { oneLine, shortLine } from '../terminalText';
import { judge, judgeGoal, PromptTracker, type Verdict } from './execOutcome';
import { DEFAULT_GOAL_BUDGET, GoalRun, type GoalBudget, type GoalEnd } from '../../core/session/goal';
import { counted } from '../../core/counted';
import { discoverCommands, typedPrompt, UnknownCommandError } from '../../core/setup/skills/commands';
import { setupPlaces, type SetupPlaces } from '../../core/setup/skills/places';
import { userConfigDir } from '../../core/setup/settingsFiles';
import { resumeChoice, type ResumeChoice } from '../picker/resumeSession';
import { EXIT_ERROR, EXIT_INTERRUPTED } from '../exitCodes';

interface ExecOptions {
  readonly prompt: string;
  readonly sessionId: string | undefined;
  readonly continueLatest: boolean;
  readonly allowWrites: boolean;
  readonly mode: TurnMode;
  readonly model: Model<Api>;
  readonly env: NodeJS.ProcessEnv;
  readonly stop: StopSignals;
  /** `--until-done`: a goal run with this budget (its prompt is the goal). */
  readonly goal?: GoalBudget;
}

/**
 * `exec [--continue | --session <id> | --resume[=<query>]] [--yes] [--mode <mode>] [--until-done [--max-turns N] [--max-tokens N]] <prompt>`:
 * one headless turn, or turns toward a goal. The answer streams to stdout (each tool call as one
 * line); what happened, and how to continue, to stderr. Exit 0 only when the prompt's turn (the
 * goal's last) completed and is in the log, and a goal was met; 3 when its budget was spent first;
 * SIGINT and SIGTERM cancel the turn (130, 143).
 */
export async function exec(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseArgs(argv, { flags: ['continue', 'yes', 'until-done'], valued: ['session', 'mode', 'max-turns', 'max-tokens'], optional: ['resume'] });
  const prompt = args.positionals.join(' ').trim();
  if (!prompt) throw new UsageError('expected <prompt>');
  const mode = args.options.get('mode') ?? DEFAULT_MODE;
  if (!isTurnMode(mode)) throw new UsageError(`--mode must be one of ${TURN_MODES.map((m) => m.id).join(', ')}`);
  const chosen = ['continue', 'session', 'resume'].filter((o) => args.options.has(o));
  if (chosen.length > 1) throw new UsageError(`${chosen.map((o) => `--${o}`).join(' and ')} cannot be used together; pick one`);
  const goal = goalBudget(args.options);
  const settings = modelSettingsFromEnv(env);
  const { api } = resolveModel(settings, ENV_NAMES); // a setting that names no model fails here, before anything starts
  // An OpenAI-compatible server is asked for its limits (a second and a half at most, once);
  // meanwhile the providers' code loads and the store opens, so the first request waits on none of them.
  const modelReady = resolveModelWithLimits(settings, ENV_NAMES);
  modelReady.catch(() => undefined); // awaited below; its failure is reported there
  setImmediate(() => preloadProviders(api));
  // Listening before anything is opened: a Ctrl-C during start-up still ends cleanly.
  const stop = new StopSignals();
  try {
    const continuing = chosen.length > 0;
    // A new session's folder is checked before anything is made (the data folder, its index).
    if (!continuing) requireWorkspaceFolder(ctx.workspace);
    // Only a new session creates the data folder: one to continue must be there already.
    const store = await ctx.openStore({ create: !continuing });
    let result: { verdict: Verdict; sessionId: string; kept: boolean };
    try {
      // The session is chosen (picked, perhaps) while the model's limits are asked for.
      const resumed = await resumeOption(ctx, store, args.options.get('resume'));
      if (resumed?.kind === 'cancelled') {
        await store.close();
        ctx.err('braid: no session picked; nothing was sent\n');
        return resumed.interrupt ? EXIT_INTERRUPTED : EXIT_ERROR;
      }
      const { model } = await modelReady;
      const typed = args.options.get('session') as string | undefined;
      const sessionId = resumed?.id ?? (typed === undefined ? undefined : resolveSessionId(store, typed));
      result = await runPrompt(ctx, store, {
        prompt,
        sessionId,
        continueLatest: args.options.has('continue'),
        allowWrites: args.options.has('yes'),
        mode,
        model,
        env,
        stop,
        ...(goal ? { goal } : {}),
      });
    } catch (err) {
      await store.close().catch(() => undefined);
      throw err;
    }
    const { verdict, sessionId, kept } = result;
    try {
      await store.close();
    } catch (err) {
      // The index is a cache: with the turn in the log, a failed save loses nothing.
      const message = oneLine(errorMessage(err));
      ctx.err(verdict.durable ? `braid: the turn is saved; the index will catch up (${message})\n` : `braid: ${message}\n`);
    }
    if (kept) {
      const shown = shortSessionId(store, sessionId);
      ctx.err(`session ${shown}; continue with: braid exec --session ${shown} "..."\n`);
    }
    if (verdict.line) ctx.err(`braid: ${verdict.line}\n`);
    return verdict.code;
  } finally {
    stop.dispose();
  }
}

/** `--until-done` with its budget (`--max-turns`, `--max-tokens`), or undefined for one turn. */
function goalBudget(options: ReadonlyMap<string, string | true>): GoalBudget | undefined {
  const count = (name: string, fallback: number, least: number): number => {
    const typed = options.get(name);
    if (typed === undefined) return fallback;
    if (!options.has('until-done')) throw new UsageError(`--${name} goes with --until-done`);
    const n = Number(typed);
    if (typeof typed !== 'string' || !/^\d+$/.test(typed) || n < least) throw new UsageError(`--${name} must be a whole number of at least ${least}`);
    return n;
  };
  const maxTurns = count('max-turns', DEFAULT_GOAL_BUDGET.maxTurns, 1);
  const maxTokens = count('max-tokens', DEFAULT_GOAL_BUDGET.maxTokens, 0);
  return options.has('until-done') ? { maxTurns, maxTokens } : undefined;
}

/** The choice `--resume[=<query>]` makes (`option`: true without a query); undefined without --resume. */
function resumeOption(ctx: CliContext, store: SessionStore, option: string | true | undefined): Promise<ResumeChoice> | undefined {
  if (option === undefined) return undefined;
  const query = option === true || !option.trim() ? undefined : option.trim();
  return resumeChoice(ctx, store, query);
}

/** The session the prompt goes to (undefined: a new one) and the folder its tools act in. */
function chooseSession(ctx: CliContext, store: SessionStore, options: ExecOptions): { sessionId: string | undefined; workspace: string } {
  let sessionId = options.sessionId;
  if (options.continueLatest) {
    sessionId = store.latest(ctx.workspace)?.id;
    if (!sessionId) throw new Error(`there is no session to continue in ${oneLine(ctx.workspace)}; run braid exec without --continue to start one`);
  }
  return { sessionId, workspace: sessionId ? sessionWorkspace(ctx, store, store.get(sessionId)) : ctx.workspace };
}

/** A session's tools act in the session's own folder, wherever the CLI was started; a folder that is gone is refused. */
function sessionWorkspace(ctx: CliContext, store: SessionStore, state: SessionState): string {
  const dir = state.workspaceDir;
  const shown = shortSessionId(store, state.id);
  if (!dir) throw new Error(`session ${shown} does not record its workspace folder, so its tools have nowhere to act; start a new session with braid exec`);
  if (!isFolder(dir))
    throw new Error(`session ${shown} works in ${oneLine(dir)}, which no longer exists; restore that folder to continue it, or start a new session`);
  if (workspaceKey(dir) !== workspaceKey(ctx.workspace))
    ctx.err(`braid: session ${shown} works in ${oneLine(dir)}; its tools act there, not in ${oneLine(ctx.workspace)}\n`);
  return dir;
}

/** Starts the MCP hub and the approvals for the run, and ends the hub's servers after it. */
async function runPrompt(ctx: CliContext, store: SessionStore, options: ExecOptions): Promise<{ verdict: Verdict; sessionId: string; kept: boolean }> {
  const { sessionId, workspace } = chooseSession(ctx, store, options);
  const places = setupPlaces(workspace, true, userConfigDir(options.env), options.env);
  const prompt = promptToSend(options.prompt, places);
  const denied = { count: 0 };
  const approvals = fixedApprovals(options.allowWrites);
  // The end of the prompt (and why it failed) is reported once, below; the stack only with BRAID_DEBUG.
  const logger: Logger = { ...ctx.logger, error: (m) => ctx.debug && ctx.logger.error(m) };
  // The workspace's MCP servers start when the turn first needs tools, and end with this command.
  const mcp = cliMcpHub(ctx, options.env, { workspaceDir: workspace });
  try {
    // `/mcp__<server>__<prompt> args` sends the server's prompt; `@server:uri` attaches that resource.
    // Both are had before the session opens: one that cannot be had leaves no session behind.
    const text = (await mcpPromptToSend(mcp, prompt)) ?? prompt;
    const attachments = await mentionedResources(mcp, prompt);
    return await runWithServers(ctx, store, options, {
      sessionId,
      workspace,
      places,
      prompt: text,
      attachments,
      logger,
      mcp,
      approvals: {
        request: async (r) => {
          const decision = await approvals.request(r);
          if (decision === 'deny') denied.count++;
          return decision;
        },
      },
      denied,
    });
  } finally {
    await mcp.close();
  }
}

interface ServerRun {
  readonly sessionId: string | undefined;
  readonly workspace: string;
  /** Where the user's and the workspace's skills and commands are. */
  readonly places: SetupPlaces;
  /** The prompt as sent: a custom command's or a server's prompt's expansion, or the prompt as typed. */
  readonly prompt: string;
  /** The MCP resources the prompt mentions, read. */
  readonly attachments: readonly Attachment[];
  readonly logger: Logger;
  readonly mcp: McpHub;
  readonly approvals: ApprovalUi;
  readonly denied: { count: number };
}

/** Opens the session, runs the prompt (after any queued earlier), closes it, and judges what happened. */
async function runWithServers(
  ctx: CliContext,
  store: SessionStore,
  options: ExecOptions,
  run: ServerRun,
): Promise<{ verdict: Verdict; sessionId: string; kept: boolean }> {
  const { sessionId, workspace, places, prompt, logger, mcp, denied } = run;
  const { env, stop } = options;
  const session = await Session.open(
    {
      store,
      workspaceDirs: [workspace],
      model: () => ({ model: options.model, thinking: 'off' }),
      apiKey: (provider) => resolveApiKey(provider, env),
      systemPrompt: systemPrompt(workspace),
      approvals: run.approvals,
      trusted: true,
      mcp,
      logger,
      skills: { userConfigDir: places.userConfigDir, home: places.home },
      ...(env.BRAID_PROMPT_HOOK ? { promptHook: env.BRAID_PROMPT_HOOK } : {}),
      // The user's hooks and rules, and the workspace's once approved (braid hooks trust): the setup the servers were read from.
      setup: mcp.sources,
    },
    sessionId,
  );
  const tracker = new PromptTracker();
  const earlier = new Map(session.queued.map((p) => [p.promptId, p.text]));
  const output = new TurnOutput(ctx, earlier);
  session.onEvent((e) => {
    tracker.note(e);
    output.show(e);
  });
  let promptId: string | undefined;
  let goalEnd: GoalEnd | undefined;
  try {
    if (!stop.signal) {
      const attached = run.attachments.length > 0 ? { attachments: run.attachments } : {};
      const goalRun = options.goal
        ? await GoalRun.start(session, prompt, {
            budget: options.goal,
            mode: options.mode,
            attachments: run.attachments,
            onContinue: (n) => output.automaticTurn(n, options.goal!.maxTurns),
          })
        : undefined;
      promptId = goalRun ? goalRun.currentPromptId : (await session.submit(prompt, { mode: options.mode, ...attached })).promptId;
      if (session.isPaused) {
        // Prompts left queued (a window closed, or a turn before them was stopped or failed): they
        // were the user's too, and run first in the queue's order.
        ctx.err(
          `braid: session ${shortSessionId(store, session.id)} had ${counted(earlier.size, 'prompt')} queued, paused ${PAUSED_BECAUSE[session.pauseReason ?? ''] ?? ''}; resuming its queue: they run first, then yours\n`,
        );
        await session.resume();
      }
      if (goalRun) {
        goalEnd = await Promise.race([goalRun.finished, stop.stopped.then(() => undefined)]);
        if (!goalEnd) await goalRun.stop();
        goalEnd = await goalRun.finished;
        promptId = goalEnd.promptId;
      }
      await Promise.race([session.waitForIdle(), stop.stopped]);
      // A prompt not finished by now (stopped, or the queue stopped at a failure) is stopped, not kept for later.
      const state = tracker.prompt(promptId)?.state;
      if (state === undefined || state === 'pending' || state === 'running') await session.cancel(promptId);
    }
  } finally {
    output.end();
    await session.close();
  }
  if (denied.count > 0)
    ctx.err(
      `braid: ${denied.count === 1 ? 'a write, command or MCP call was' : `${denied.count} writes, commands or MCP calls were`} denied; run with --yes to allow them\n`,
    );
  const judged = judge({ tracker, promptId, store, sessionId: session.id, ...(stop.signal ? { signal: stop.signal, signalCode: stop.exitCode } : {}) });
  const verdict = goalEnd ? judgeGoal(judged, goalEnd) : judged;
  // A first prompt refused before its turn (blocked, stopped) leaves no empty session behind.
  if (!sessionId && !verdict.turnBegan) store.discard(session.id);
  return { verdict, sessionId: session.id, kept: (sessionId !== undefined || verdict.turnBegan) && sessionExists(store, session.id) };
}

/** Why a queue was paused, as exec tells it. */
const PAUSED_BECAUSE: Record<string, string> = {
  'window-closed': 'when a window closed',
  stopped: 'after a stopped turn',
  failed: 'after a failed turn',
};

/** The prompt as sent ({@link typedPrompt}); a "/name" that names no command is a usage error. */
function promptToSend(prompt: string, places: SetupPlaces): string {
  try {
    // `/mcp__<server>__<prompt>` is a server's prompt, found when the servers run.
    if (prompt.startsWith('/mcp__')) return prompt;
    return typedPrompt(prompt, prompt.startsWith('/') ? discoverCommands(places).items : []);
  } catch (err) {
    if (err instanceof UnknownCommandError) throw new UsageError(`${err.message} (braid skills lists them); start the prompt with // to send it as it is`);
    throw err;
  }
}

function sessionExists(store: SessionStore, id: string): boolean {
  try {
    store.locate(id);
    return true;
  } catch {
    return false;
  }
}

/** The live part of a turn on stdout: answer text, one line per tool call; notes on stderr. */
class TurnOutput {
  private atLineStart = true;

  constructor(
    private readonly ctx: CliContext,
    private readonly earlier: ReadonlyMap<string, string>,
  ) {}

  show(e: SessionEvent): void {
    if (e.type === 'text-delta') this.write(e.delta);
    else if (e.type === 'tool-start') this.write(`${this.lineBreak()}[${oneLine(e.name)}] ${shortLine(JSON.stringify(e.args) ?? '', 200)}\n`);
    else if (e.type === 'tool-end' && e.isError) this.write(`[${oneLine(e.name)} failed] ${shortLine(firstLine(e.text), 200)}\n`);
    else if (e.type === 'turn-start' && this.earlier.has(e.promptId))
      this.note(`running a prompt queued earlier: ${JSON.stringify(shortLine(this.earlier.get(e.promptId)!, 80))}`);
    else if (e.type === 'compaction') {
      this.note(
        e.phase === 'start'
          ? 'compacting the conversation (its older part is summarized for the model)…'
          : e.phase === 'end'
            ? `compacted: ${e.record?.summarized ?? 0} earlier messages summarized; the log keeps them all`
            : oneLine(e.error ?? 'compaction did not finish'),
      );
    }
  }

  /** An automatic turn of a goal run begins. */
  automaticTurn(turn: number, maxTurns: number): void {
    this.note(`the goal is not done yet; automatic turn ${turn} of at most ${maxTurns}`);
  }

  /** Ends the last line of the answer. */
  end(): void {
    if (!this.atLineStart) this.write('\n');
  }

  private note(text: string): void {
    this.ctx.err(`${this.lineBreak()}braid: ${text}\n`);
  }

  private lineBreak(): string {
    return this.atLineStart ? '' : '\n';
  }

  private write(text: string): void {
    if (!text) return;
    this.ctx.out(text);
    this.atLineStart = text.endsWith('\n');
  }
}
