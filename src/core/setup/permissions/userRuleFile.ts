import fs from 'node:fs';
import path from 'node:path';
// The ES module build: the UMD one requires its parts at run time, which a bundle cannot follow.
import { applyEdits, modify } from 'jsonc-parser/lib/esm/main.js';
import { writeFileAtomic } from '../../fs/atomic';
import { withFileLock } from '../../fs/fileLock';
import { makeFolders } from '../../fs/folders';
import { isObject, stripJsonComments } from '../settingsFiles';
import type { RuleKind } from './permissionRules';
import { parseRule } from './ruleSyntax';

// "Always allow" on the approval card, and `braid permissions remove`, change the rules in Braid's
// user settings file. Only the rule list changes: the file's comments, other keys and layout stay
// as they were. A file that is not a JSON object is left alone, with an error.

/** Adds a rule to `permissions.<kind>` of the user's settings file (created if missing); a rule already there is not added twice. */
export async function addUserRule(file: string, kind: RuleKind, rule: string): Promise<void> {
  const parsed = parseRule(rule);
  if ('error' in parsed) throw new Error(parsed.error);
  await changeRules(file, kind, (rules) => (rules.includes(parsed.text) ? rules : [...rules, parsed.text]));
}

/** Removes a rule from `permissions.<kind>` of the user's settings file; false when it was not there. */
export async function removeUserRule(file: string, kind: RuleKind, rule: string): Promise<boolean> {
  let removed = false;
  await changeRules(file, kind, (rules) => {
    const kept = rules.filter((r) => r !== rule);
    removed = kept.length !== rules.length;
    return kept;
  });
  return removed;
}

async function changeRules(file: string, kind: RuleKind, change: (rules: string[]) => string[]): Promise<void> {
  makeFolders(path.dirname(file));
  await withFileLock(`${file}.lock`, { staleMs: 30_000, timeoutMs: 10_000 }, () => {
    const text = readText(file);
    const settings = parseObject(file, text);
    const permissions = isObject(settings.permissions) ? settings.permissions : {};
    const current = Array.isArray(permissions[kind]) ? (permissions[kind] as unknown[]).filter((r): r is string => typeof r === 'string') : [];
    const edits = modify(text || '{}', ['permissions', kind], change(current), { formattingOptions: { insertSpaces: true, tabSize: 2 } });
    const changed = applyEdits(text || '{}', edits);
    writeFileAtomic(file, changed.endsWith('\n') ? changed : `${changed}\n`);
  });
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

function parseObject(file: string, text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(stripJsonComments(text));
  } catch (err) {
    throw new Error(`${file} is not valid JSON (${(err as Error).message}); fix it, then try again`, { cause: err });
  }
  if (!isObject(value)) throw new Error(`${file} is not a JSON object; fix it, then try again`);
  return value;
}
