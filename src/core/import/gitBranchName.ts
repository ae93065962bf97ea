/** The longest branch name an import keeps: longer ones are no branch a person typed. */
const MAX_BRANCH = 200;

/**
 * `value` when it is a branch name git would take (`git check-ref-format --branch`'s rules: no
 * spaces, control characters, `~ ^ : ? * [ \`, `..`, `@{`, no leading `-` or `/`, no trailing
 * `/`, `.` or `.lock`), else undefined: a source file's branch is another tool's text, shown in
 * lists and filtered on, so only a real branch's name is kept.
 */
export function gitBranchName(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_BRANCH) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f~^:?*[\\]|\.\.|@\{|\/\/|\/\.|^[-/.]|[/.]$|\.lock$|^@$/u.test(value)) return undefined;
  return value;
}
