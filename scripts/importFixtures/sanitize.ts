// Makes a recording fit to commit: the temporary workspace becomes the placeholder the import
// tests replace, the temporary HOME a fixed fake one, and vendor system prompts a short marker.
import fs from 'node:fs';
import path from 'node:path';
import type { SqlJsStatic } from '../../src/core/index/sqlite';
import { replaceInDatabase, WORKSPACE_PLACEHOLDER } from '../../test/support/importFixtures';
import type { Recording } from './recording';

/** The HOME every fixture claims to have been recorded in. */
export const FAKE_HOME = '/home/user';
/** What a vendor's system prompt is replaced with (the field that held it stays). */
export const SYSTEM_PROMPT_REMOVED = '[system prompt removed]';

/** The pairs every text is rewritten with, in order (the workspace is not inside HOME, so order only matters for safety). */
function replacements(recording: Recording): Array<[string, string]> {
  return [
    [recording.workspace, WORKSPACE_PLACEHOLDER],
    [recording.home, FAKE_HOME],
  ];
}

/** A text replacement: every `from` becomes `to`. */
export type Replacement = readonly [from: string, to: string];

/** Every file below `dir`, depth first. */
export function filesBelow(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesBelow(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/**
 * Rewrites every file below `dir`: texts by replacement (the workspace, HOME, then the tool's own
 * `more`), databases through SQL; a live pair's files stay as they are.
 */
export function sanitizeTree(dir: string, recording: Recording, SQL: SqlJsStatic, more: readonly Replacement[] = []): void {
  const pairs = [...replacements(recording), ...more];
  for (const file of filesBelow(dir)) {
    if (file.endsWith('-wal') || file.endsWith('-shm')) continue;
    if (file.endsWith('.db')) {
      if (!fs.existsSync(`${file}-wal`)) fs.writeFileSync(file, replaceInDatabase(SQL, fs.readFileSync(file), pairs));
      continue;
    }
    let text = fs.readFileSync(file, 'utf8');
    for (const [from, to] of pairs) text = text.split(from).join(to);
    fs.writeFileSync(file, text);
  }
}

/** Files below `dir` (but the live pair's) that still name the recording's folder, for a warning. */
export function leftoverPaths(dir: string, recording: Recording): string[] {
  return filesBelow(dir).filter((f) => !/-(wal|shm)$/.test(f) && fs.readFileSync(f).includes(recording.root));
}

/**
 * Rewrites each line of a JSONL file that `change` changes (it edits the parsed record in place
 * and returns true); the other lines keep their bytes.
 */
export function rewriteJsonLines(file: string, change: (record: Record<string, unknown>) => boolean): void {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const out = lines.map((line) => {
    if (!line.trim()) return line;
    const record = JSON.parse(line) as Record<string, unknown>;
    return change(record) ? JSON.stringify(record) : line;
  });
  fs.writeFileSync(file, out.join('\n'));
}

/** Renames `dir/from` to `dir/to` (a tool's folder named after the recording's path). */
export function renameEntry(dir: string, from: string, to: string): void {
  if (from === to || !fs.existsSync(path.join(dir, from))) return;
  fs.renameSync(path.join(dir, from), path.join(dir, to));
}

/** Copies `from` into `to` (made fresh), leaving out what `keep` refuses (by path relative to `from`). */
export function copyTree(from: string, to: string, keep: (relative: string) => boolean = () => true): void {
  fs.rmSync(to, { recursive: true, force: true });
  for (const file of filesBelow(from)) {
    const relative = path.relative(from, file);
    if (!keep(relative)) continue;
    fs.mkdirSync(path.dirname(path.join(to, relative)), { recursive: true });
    fs.copyFileSync(file, path.join(to, relative));
  }
}
