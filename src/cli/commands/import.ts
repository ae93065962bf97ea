import { importFailed, importSessions, type ImportOutcome } from '../../core/import/importer';
import { isSourceTool, SOURCE_TOOLS, type SourceTool } from '../../core/import/source';
import { UsageError, parseArgs } from '../args';
import type { CliContext } from '../context';
import { jsonText, oneLine } from '../terminalText';
import { counted } from '../../core/counted';
import type { SessionStore } from '../../core/store/sessionStore';

/**
 * `import [--from TOOL|auto] [PATH...] [--dry-run] [--json]`: imports other agents' sessions
 * (each tool's default folders without a PATH). Exit 1 when a session failed or a PATH was
 * refused (each named with its reason); skipped ones are reported and do not fail the run.
 */
export async function importCommand(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseArgs(argv, { flags: ['dry-run', 'json'], valued: ['from'] });
  const from = args.options.get('from') ?? 'auto';
  if (typeof from !== 'string' || (from !== 'auto' && !isSourceTool(from))) throw new UsageError(`--from takes ${SOURCE_TOOLS.join(', ')} or auto`);
  const dryRun = args.options.has('dry-run');
  const json = args.options.has('json');
  // Where there is no store yet, a dry run, or an import that finds nothing to write, creates none.
  let store: SessionStore | null = null;
  const openStore = async () => (store ??= await ctx.openStore({ create: true }));
  let outcomes: ImportOutcome[];
  const started = Date.now();
  try {
    outcomes = await importSessions(ctx.hasStore() && !dryRun ? await openStore() : null, {
      openStore,
      from: from as SourceTool | 'auto',
      paths: args.positionals,
      dryRun,
      env,
      wasmPath: ctx.wasmPath,
      onProgress: (done, total) => {
        if (!json) ctx.progress(`read ${done}/${total} source files`);
      },
    });
  } finally {
    await (store as SessionStore | null)?.close();
  }
  const ms = Date.now() - started;
  if (json) ctx.out(`${jsonText({ dryRun, ms, outcomes }, 2)}\n`);
  else printOutcomes(ctx, outcomes, dryRun, ms);
  return importFailed(outcomes) ? 1 : 0;
}

function printOutcomes(ctx: CliContext, outcomes: readonly ImportOutcome[], dryRun: boolean, ms: number): void {
  if (outcomes.length) ctx.err('\n');
  if (!outcomes.length) {
    ctx.out('no sessions found to import (give a folder or file, or --from a tool whose default folder holds sessions)\n');
    return;
  }
  for (const o of outcomes) {
    const what = dryRun && (o.action === 'imported' || o.action === 'appended') ? `would be ${o.action}` : o.action;
    const detail = [
      o.sessionId,
      o.turns === undefined ? '' : counted(o.turns, 'turn'),
      o.forks?.length ? `${counted(o.forks.length, 'fork')} of other branches` : '',
      o.workspaceDir ? `in ${o.workspaceDir}` : '',
    ].filter(Boolean);
    const source = `${o.tool ? `${o.tool} ` : ''}${o.file}${o.sourceId && o.file.endsWith('.db') ? ` (session ${o.sourceId})` : ''}`;
    ctx.out(`${oneLine(`${what.padEnd(9)} ${source}${detail.length ? ` -> ${detail.join(', ')}` : ''}`)}\n`);
    if (o.reason && (!dryRun || o.action === 'refused')) ctx.out(`${oneLine(`          ${o.reason}`)}\n`);
    if (o.skippedLines) ctx.out(`${oneLine(`          left out: ${o.skippedLines}`)}\n`);
  }
  const count = (a: string) => outcomes.filter((o) => o.action === a).length;
  const bytes = outcomes.reduce((n, o) => n + o.bytes, 0);
  const rate = ms > 0 ? ` (${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s)` : '';
  ctx.out(
    `${dryRun ? 'dry run, nothing written: ' : ''}${count('imported')} imported, ${count('appended')} appended, ${count('repaired')} repaired, ${count('unchanged')} unchanged, ${count('skipped')} skipped, ${count('refused')} refused, ${count('failed')} failed; ${(bytes / 1e6).toFixed(1)} MB read in ${ms} ms${rate}\n`,
  );
}
