import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { realGit } from './hostileRepo';

const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_GLOBAL: '/dev/null' };

/** Plain git in `dir` with a fixed identity (building and inspecting fixtures, never the code under test). */
export function gitIn(dir: string): (...args: string[]) => string {
  const bin = realGit();
  return (...args) => execFileSync(bin, args, { cwd: dir, env: { ...process.env, ...identity }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
}

/**
 * Makes `dir` a repository with `files` committed on branch main, and a user identity in its own
 * configuration (as a user's repository has, so a merge commit can be written).
 */
export function initRepo(dir: string, files: Record<string, string>): (...args: string[]) => string {
  fs.mkdirSync(dir, { recursive: true });
  const git = gitIn(dir);
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Test User');
  git('config', 'user.email', 'test@example.com');
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'first commit');
  return git;
}
