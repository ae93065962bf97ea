import { storeShortForms } from '../../core/format/sessionShortIds';
import type { SearchFilter } from '../../core/index/indexRows';
import { turnResults, type TurnResult } from '../../core/index/turnSnippet';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import { parseArgs, UsageError } from '../args';
import { reportNoStore, type CliContext } from '../context';
import { jsonText, oneLine } from '../terminalText';
import { rowJson, rowLine } from './format';

/** Matching turns a line of text shows per session (--json gives them all). */
const SHOWN_TURNS = 3;

/** `search [<words>] [--file P] [--model M] [--branch NAME] [--since D] [--until D] [--all] [--archived] [--json]` */
export async function search(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['all', 'json', 'archived'], valued: ['file', 'model', 'branch', 'since', 'until'] });
  const text = args.positionals.join(' ').trim();
  const file = args.options.get('file') as string | undefined;
  if (!text && !file) throw new UsageError('expected <words> to search for (or --file)');
  const json = args.options.has('json');
  const filter: SearchFilter = {
    workspaceKey: args.options.has('all') ? undefined : workspaceKey(ctx.workspace),
    archived: args.options.has('archived'),
    ...(file ? { file } : {}),
    ...optional('model', args.options.get('model') as string | undefined),
    ...optional('branch', args.options.get('branch') as string | undefined),
    ...optional('since', whenOption(args.options.get('since'), 'since')),
    ...optional('until', whenOption(args.options.get('until'), 'until')),
  };
  if (!ctx.hasStore()) return reportNoStore(ctx, 'No matching sessions', json ? { empty: [] } : undefined);
  return ctx.withStore(async (store) => {
    // A workspace the store has nothing of is searched without making its folder and index.
    const none = filter.workspaceKey !== undefined && !store.index.holdsWorkspace(filter.workspaceKey);
    // A turn another process ended before it saved the index (or was killed) is searched too.
    if (!none) await store.index.catchUpWithFolders(filter.workspaceKey);
    const results = (none ? [] : store.index.searchTurns(text, filter)).map(({ row, turns }) => ({
      row,
      turns: turnResults(store.layout, row, turns, text, file),
    }));
    const short = storeShortForms(store.layout);
    if (json)
      ctx.out(
        `${jsonText(
          results.map(({ row, turns }) => ({ ...rowJson(row, short(row.id)), turns })),
          2,
        )}\n`,
      );
    else if (results.length === 0) ctx.out('No matching sessions.\n');
    else {
      const width = Math.max(...results.map((r) => short(r.row.id).length));
      ctx.out(
        results.map(({ row, turns }) => [rowLine(row, !filter.workspaceKey, short(row.id).padEnd(width)), ...turnLines(turns)].join('\n')).join('\n') + '\n',
      );
    }
    return 0;
  });
}

function optional<K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [k in K]: V });
}

function turnLines(turns: readonly TurnResult[]): string[] {
  const lines = turns.slice(0, SHOWN_TURNS).map((t) => oneLine(`    ${t.turn === 0 ? 'title' : `turn ${t.turn}`}: ${t.snippet}`));
  if (turns.length > SHOWN_TURNS) lines.push(`    (and ${turns.length - SHOWN_TURNS} more turns)`);
  return lines;
}

/**
 * A --since or --until value as a time (ms): a date (`2026-12-01`, UTC; --until takes in the whole
 * day), a date and time in ISO 8601, or a span back from now (`3d`, `12h`, `2w`).
 */
export function whenOption(value: string | true | undefined, name: 'since' | 'until', now = Date.now()): number | undefined {
  if (value === undefined || value === true) return undefined;
  const ago = /^(\d+)([hdw])$/.exec(value);
  if (ago) return now - Number(ago[1]) * { h: 3_600_000, d: 86_400_000, w: 604_800_000 }[ago[2] as 'h' | 'd' | 'w'];
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const time = Date.parse(day ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(time)) throw new UsageError(`--${name} takes a date (2026-12-01), a time in ISO 8601 or a span back from now (3d, 12h, 2w)`);
  return day && name === 'until' ? time + 86_400_000 : time;
}
