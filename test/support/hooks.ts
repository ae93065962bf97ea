import fs from 'node:fs';
import path from 'node:path';
import type { HookCommand } from '../../src/core/setup/hooks/hookConfig';
import type { HookEvent } from '../../src/core/setup/hooks/hookEvents';
import { SessionHooks } from '../../src/core/setup/hooks/sessionHooks';

/** The old `braid.hooks.userPromptSubmit` setting's hook as a session runs it. */
export function promptHooks(command: string, timeoutSec = 60): SessionHooks {
  return new SessionHooks([
    { event: 'UserPromptSubmit', command, timeoutSec, origin: 'vscode', file: 'braid.hooks.userPromptSubmit', runs: true, legacy: true },
  ]);
}

/** One user hook of an event (a minute to finish, the default: a loaded machine may be slow to start bash). */
export function userHook(event: HookEvent, command: string, extra: Partial<HookCommand> = {}): HookCommand {
  return { event, command, timeoutSec: 60, origin: 'user', file: 'settings.json', runs: true, ...extra };
}

/**
 * A hook script that writes the JSON it got on stdin to `<dir>/<name>.json` (one JSON per line,
 * appended), then prints `stdout`, prints `stderr` to stderr and exits with `code`.
 */
export function recordingHook(dir: string, name: string, answer: { code?: number; stdout?: string; stderr?: string } = {}): string {
  const script = path.join(dir, `${name}.sh`);
  const out = path.join(dir, `${name}.json`);
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  fs.writeFileSync(
    script,
    [
      '#!/bin/bash',
      `input=$(cat); printf '%s\\n' "$input" >> ${q(out)}`,
      answer.stdout !== undefined ? `printf '%s' ${q(answer.stdout)}` : '',
      answer.stderr !== undefined ? `printf '%s' ${q(answer.stderr)} >&2` : '',
      `exit ${answer.code ?? 0}`,
    ].join('\n'),
    { mode: 0o755 },
  );
  return `bash ${q(script)}`;
}

/** The inputs a recording hook got, in order. */
export function hookInputs(dir: string, name: string): Record<string, unknown>[] {
  const file = path.join(dir, `${name}.json`);
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
