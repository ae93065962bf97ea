import { runDoctor } from '../../core/store/doctor';
import { expectPositionals, parseArgs } from '../args';
import { reportNoStore, type CliContext } from '../context';
import { jsonText, oneLine } from '../terminalText';
import { counted } from '../../core/counted';

/** `rebuild-index`: rebuilds index.sqlite from the session folders. */
export async function rebuildIndex(ctx: CliContext, argv: readonly string[]): Promise<number> {
  expectPositionals(parseArgs(argv, {}), []);
  if (!ctx.hasStore()) return reportNoStore(ctx, 'Nothing to index');
  return ctx.withStore(async (store) => {
    const started = Date.now();
    await store.index.rebuildFromFolders((done, total) => ctx.progress(`indexed ${done}/${total}`));
    const count = store.index.count({}) + store.index.count({ archived: true });
    ctx.err('\n');
    ctx.out(`rebuilt the index: ${counted(count, 'session')} in ${Date.now() - started} ms\n`);
    return 0;
  });
}

/** `doctor [--fix] [--json]`: verifies every log, state file and the index. Exit 1 while something repairable (or an error) is left. */
export async function doctor(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['fix', 'json'] });
  expectPositionals(args, []);
  // A folder without a store has nothing to check or repair; --fix does not create one either.
  if (!ctx.hasStore())
    return reportNoStore(ctx, 'Nothing to check', args.options.has('json') ? { empty: { sessions: 0, logs: 0, records: 0, findings: [] } } : undefined);
  return ctx.withStore(async (store) => {
    const report = await runDoctor(store, { fix: args.options.has('fix') });
    if (args.options.has('json')) {
      ctx.out(`${jsonText(report, 2)}\n`);
    } else {
      ctx.out(`checked ${counted(report.sessions, 'session')}, ${counted(report.logs, 'log')}, ${counted(report.records, 'record')}\n`);
      for (const f of report.findings) ctx.out(`${oneLine(`${f.severity.padEnd(7)} ${f.where}: ${f.message}${f.fixed ? ` -> fixed: ${f.fixed}` : ''}`)}\n`);
      if (report.findings.length === 0) ctx.out('no problems found\n');
    }
    const open = report.findings.filter((f) => (f.severity === 'error' || f.fixable) && !f.fixed);
    return open.length > 0 ? 1 : 0;
  });
}
