import fs from 'node:fs';
import path from 'node:path';
import { findExecutable } from '../process/executable';
import { NO_REPOSITORY, repoFingerprint } from './repoFingerprint';
import { SafeGit } from './safeGit';

/** What git says of a repository apart from its work tree: it changes only with the repository's fingerprint. */
export interface RepoFacts {
  readonly filterDrivers: readonly string[];
  /** Undefined when the folder is not inside a work tree. */
  readonly tree?: {
    /** As git prints it (credentials included: callers showing it strip them). */
    readonly origin?: string;
    readonly branch?: string;
    readonly log?: string;
    /**
     * The repository's first commit (the lowest id when it has several), null before any commit;
     * absent until a caller asks for it (finding it walks the whole history).
     */
    readonly rootCommit?: string | null;
  };
}

interface Remembered {
  readonly fingerprint: string;
  readonly facts: RepoFacts;
}

/** The facts of the last few folders asked about, by git executable and folder: a window asks them once. */
const remembered = new Map<string, Remembered>();
const REMEMBERED_FOLDERS = 16;

/**
 * The facts of the repository around `dir` and a git that overrides its filter drivers, or
 * undefined when git is not on PATH or `dir` is in no repository (then no git is started).
 *
 * git is asked only when the repository's fingerprint (HEAD, refs, configuration:
 * repoFingerprint.ts) changed since the facts were last read, in this process or, through
 * `factsFile` (a small file in the data folder), in an earlier one: a fresh `braid exec` in an
 * unchanged repository starts no git for them. A fingerprint that cannot be told is never cached.
 */
export async function repoFacts(
  dir: string,
  options: { timeoutMs: number; factsFile?: string; rootCommit?: boolean },
): Promise<{ git: SafeGit; facts: RepoFacts } | undefined> {
  const executable = findExecutable('git');
  if (!executable) return undefined;
  const fingerprint = repoFingerprint(dir);
  if (fingerprint === NO_REPOSITORY) return undefined;
  const key = `${executable}\0${dir}`;
  const saved = options.factsFile === undefined ? {} : readFactsFile(options.factsFile);
  const known = remembered.get(key) ?? saved[key];
  if (fingerprint !== undefined && known?.fingerprint === fingerprint) {
    const git = SafeGit.withFilterDrivers(executable, dir, known.facts.filterDrivers, options.timeoutMs);
    const { tree } = known.facts;
    const root = options.rootCommit && tree && tree.rootCommit === undefined ? await rootCommit(git) : undefined;
    const facts = tree && root !== undefined ? { ...known.facts, tree: { ...tree, rootCommit: root } } : known.facts;
    remember(key, { fingerprint, facts }, options.factsFile, saved);
    return { git, facts };
  }
  const git = await SafeGit.open(dir, options.timeoutMs, executable);
  if (!git) return undefined;
  const inside = await git.output(['rev-parse', '--is-inside-work-tree']);
  const tree = inside?.trim() === 'true' ? await treeFacts(git, options.rootCommit === true) : undefined;
  const facts: RepoFacts = { filterDrivers: git.filterDrivers, ...(tree ? { tree } : {}) };
  if (fingerprint === undefined) remembered.delete(key);
  else remember(key, { fingerprint, facts }, options.factsFile, saved);
  return { git, facts };
}

/** Origin, branch, the last commits and, when asked, the first commit of the repository around `git`'s folder, asked at once. */
async function treeFacts(git: SafeGit, withRootCommit: boolean): Promise<NonNullable<RepoFacts['tree']>> {
  const [origin, branch, log, root] = await Promise.all([
    git.output(['remote', 'get-url', 'origin']),
    git.output(['branch', '--show-current']),
    git.output(['log', '-3', '--oneline', '--no-decorate', '--no-show-signature', '--no-ext-diff', '--no-textconv']),
    withRootCommit ? rootCommit(git) : undefined,
  ]);
  return { origin: origin?.trimEnd(), branch: branch?.trimEnd(), log: log?.trimEnd(), ...(root !== undefined ? { rootCommit: root } : {}) };
}

/** The first commit HEAD descends from (the lowest id when it has several); null when there is none, undefined when git failed (an unborn HEAD, a timeout: asked again next time). */
async function rootCommit(git: SafeGit): Promise<string | null | undefined> {
  const roots = await git.output(['rev-list', '--max-parents=0', 'HEAD']);
  return roots === undefined ? undefined : (roots.split('\n').filter(Boolean).sort()[0] ?? null);
}

/** Keeps `entry` in memory and, when it is not there already, in `factsFile`. */
function remember(key: string, entry: Remembered, factsFile: string | undefined, saved: Record<string, Remembered>): void {
  remembered.delete(key);
  remembered.set(key, entry);
  if (remembered.size > REMEMBERED_FOLDERS) remembered.delete(remembered.keys().next().value!);
  if (factsFile === undefined || JSON.stringify(saved[key]) === JSON.stringify(entry)) return;
  const entries = Object.entries({ ...saved, [key]: entry }).filter(([k]) => k !== key);
  writeFactsFile(factsFile, Object.fromEntries([...entries.slice(-(REMEMBERED_FOLDERS - 1)), [key, entry]]));
}

/** The entries of a facts file; none when it is missing or not one (it is a cache: a damaged one is rewritten). */
function readFactsFile(file: string): Record<string, Remembered> {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown; entries?: unknown };
    if (parsed.version !== 1 || typeof parsed.entries !== 'object' || parsed.entries === null) return {};
    const valid = Object.entries(parsed.entries as Record<string, Partial<Remembered>>).filter(
      ([, e]) => typeof e?.fingerprint === 'string' && Array.isArray(e.facts?.filterDrivers) && e.facts.filterDrivers.every((d) => typeof d === 'string'),
    );
    return Object.fromEntries(valid) as Record<string, Remembered>;
  } catch {
    return {};
  }
}

/** Replaces the facts file by renaming a temp file over it (no fsync: losing it costs one more round of git). Failing is harmless. */
function writeFactsFile(file: string, entries: Record<string, Remembered>): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${Date.now()}`);
  try {
    fs.writeFileSync(temp, JSON.stringify({ version: 1, entries }));
    fs.renameSync(temp, file);
  } catch {
    fs.rmSync(temp, { force: true });
  }
}
