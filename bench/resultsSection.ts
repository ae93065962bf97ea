// Sections of bench/RESULTS.md that a bench keeps with a before and an after column: a run fills
// one column and keeps the other, so the figures of a change and of the code before it sit side
// by side (each column notes the commit and machine it was measured on).
import { spawnSync } from 'node:child_process';
import os from 'node:os';

/** Which column of a section a run fills: the figures before a change, or after it. */
export type Column = 'before' | 'after';

/** A section of RESULTS.md: its heading line, and the header of its first column. */
export interface ColumnSection {
  readonly heading: string;
  readonly rowHeader: string;
}

const COLUMNS: readonly Column[] = ['before', 'after'];

interface Parsed {
  readonly notes: Map<Column, string>;
  readonly cells: Map<string, Map<Column, string>>;
}

/** The section under `heading` of a RESULTS.md text, up to the next section ('' when it has none). */
export function sectionOf(markdown: string, heading: string): string {
  const start = markdown.indexOf(heading);
  if (start < 0) return '';
  const next = markdown.indexOf('\n## ', start + heading.length);
  return markdown.slice(start, next < 0 ? undefined : next + 1);
}

function parse(section: string, rowHeader: string): Parsed {
  const notes = new Map<Column, string>();
  const cells = new Map<string, Map<Column, string>>();
  for (const line of section.split('\n')) {
    const note = /^- (before|after): (.*)$/.exec(line);
    if (note) notes.set(note[1] as Column, note[2]!);
    const row = /^\| (.+?) \| (.*?) \| (.*?) \|$/.exec(line);
    if (!row || row[1] === rowHeader || row[1]!.startsWith('---')) continue;
    cells.set(
      row[1]!,
      new Map([
        ['before', row[2]!],
        ['after', row[3]!],
      ]),
    );
  }
  return { notes, cells };
}

/**
 * `markdown` with its section `target` holding `rows` in `column` and `note` as that column's
 * run; the other column's figures and note are kept (a measure only it has stays, at the end).
 * A section not there yet is added at the end.
 */
export function withColumnFigures(
  markdown: string,
  target: ColumnSection,
  intro: string,
  rows: ReadonlyArray<readonly [string, string]>,
  column: Column,
  note: string,
): string {
  const old = sectionOf(markdown, target.heading);
  const { table: figures, afterword } = splitSection(old, target.rowHeader);
  const { notes, cells } = parse(figures, target.rowHeader);
  notes.set(column, note);
  // A column shows what its latest run measured: a row this run did not write (one renamed or
  // dropped since) loses its cell of the column, and goes when no column has a cell left.
  const written = new Set(rows.map(([measure]) => measure));
  for (const [measure, row] of cells) {
    if (written.has(measure)) continue;
    row.delete(column);
    if ([...row.values()].every((value) => value === '')) cells.delete(measure);
  }
  for (const [measure, value] of rows) {
    const row = cells.get(measure) ?? new Map<Column, string>();
    row.set(column, value);
    cells.set(measure, row);
  }
  const order = [...written, ...[...cells.keys()].filter((m) => !written.has(m))];
  const table = [
    `| ${target.rowHeader} | before | after |`,
    '| --- | --- | --- |',
    ...order.map((m) => `| ${m} | ${COLUMNS.map((c) => cells.get(m)?.get(c) ?? '').join(' | ')} |`),
  ];
  const noteLines = COLUMNS.map((c) => `- ${c}: ${notes.get(c) ?? '(not run yet)'}`);
  const section = `${target.heading}\n\n${intro}\n\n${noteLines.join('\n')}\n\n${table.join('\n')}\n${afterword ? `\n${afterword}` : ''}`;
  if (!old) return `${markdown.replace(/\n*$/, '\n\n')}${section}`;
  return markdown.replace(old, () => (old.endsWith('\n\n') ? `${section}\n` : section));
}

/**
 * A section cut after its table, the one headed by `rowHeader`: what a run rewrites (the intro,
 * the notes and the table) and what follows it, written by hand (why the figures are what they
 * are), kept as it is, tables and lists included. No table: all of it is the first part.
 */
function splitSection(section: string, rowHeader: string): { table: string; afterword: string } {
  const lines = section.replace(/\n+$/, '').split('\n');
  const header = lines.findIndex((line) => line.startsWith(`| ${rowHeader} |`));
  if (header < 0) return { table: section, afterword: '' };
  let end = header;
  while (end + 1 < lines.length && lines[end + 1]!.startsWith('|')) end++;
  const rest = lines
    .slice(end + 1)
    .join('\n')
    .replace(/^\n+/, '');
  return { table: lines.slice(0, end + 1).join('\n'), afterword: rest ? `${rest}\n` : '' };
}

/** The column a run fills: `--as before` or `--as after` (the default: the figures of the code as it is now). */
export function columnArg(argv: readonly string[]): Column {
  const i = argv.indexOf('--as');
  const value = i >= 0 ? argv[i + 1] : 'after';
  if (value !== 'before' && value !== 'after') throw new Error(`--as takes before or after, not ${value ?? 'nothing'}`);
  return value;
}

/** What a column's note says of its run: the commit (and whether src/ had changes), the day, the machine and its load, and `detail`. */
export function runNote(repoRoot: string, detail: string): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `commit ${measuredCommit(repoRoot)}, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} x ${cpu} (load average ${os.loadavg()[0]!.toFixed(1)}), Node ${process.version}, ${detail}`;
}

const commitAtStart = new Map<string, string>();

/**
 * The commit a run measures (and whether src/ or media/ differed from it), as it was when first
 * asked: a benchmark asks as it starts, so a commit made while a long run goes on is not named as
 * the one measured.
 */
export function measuredCommit(repoRoot: string): string {
  const known = commitAtStart.get(repoRoot);
  if (known) return known;
  const git = (...args: string[]) => spawnSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).stdout.trim();
  const dirty = git('status', '--porcelain', '--untracked-files=no', '--', 'src', 'media') ? ' with uncommitted changes in src/ or media/' : '';
  const commit = `${git('rev-parse', '--short', 'HEAD')}${dirty}`;
  commitAtStart.set(repoRoot, commit);
  return commit;
}
