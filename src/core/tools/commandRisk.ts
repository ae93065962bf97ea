/**
 * Files that make programs run later without anyone running a command: git runs hooks and the
 * programs its config names, VS Code runs tasks and reads settings that name programs, direnv
 * runs .envrc on entering the folder, npm and yarn read their rc files on every command. A write
 * to one of them is as strong as a shell command, so it needs the approval a command needs.
 */
const RULES: ReadonlyArray<{ readonly test: (parts: readonly string[]) => boolean; readonly why: string }> = [
  { test: (p) => p.includes('.git'), why: 'it is inside .git, where git finds hooks and the programs its config runs' },
  { test: (p) => p.includes('.husky') || p.includes('.githooks'), why: 'git hooks kept there run on commit, push and checkout' },
  { test: (p) => vscodeFile(p), why: 'VS Code reads settings (which can name programs) and tasks it runs from it' },
  { test: (p) => p.at(-1)!.endsWith('.code-workspace'), why: 'a workspace file holds VS Code settings and tasks, which can run programs' },
  { test: (p) => p.includes('.devcontainer'), why: 'its commands run when the folder is opened in a dev container' },
  { test: (p) => p.at(-1) === '.envrc', why: 'direnv runs it whenever a shell enters the folder' },
  { test: (p) => ['.npmrc', '.yarnrc', '.yarnrc.yml'].includes(p.at(-1)!), why: 'npm and yarn read it on every command, and it can name programs they run' },
];

function vscodeFile(parts: readonly string[]): boolean {
  const i = parts.lastIndexOf('.vscode');
  return i >= 0 && i === parts.length - 2 && ['settings.json', 'tasks.json', 'launch.json'].includes(parts[i + 1]!);
}

/**
 * Why writing the file at `relative` (relative to its workspace folder, either separator) can make
 * programs run later, or undefined when it cannot. Names compare without case: on macOS and
 * Windows `.GIT/config` is `.git/config`.
 */
export function commandRisk(relative: string): string | undefined {
  const parts = relative
    .toLowerCase()
    .split(/[\\/]+/)
    .filter((p) => p && p !== '.');
  if (parts.length === 0) return undefined;
  return RULES.find((rule) => rule.test(parts))?.why;
}
