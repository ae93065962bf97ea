// Keeps the table of tool versions in test/fixtures/import/real/README.md (between its
// `<!-- recorded -->` markers) true after each run: one row per tool, the ones not recorded now kept.
import fs from 'node:fs';

const BEGIN = '<!-- recorded -->';
const END = '<!-- /recorded -->';
const HEAD = ['| fixtures | package | version | recorded on |', '| --- | --- | --- | --- |'];

/** Sets `tool`'s row of the README's table (`readme` must hold the markers). */
export function noteRecordedVersion(readme: string, tool: string, pkg: string, version: string, day: string): void {
  const text = fs.readFileSync(readme, 'utf8');
  const from = text.indexOf(BEGIN);
  const to = text.indexOf(END);
  if (from === -1 || to < from) throw new Error(`${readme} has no ${BEGIN} ... ${END} block`);
  const rows = new Map<string, string>();
  for (const line of text.slice(from + BEGIN.length, to).split('\n')) {
    const name = /^\| `([^`]+)`/.exec(line)?.[1];
    if (name) rows.set(name, line);
  }
  rows.set(tool, `| \`${tool}\` | \`${pkg}\` | ${version} | ${day} |`);
  const table = [...HEAD, ...[...rows.keys()].sort().map((k) => rows.get(k)!)].join('\n');
  fs.writeFileSync(readme, `${text.slice(0, from + BEGIN.length)}\n${table}\n${text.slice(to)}`);
}
