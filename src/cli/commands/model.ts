import { ENV_NAMES, ModelConfigError, resolveModelWithLimits } from '../../core/model/modelSettings';
import { parseArgs, UsageError } from '../args';
import { modelSettingsFromEnv } from '../env';
import { EXIT_ERROR, EXIT_OK } from '../exitCodes';
import { jsonText, oneLine } from '../terminalText';

/** `model [--json]`: the model the environment names, with its context window and answer limit and where they came from. */
export async function showModel(argv: readonly string[], env: NodeJS.ProcessEnv, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const args = parseArgs(argv, { flags: ['json'] });
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument "${args.positionals[0]}"`);
  try {
    const { model, limits } = await resolveModelWithLimits(modelSettingsFromEnv(env), ENV_NAMES);
    const summary = { provider: model.provider, id: model.id, api: model.api, baseUrl: model.baseUrl, ...limits };
    if (args.options.has('json')) out(`${jsonText(summary)}\n`);
    else {
      out(`${oneLine(`${summary.provider} ${summary.id} (${summary.api}, ${summary.baseUrl})`)}\n`);
      out(
        `${oneLine(`context window ${limits.contextWindow.toLocaleString('en-US')} tokens (${limits.contextFrom}); answers up to ${limits.maxOutputTokens.toLocaleString('en-US')} tokens (${limits.outputFrom})`)}\n`,
      );
    }
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof ModelConfigError)) throw error;
    err(`braid: ${error.message}\n`);
    return EXIT_ERROR;
  }
}
