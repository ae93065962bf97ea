import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileKind, readSourceHead } from '../fs/sourceFile';
import { valuesOfLine } from './sourceLines';
import type { SourceDatabases } from './sourceDatabase';
import { TOOL_NAMES, type SourceFormat, type SourceRef, type SourceTool } from './source';
import { claudeCode } from './claudeCode';
import { codex } from './codex';
import { pi } from './pi';
import { opencode } from './opencode';

export const FORMATS: readonly SourceFormat[] = [claudeCode, codex, pi, opencode];

/** A path the user named that is not imported, and why. */
export interface Refusal {
  readonly path: string;
  readonly tool?: SourceTool;
  readonly reason: string;
}

/** What an import reads: each tool's sessions found, and the named paths it cannot read. */
export interface FoundSources {
  readonly sources: ReadonlyArray<{ readonly format: SourceFormat; readonly refs: SourceRef[] }>;
  readonly refused: readonly Refusal[];
}

/** Where to look: a tool (or every one, `auto`), and the files or folders named (none: each tool's default folders). */
export interface SourceQuery {
  readonly from: SourceTool | 'auto';
  readonly paths: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly home?: string;
}

/** How much of a file's beginning is read to tell whose it is (a Codex rollout's first line carries its instructions). */
const HEAD_BYTES = 256 * 1024;

/**
 * The sessions a query names. With no paths: what each tool's default folders hold (nothing
 * found is no error). Each path named is read, or refused with its reason: a path that does not
 * exist, a link, a file no tool's (or not the tool `--from` names), a subagent's log, a folder
 * that holds no session. With `--from auto` each file goes to the tool whose records it begins with.
 */
export async function findSources(query: SourceQuery, databases: SourceDatabases): Promise<FoundSources> {
  const formats = query.from === 'auto' ? FORMATS : FORMATS.filter((f) => f.tool === query.from);
  if (query.paths.length === 0) {
    const env = query.env ?? process.env;
    const home = query.home ?? os.homedir();
    const sources = [];
    for (const format of formats)
      sources.push({ format, refs: unique((await Promise.all(format.defaultRoots(env, home).map((r) => format.find(r, databases)))).flat()) });
    return { sources: sources.filter((s) => s.refs.length > 0), refused: [] };
  }
  const byTool = new Map<SourceFormat, SourceRef[]>();
  const refused: Refusal[] = [];
  for (const named of query.paths) {
    const found = await findNamed(path.resolve(named), formats, query.from === 'auto', databases);
    if ('reason' in found) refused.push(found);
    else for (const { format, refs } of found) byTool.set(format, unique([...(byTool.get(format) ?? []), ...refs]));
  }
  return { sources: formats.flatMap((format) => (byTool.get(format)?.length ? [{ format, refs: byTool.get(format)! }] : [])), refused };
}

function unique(refs: SourceRef[]): SourceRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const id = `${r.file}\n${r.key ?? ''}`;
    return !seen.has(id) && Boolean(seen.add(id));
  });
}

type Found = Array<{ format: SourceFormat; refs: SourceRef[] }> | Refusal;

async function findNamed(named: string, formats: readonly SourceFormat[], sniffing: boolean, databases: SourceDatabases): Promise<Found> {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(named);
  } catch {
    return { path: named, reason: 'no such file or folder' };
  }
  if (stat.isSymbolicLink()) {
    // A folder's link is the user's own choice of folder; a file's is not followed (name the file itself).
    const target = fs.statSync(named, { throwIfNoEntry: false });
    if (target?.isDirectory()) return findInFolder(named, fs.realpathSync(named), formats, sniffing, databases);
    return { path: named, reason: 'a symbolic link; links are not followed: name the file it points to' };
  }
  if (stat.isDirectory()) return findInFolder(named, named, formats, sniffing, databases);
  if (!stat.isFile()) return { path: named, reason: fileKind(stat) };
  return findFile(named, formats, sniffing, databases);
}

async function findInFolder(named: string, folder: string, formats: readonly SourceFormat[], sniffing: boolean, databases: SourceDatabases): Promise<Found> {
  const found: Array<{ format: SourceFormat; refs: SourceRef[] }> = [];
  const claimed = new Set<string>();
  for (const format of formats) {
    let refs = await format.find(folder, databases);
    // A folder may hold any tool's files: each file goes to the tool whose records it begins with.
    if (sniffing) refs = refs.filter((r) => r.key !== undefined || (!claimed.has(r.file) && whose(r.file, formats) === format));
    for (const r of refs) claimed.add(r.file);
    if (refs.length) found.push({ format, refs });
  }
  if (found.length) return found;
  const tools = formats.map((f) => TOOL_NAMES[f.tool]).join(', ');
  return { path: named, reason: `no session of ${tools} in it` };
}

async function findFile(file: string, formats: readonly SourceFormat[], sniffing: boolean, databases: SourceDatabases): Promise<Found> {
  const format = sniffing ? whose(file, formats) : formats[0]!;
  if (!format)
    return { path: file, reason: `not a session file of ${FORMATS.map((f) => TOOL_NAMES[f.tool]).join(', ')} (its first records are none of theirs)` };
  let refs: SourceRef[];
  try {
    refs = await format.find(file, databases);
  } catch (err) {
    return { path: file, tool: format.tool, reason: err instanceof Error ? err.message : String(err) };
  }
  if (refs.length) return [{ format, refs }];
  return { path: file, tool: format.tool, reason: format.refusal?.(file) ?? `not a ${TOOL_NAMES[format.tool]} session file` };
}

/** The tool whose records a file begins with (its first lines; a database by its header), or null. */
export function whose(file: string, formats: readonly SourceFormat[] = FORMATS): SourceFormat | null {
  const bytes = readSourceHead(file, path.dirname(file), HEAD_BYTES);
  if (!bytes) return null;
  const head: Record<string, unknown>[] = [];
  for (const line of bytes.toString('utf8').split('\n').slice(0, 20)) {
    for (const value of line.trim() ? valuesOfLine(line.trim()) : []) {
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) head.push(value as Record<string, unknown>);
    }
  }
  return formats.find((f) => f.claims(file, head, bytes)) ?? null;
}
