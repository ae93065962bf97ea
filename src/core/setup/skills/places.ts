import os from 'node:os';
import path from 'node:path';
import type { SetupFolder } from './setupFolder';

/** Where a session's skills, commands and instructions are looked for. */
export interface SetupPlaces {
  readonly workspaceDir: string;
  /** Project skills and commands are read only in a trusted workspace. */
  readonly trusted: boolean;
  /** Braid's user configuration folder (`$XDG_CONFIG_HOME/braid`). */
  readonly userConfigDir: string;
  /** The user's home folder (where `~/.claude` is). */
  readonly home: string;
}

/** The places for a workspace, the home folder from `env` (HOME) or the system. */
export function setupPlaces(workspaceDir: string, trusted: boolean, userConfigDir: string, env: NodeJS.ProcessEnv = process.env): SetupPlaces {
  return { workspaceDir, trusted, userConfigDir, home: env.HOME || os.homedir() };
}

/**
 * The folders of one kind (`skills` or `commands`) in the order they win a name clash: the user's
 * first (Braid's folder, then Claude Code's `~/.claude`), as Claude Code ranks personal over
 * project; then the project's `.braid`, `.claude`, `.github` (trusted workspaces only). A project
 * cannot replace a skill or command the user has under the same name.
 */
export function foldersOf(kind: 'skills' | 'commands', places: SetupPlaces): SetupFolder[] {
  const user: SetupFolder[] = [
    { dir: path.join(places.userConfigDir, kind), origin: 'user', label: `${tilde(places.userConfigDir, places.home)}/${kind}` },
    { dir: path.join(places.home, '.claude', kind), origin: 'user', label: `~/.claude/${kind}` },
  ];
  if (!places.trusted) return user;
  const ws = places.workspaceDir;
  const project: SetupFolder[] =
    kind === 'skills'
      ? ['.braid/skills', '.claude/skills', '.github/skills'].map((rel) => ({ dir: path.join(ws, rel), origin: 'project', label: rel, root: ws }))
      : [
          { dir: path.join(ws, '.braid', 'commands'), origin: 'project', label: '.braid/commands', root: ws },
          { dir: path.join(ws, '.claude', 'commands'), origin: 'project', label: '.claude/commands', root: ws },
          { dir: path.join(ws, '.github', 'prompts'), origin: 'project', label: '.github/prompts', root: ws },
        ];
  return [...user, ...project];
}

function tilde(dir: string, home: string): string {
  const rel = path.relative(home, dir);
  return home && !rel.startsWith('..') && !path.isAbsolute(rel) ? `~/${rel.split(path.sep).join('/')}` : dir;
}
