import { formatBytes } from '../../core/bytes';
import { storeShortForms } from '../../core/format/sessionShortIds';
import { counted } from '../../core/counted';
import { DEFAULT_GC_DAYS, planGc, runGc } from '../../core/store/gc';
import { storageReport } from '../../core/store/storage';
import { gcPlanText, storageText } from '../../core/store/storageText';
import { expectPositionals, parseArgs, UsageError } from '../args';
import { reportNoStore, type CliContext } from '../context';
import { jsonText } from '../terminalText';

const CLI_NOTES = {
  more: '--json lists every one',
  footer: 'braid gc lists what could be removed (old checkpoints, orphaned blobs, expired trash); it removes nothing without --yes.',
};

/** `storage [--json]`: the data folder's bytes by workspace, by session (largest first) and by kind. Reads only. */
export async function storage(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['json'] });
  expectPositionals(args, []);
  const json = args.options.has('json');
  if (!ctx.hasStore()) {
    const empty = { root: ctx.dataDir, total: { logs: 0, blobs: 0, trash: 0, other: 0, bytes: 0 }, workspaces: [], sessions: [] };
    return reportNoStore(ctx, 'Nothing stored', json ? { empty } : undefined);
  }
  return ctx.withStore(async (store) => {
    const report = storageReport(store.layout, store.index);
    ctx.out(json ? `${jsonText(report, 2)}\n` : storageText(report, CLI_NOTES));
    return 0;
  });
}

/** `--older-than DAYS`: whole days, 0 or more. */
function daysOption(text: string | undefined): number {
  if (text === undefined) return DEFAULT_GC_DAYS;
  const days = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(days)) throw new UsageError('--older-than takes a number of days (0 or more)');
  return days;
}

/**
 * `gc [--dry-run] [--yes] [--older-than DAYS] [--json]`: lists what it would remove with sizes;
 * removes it only with --yes (never with --dry-run), and says what it removed.
 */
export async function gc(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['dry-run', 'yes', 'json'], valued: ['older-than'] });
  expectPositionals(args, []);
  const olderThanDays = daysOption(args.options.get('older-than') as string | undefined);
  const dryRun = args.options.has('dry-run');
  if (dryRun && args.options.has('yes')) throw new UsageError('--dry-run and --yes contradict each other; give one');
  const json = args.options.has('json');
  if (!ctx.hasStore()) return reportNoStore(ctx, 'Nothing to remove', json ? { empty: { plan: null, removed: null } } : undefined);
  return ctx.withStore(async (store) => {
    const plan = planGc(store, { olderThanDays });
    if (json) {
      // What would go, and (with --yes) what went: the same figures as the text, for scripts.
      const removed = args.options.has('yes') && !dryRun ? await runGc(store, plan) : null;
      ctx.out(`${jsonText({ plan, removed }, 2)}\n`);
      return 0;
    }
    const shown = storeShortForms(store.layout);
    const lines = gcPlanText(plan, shown);
    const busy = plan.sessions.filter((s) => s.busy).length;
    if (plan.bytes === 0 && busy === 0) {
      ctx.out(
        `nothing to remove: no checkpoints of sessions untouched for ${counted(olderThanDays, 'day')}, no orphaned blobs, nothing in the trash past 7 days\n`,
      );
      return 0;
    }
    ctx.out(`${dryRun || !args.options.has('yes') ? 'braid gc would remove' : 'removing'} ${formatBytes(plan.bytes)}:\n${lines.join('\n')}\n`);
    if (dryRun) {
      ctx.out('dry run: nothing removed\n');
      return 0;
    }
    if (!args.options.has('yes')) {
      const again = olderThanDays === DEFAULT_GC_DAYS ? '' : ` --older-than ${olderThanDays}`;
      ctx.out(`nothing removed; to remove it: braid gc --yes${again}\n`);
      return 0;
    }
    const result = await runGc(store, plan);
    const removed = result.sessions.reduce((n, s) => n + s.checkpoints + s.orphans, 0);
    ctx.out(
      `removed ${formatBytes(result.bytes)}: ${counted(removed, 'blob')} of ${counted(result.sessions.length, 'session')}, ${counted(result.trash.length, 'trash entry', 'trash entries')}\n`,
    );
    for (const s of result.skipped) ctx.out(`  skipped ${shown(s.id)}: ${s.why}; run braid gc again once it is closed\n`);
    return 0;
  });
}
