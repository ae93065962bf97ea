import fs from 'node:fs';
import path from 'node:path';
import { storeShortForms } from '../../core/format/sessionShortIds';
import { blameFile, blameWorkspaceKeys, type BlamedLine, type LineAuthor } from '../../core/store/blame';
import { parseArgs, UsageError } from '../args';
import { reportNoStore, type CliContext } from '../context';
import { jsonText, oneLine } from '../terminalText';
import { isoTime } from './format';

/** Characters of a prompt a turn's line of the key shows. */
const SHOWN_PROMPT = 72;

/** `blame <file>[:<line>[-<line>]] [--json]` */
export async function blame(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['json'] });
  if (args.positionals.length !== 1) throw new UsageError('expected one <file>, optionally with :<line> or :<line>-<line>');
  const { file, from, to } = fileAndLines(ctx.workspace, args.positionals[0]!);
  if (!fs.existsSync(file)) throw new UsageError(`${file} does not exist`);
  const json = args.options.has('json');
  if (!ctx.hasStore()) return reportNoStore(ctx, 'No Braid session wrote this file', json ? { empty: { file, lines: [] } } : undefined);
  return ctx.withStore(async (store) => {
    const keys = blameWorkspaceKeys(store.index, ctx.workspace, file);
    for (const key of keys) await store.index.catchUpWithFolders(key); // turns ended elsewhere, not yet in the index
    const all = keys.length === 0 ? [] : blameFile(store.index, store.layout, keys, file);
    const lines = all.slice(from - 1, to ?? all.length);
    if (from > Math.max(all.length, 1)) throw new UsageError(`${path.basename(file)} has ${all.length} lines`);
    const short = storeShortForms(store.layout);
    if (json) ctx.out(`${jsonText({ file, lines: lines.map((l) => lineJson(l, short)) }, 2)}\n`);
    else ctx.out(blameText(lines, short));
    return 0;
  });
}

/** `<file>`, `<file>:<n>` or `<file>:<n>-<m>`: the file (absolute) and the lines asked for, from 1. */
function fileAndLines(cwd: string, arg: string): { file: string; from: number; to?: number } {
  const match = /^(.*):(\d+)(?:-(\d+))?$/.exec(arg);
  if (!match || fs.existsSync(path.resolve(cwd, arg))) return { file: path.resolve(cwd, arg), from: 1 };
  const from = Number(match[2]);
  const to = match[3] === undefined ? from : Number(match[3]);
  if (from < 1 || to < from) throw new UsageError(`${match[2]}${match[3] ? `-${match[3]}` : ''} is not a range of lines (they count from 1)`);
  return { file: path.resolve(cwd, match[1]!), from, to };
}

function lineJson(l: BlamedLine, short: (id: string) => string): Record<string, unknown> {
  const a = l.author;
  return {
    line: l.line,
    text: l.text,
    author: a && {
      sessionId: a.sessionId,
      shortId: short(a.sessionId),
      turn: a.turn,
      prompt: a.prompt,
      model: a.model,
      at: isoTime(a.at),
      commit: a.commit ? { id: a.commit.id, at: isoTime(a.commit.at), subject: a.commit.subject } : null,
    },
  };
}

/**
 * Each line with the turn that wrote it (`<session> #<turn>` and its commit's short id, or
 * `uncommitted`), blank for the lines no turn claims; then a key: each turn's time, model and prompt.
 */
function blameText(lines: readonly BlamedLine[], short: (id: string) => string): string {
  const tag = (a: LineAuthor | null) => (a ? `${short(a.sessionId)} #${a.turn} ${a.commit ? a.commit.id.slice(0, 9) : 'uncommitted'}` : '');
  const width = Math.max(0, ...lines.map((l) => tag(l.author).length));
  const number = String(Math.max(1, ...lines.map((l) => l.line))).length;
  const body = lines.map((l) => oneLine(`${String(l.line).padStart(number)} ${tag(l.author).padEnd(width)} │ ${l.text}`));
  const turns = new Map<string, LineAuthor>();
  for (const l of lines) if (l.author) turns.set(`${l.author.sessionId} #${l.author.turn}`, l.author);
  const claimed = lines.filter((l) => l.author).length;
  const key = [...turns.values()].map((a) =>
    oneLine(`  ${short(a.sessionId)} #${a.turn}  ${isoTime(a.at)?.slice(0, 16).replace('T', ' ') ?? ''}  ${a.model ?? ''}  "${cut(a.prompt)}"`),
  );
  const summary = `${claimed} of ${lines.length} lines written by Braid${turns.size ? `, in ${turns.size} turn${turns.size === 1 ? '' : 's'}:` : '.'}`;
  return [...body, '', summary, ...key].join('\n') + '\n';
}

function cut(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SHOWN_PROMPT ? `${flat.slice(0, SHOWN_PROMPT)}…` : flat;
}
