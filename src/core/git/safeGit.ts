import { spawn } from 'node:child_process';
import os from 'node:os';
import { childEnvironment } from '../process/childEnvironment';
import { findExecutable } from '../process/executable';

/**
 * Configuration that names a program git would start, overridden for every git Braid runs.
 * Configuration given on the command line outranks every file, the repository's .git/config and
 * the files it includes among them; git offers no way to skip the repository's own file.
 */
const OVERRIDES = [
  'core.fsmonitor=false', // the fsmonitor hook, asked by every command that reads the index
  `core.hooksPath=${os.devNull}`, // hooks (post-index-change...): a path under the null device holds none
  'core.pager=cat',
  'log.showSignature=false', // checking a signature runs gpg.program (or gpg.ssh.program, gpg.x509.program)
  'status.submoduleSummary=false',
  'safe.bareRepository=explicit', // a bare repository inside the workspace is not taken for the workspace's
  'color.ui=false',
];

/** Options before the subcommand: no pager, and no index refresh written back (writing it runs post-index-change). */
const GLOBAL_OPTIONS = ['--no-pager', '--no-optional-locks'];

/**
 * Set for git: no system or global configuration, no pager, no prompt, and no transport: a
 * partial clone's missing object would otherwise be fetched from the repository's remote, and an
 * `ext::` remote is a command.
 */
const GIT_VARIABLES: Record<string, string> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_ATTR_NOSYSTEM: '1',
  GIT_OPTIONAL_LOCKS: '0',
  GIT_ALLOW_PROTOCOL: '', // a list of no protocol, which outranks every protocol.*.allow setting
  GIT_NO_LAZY_FETCH: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
};

/**
 * git's environment: the child environment of every process Braid starts, without the GIT_*
 * variables Braid inherited (GIT_DIR, GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, GIT_CONFIG_PARAMETERS
 * could point git elsewhere or name a program), plus {@link GIT_VARIABLES}.
 */
export function gitEnvironment(): NodeJS.ProcessEnv {
  const env = childEnvironment();
  for (const name of Object.keys(env)) if (/^GIT_/i.test(name)) delete env[name];
  return { ...env, ...GIT_VARIABLES };
}

/** What a git command printed, and how it exited. */
export interface GitRun {
  readonly code: number | null;
  readonly stdout: string;
  /** What it said on stderr (its reason, when it failed), cut at the same size. */
  readonly stderr: string;
}

const MAX_OUTPUT = 256 * 1024;

/**
 * git run so that nothing the repository configures executes: hooks, the fsmonitor, filter
 * drivers, signature programs, pagers, external diffs and remotes are all off. Used for the git
 * context of trusted workspaces only; an untrusted one gets no git at all.
 */
export class SafeGit {
  private constructor(
    private readonly executable: string,
    private readonly cwd: string,
    /** The filter drivers the repository's configuration defines, each overridden. */
    readonly filterDrivers: readonly string[],
    private readonly timeoutMs: number,
  ) {}

  private get config(): string[] {
    const off = this.filterDrivers.flatMap((name) => [
      `filter.${name}.clean=`,
      `filter.${name}.smudge=`,
      `filter.${name}.process=`,
      `filter.${name}.required=false`,
    ]);
    return [...OVERRIDES, ...off];
  }

  /**
   * git in `cwd`, or undefined when git is not on PATH or the configuration names a filter driver
   * that cannot be overridden on a command line.
   */
  static async open(cwd: string, timeoutMs: number, executable = findExecutable('git')): Promise<SafeGit | undefined> {
    if (!executable) return undefined;
    const drivers = await new SafeGit(executable, cwd, [], timeoutMs).readFilterDrivers();
    return drivers && new SafeGit(executable, cwd, drivers, timeoutMs);
  }

  /**
   * git in `cwd` overriding `filterDrivers`, the drivers {@link open} found for a configuration that
   * has not changed since (the caller knows it has not): starts no git to find them again.
   */
  static withFilterDrivers(executable: string, cwd: string, filterDrivers: readonly string[], timeoutMs: number): SafeGit {
    return new SafeGit(executable, cwd, filterDrivers, timeoutMs);
  }

  /** What `git <args>` printed, when it exited 0. */
  async output(args: readonly string[]): Promise<string | undefined> {
    const run = await this.run(args);
    return run.code === 0 ? run.stdout : undefined;
  }

  /** `git <args>` with its exit code, output and reason; `extraConfig` adds `-c` settings (an identity for a merge commit). */
  exec(args: readonly string[], extraConfig: readonly string[] = []): Promise<GitRun> {
    return this.run(args, extraConfig);
  }

  /** The folder git runs in. */
  get folder(): string {
    return this.cwd;
  }

  /** The same git (its overrides, its filter drivers) in another folder of the same repository, such as one of its worktrees. */
  in(cwd: string): SafeGit {
    return new SafeGit(this.executable, cwd, this.filterDrivers, this.timeoutMs);
  }

  /**
   * The filter drivers the configuration defines. A driver's clean, smudge or process command runs
   * for the paths that .gitattributes or .git/info/attributes (both the repository's to write)
   * assign it, and only a driver's name can override it, so each configured one is overridden.
   * Undefined when git cannot tell, or a name cannot be written as `-c filter.<name>.clean=`.
   */
  private async readFilterDrivers(): Promise<string[] | undefined> {
    const run = await this.run(['config', '-z', '--name-only', '--get-regexp', '^filter\\.']);
    if (run.code === 1 && run.stdout === '') return []; // none configured
    if (run.code !== 0) return undefined;
    const names = new Set<string>();
    for (const key of run.stdout.split('\0').filter(Boolean)) {
      const name = key.slice('filter.'.length, key.lastIndexOf('.'));
      if (/[=\n]/.test(name)) return undefined;
      if (name) names.add(name);
    }
    return [...names];
  }

  private run(args: readonly string[], extraConfig: readonly string[] = []): Promise<GitRun> {
    return new Promise((resolve) => {
      const argv = [...[...extraConfig, ...this.config].flatMap((c) => ['-c', c]), ...GLOBAL_OPTIONS, ...args];
      const child = spawn(this.executable, argv, { cwd: this.cwd, env: gitEnvironment(), stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        if (stdout.length < MAX_OUTPUT) stdout += chunk.toString('utf8');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < MAX_OUTPUT) stderr += chunk.toString('utf8');
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), this.timeoutMs);
      child.on('error', () => {
        clearTimeout(timer);
        resolve({ code: null, stdout: '', stderr: '' });
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }
}
