import { counted } from '../../core/counted';
import { listSessionFolders } from '../../core/format/layout';
import type { SessionStore } from '../../core/store/sessionStore';
import type { SessionRow } from '../../core/index/indexRows';
import { storeShortForms } from '../../core/format/sessionShortIds';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import { expectPositionals, parseArgs, UsageError } from '../args';
import { reportNoStore, type CliContext } from '../context';
import { shortSessionId, withSession } from '../resolveIds';
import { jsonText, oneLine } from '../terminalText';
import { rowJson, rowLine } from './format';

/** `list [--all] [--archived] [--branch NAME] [--json]` */
export async function list(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['all', 'archived', 'json'], valued: ['branch'] });
  expectPositionals(args, []);
  const all = args.options.has('all');
  const branch = args.options.get('branch') as string | undefined;
  const json = args.options.has('json');
  if (!ctx.hasStore()) return reportNoStore(ctx, 'No sessions', json ? { empty: [] } : undefined);
  return ctx.withStore(async (store) => {
    const key = workspaceKey(ctx.workspace);
    if (!all && !store.index.holdsWorkspace(key)) {
      // Nothing of this workspace: said without making its folder and index.
      if (json) ctx.out(`${jsonText([], 2)}\n`);
      else ctx.out(`${noSessionsLine(ctx, store, { all, archived: args.options.has('archived'), branch })}\n`);
      return 0;
    }
    // Folders added or removed behind the index's back (by hand, a crash, damage) are picked up
    // first; --all, which looks at every folder anyway, also checks every workspace's sessions
    // table: its list-deciding values (a damaged `visibility` would hide a session) and its indexes
    // (an id an index no longer finds is missing from lists); every page is read by the doctor.
    if (all) store.index.verify('rows', 'every');
    await store.index.catchUpWithFolders(all ? undefined : key);
    const archived = args.options.has('archived');
    const rows = store.index.list({ workspaceKey: all ? undefined : key, archived, ...(branch !== undefined ? { branch } : {}) });
    if (!json && rows.length === 0) ctx.out(`${noSessionsLine(ctx, store, { all, archived, branch })}\n`);
    else ctx.out(rowsText(store, rows, { json, all }));
    return 0;
  });
}

/** Rows as `--json` gives them, or as lines, each session by its short form (padded to one width). */
function rowsText(store: SessionStore, rows: readonly SessionRow[], options: { json: boolean; all: boolean }): string {
  const short = storeShortForms(store.layout);
  if (options.json)
    return `${jsonText(
      rows.map((r) => rowJson(r, short(r.id))),
      2,
    )}\n`;
  const width = Math.max(...rows.map((r) => short(r.id).length));
  return rows.map((r) => rowLine(r, options.all, short(r.id).padEnd(width))).join('\n') + '\n';
}

/**
 * An empty listing names the data folder it read, and points at other workspaces' sessions when
 * there are some: counted by their folders, so no other workspace's index is loaded.
 */
function noSessionsLine(ctx: CliContext, store: SessionStore, options: { all: boolean; archived: boolean; branch: string | undefined }): string {
  const kind = `${options.archived ? 'archived sessions' : 'sessions'}${options.branch !== undefined ? ` on branch ${oneLine(options.branch)}` : ''}`;
  if (options.all) return `No ${kind} in ${ctx.dataDirText()}.`;
  const here = workspaceKey(ctx.workspace);
  const elsewhere = listSessionFolders(store.layout).filter((f) => f.workspaceKey !== here).length;
  const again = `braid list --all${options.archived ? ' --archived' : ''}${options.branch !== undefined ? ` --branch ${oneLine(options.branch)}` : ''}`;
  const onAny = options.branch !== undefined ? ' (on any branch)' : '';
  const hint = elsewhere > 0 ? ` Other workspaces hold ${counted(elsewhere, 'session')}${onAny}: ${again}` : '';
  return `No ${kind} for ${oneLine(ctx.workspace)} in ${ctx.dataDirText()}.${hint}`;
}

/** A command on one session: `<command> <id>`, the id whole or shortened. */
function oneSession(action: (store: SessionStore, id: string) => Promise<string>, scope: 'live' | 'trash' = 'live') {
  return (ctx: CliContext, argv: readonly string[]): Promise<number> => {
    const [typed] = expectPositionals(parseArgs(argv, {}), ['id']);
    return withSession(
      ctx,
      typed!,
      async (store, id) => {
        ctx.out(`${await action(store, id)}\n`);
        return 0;
      },
      scope,
    );
  };
}

export const archive = oneSession(async (s, id) => (await s.archive(id), `archived ${shortSessionId(s, id)}`));
export const restore = oneSession(async (s, id) => (await s.restore(id), `restored ${shortSessionId(s, id)}`));
export const remove = oneSession(async (s, id) => {
  const shown = shortSessionId(s, id);
  await s.delete(id);
  return `moved ${shown} to the trash (braid undelete ${shown} brings it back for 7 days)`;
});
export const undelete = oneSession(async (s, id) => (await s.undelete(id), `restored ${shortSessionId(s, id)} from the trash`), 'trash');

/** `rename <id> <title>` */
export async function rename(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, {});
  const [typed, ...words] = args.positionals;
  if (!typed || words.length === 0) throw new UsageError('expected <id> <title>');
  return withSession(ctx, typed, async (store, id) => {
    const state = await store.rename(id, words.join(' '));
    ctx.out(`renamed ${shortSessionId(store, id)} to "${oneLine(state.title)}"\n`);
    return 0;
  });
}

/** `export <id> [--format md|jsonl]` */
export async function exportSession(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { valued: ['format'] });
  const [typed] = expectPositionals(args, ['id']);
  const format = args.options.get('format') ?? 'md';
  if (format !== 'md' && format !== 'jsonl') throw new UsageError('--format is md or jsonl');
  return withSession(ctx, typed!, async (store, id) => {
    const text = store.export(id, format);
    // The raw log stays byte-exact (it is for programs); Markdown is for reading.
    if (format === 'jsonl') ctx.outRaw(text);
    else ctx.out(text);
    return 0;
  });
}
