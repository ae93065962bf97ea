import { resolveApiKey } from '../../core/model/apiKey';
import { ENV_NAMES, resolveModel } from '../../core/model/modelSettings';
import { Session } from '../../core/session/session';
import { systemPrompt } from '../../core/session/systemPrompt';
import { fixedApprovals } from '../../core/tools/approvals';
import { parseArgs, UsageError } from '../args';
import type { CliContext } from '../context';
import { modelSettingsFromEnv } from '../env';

/**
 * `exec [--continue | --session <id>] [--yes] <prompt>`: one headless turn in the workspace.
 * The answer streams to stdout (each tool call as one line); how to continue goes to stderr.
 */
export async function exec(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseArgs(argv, { flags: ['continue', 'yes'], valued: ['session'] });
  const prompt = args.positionals.join(' ').trim();
  if (!prompt) throw new UsageError('expected <prompt>');
  if (args.options.has('continue') && args.options.has('session')) throw new UsageError('--continue and --session cannot be used together; pick one');
  const settings = modelSettingsFromEnv(env);
  const model = resolveModel(settings, ENV_NAMES);
  return ctx.withStore(async (store) => {
    let sessionId = args.options.get('session') as string | undefined;
    if (args.options.has('continue')) {
      sessionId = store.latest(ctx.workspace)?.id;
      if (!sessionId) throw new Error(`there is no session to continue in ${ctx.workspace}; run braid exec without --continue to start one`);
    }
    let denied = 0;
    const approvals = fixedApprovals(args.options.has('yes'));
    const session = await Session.open({
      store,
      workspaceDirs: [ctx.workspace],
      model: () => ({ model, thinking: 'off' }),
      apiKey: (provider) => resolveApiKey(provider, env),
      systemPrompt: systemPrompt(ctx.workspace),
      approvals: { request: async (r) => {
        const decision = await approvals.request(r);
        if (decision === 'deny') denied++;
        return decision;
      } },
      trusted: true,
      logger: ctx.logger,
      ...(env.BRAID_PROMPT_HOOK ? { promptHook: env.BRAID_PROMPT_HOOK } : {}),
    }, sessionId);
    let outcome = 'completed';
    let error: string | undefined;
    let atLineStart = true;
    const write = (text: string) => {
      if (!text) return;
      ctx.out(text);
      atLineStart = text.endsWith('\n');
    };
    session.onEvent((e) => {
      if (e.type === 'text-delta') write(e.delta);
      else if (e.type === 'tool-start') write(`${atLineStart ? '' : '\n'}[${e.name}] ${JSON.stringify(e.args).slice(0, 200)}\n`);
      else if (e.type === 'tool-end' && e.isError) write(`[${e.name} failed] ${e.text.split('\n')[0]!.slice(0, 200)}\n`);
      else if (e.type === 'compaction') {
        const what = e.phase === 'start' ? 'compacting the conversation (its older part is summarized for the model)…'
          : e.phase === 'end' ? `compacted: ${e.record?.summarized ?? 0} earlier messages summarized; the log keeps them all` : e.error ?? 'compaction did not finish';
        ctx.err(`${atLineStart ? '' : '\n'}braid: ${what}\n`);
      } else if (e.type === 'turn-end') {
        outcome = e.outcome;
        error = e.error;
      } else if (e.type === 'prompt' && e.prompt.state === 'blocked') {
        outcome = 'blocked';
        error = e.prompt.reason;
      }
    });
    const interrupt = () => void session.cancel();
    process.once('SIGINT', interrupt);
    try {
      await session.submit(prompt);
      await session.waitForIdle();
    } finally {
      process.off('SIGINT', interrupt);
      await session.close();
    }
    if (!atLineStart) ctx.out('\n');
    if (denied > 0) ctx.err(`braid: ${denied} write(s) or command(s) were denied; run with --yes to allow them\n`);
    ctx.err(`session ${session.id}; continue with: braid exec --session ${session.id} "..."\n`);
    if (outcome === 'completed') return 0;
    ctx.err(`braid: the turn ${outcome === 'cancelled' ? 'was cancelled' : outcome === 'blocked' ? 'was blocked' : 'failed'}${error ? `: ${error}` : ''}\n`);
    return outcome === 'cancelled' ? 130 : 1;
  });
}
