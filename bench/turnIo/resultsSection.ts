/** The heading of the section this bench keeps in bench/RESULTS.md. */
export const TURN_IO_HEADING = '## Per-turn state I/O';

/** Which column of the section a run fills: the figures before a change, or after it. */
export type Column = 'before' | 'after';

const COLUMNS: readonly Column[] = ['before', 'after'];

interface Section {
  readonly notes: Map<Column, string>;
  readonly cells: Map<string, Map<Column, string>>;
}

/** The per-turn section of a RESULTS.md text ('' when it has none). */
export function turnIoSectionOf(markdown: string): string {
  const start = markdown.indexOf(TURN_IO_HEADING);
  if (start < 0) return '';
  const next = markdown.indexOf('\n## ', start + TURN_IO_HEADING.length);
  return markdown.slice(start, next < 0 ? undefined : next + 1);
}

function parse(section: string): Section {
  const notes = new Map<Column, string>();
  const cells = new Map<string, Map<Column, string>>();
  for (const line of section.split('\n')) {
    const note = /^- (before|after): (.*)$/.exec(line);
    if (note) notes.set(note[1] as Column, note[2]!);
    const row = /^\| (.+?) \| (.*?) \| (.*?) \|$/.exec(line);
    if (!row || row[1] === 'per turn' || row[1]!.startsWith('---')) continue;
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
 * `markdown` with its per-turn section holding `rows` in `column` and `note` as that column's
 * run; the other column's figures and note are kept (a measure only it has stays, at the end).
 */
export function withTurnIoFigures(markdown: string, intro: string, rows: ReadonlyArray<readonly [string, string]>, column: Column, note: string): string {
  const old = turnIoSectionOf(markdown);
  const { notes, cells } = parse(old);
  notes.set(column, note);
  for (const [measure, value] of rows) {
    const row = cells.get(measure) ?? new Map<Column, string>();
    row.set(column, value);
    cells.set(measure, row);
  }
  const order = [...rows.map(([m]) => m), ...[...cells.keys()].filter((m) => !rows.some(([r]) => r === m))];
  const table = [
    '| per turn | before | after |',
    '| --- | --- | --- |',
    ...order.map((m) => `| ${m} | ${COLUMNS.map((c) => cells.get(m)?.get(c) ?? '').join(' | ')} |`),
  ];
  const noteLines = COLUMNS.map((c) => `- ${c}: ${notes.get(c) ?? '(not run yet)'}`);
  const section = `${TURN_IO_HEADING}\n\n${intro}\n\n${noteLines.join('\n')}\n\n${table.join('\n')}\n`;
  if (!old) return `${markdown.replace(/\n*$/, '\n\n')}${section}`;
  return markdown.replace(old, () => (old.endsWith('\n\n') ? `${section}\n` : section));
}
