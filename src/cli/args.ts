/** A usage error: the CLI prints it and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parsed arguments: positionals, and options as given (`--flag` is true, `--key value` a string). */
export interface ParsedArgs {
  readonly positionals: string[];
  readonly options: Map<string, string | true>;
}

/**
 * Parses `argv` against the options a command takes: `flags` have no value, `valued` take one
 * (`--key value` or `--key=value`), `optional` ones may take one, only as `--key=value` (so the
 * word after `--key` stays a positional). Anything else starting with `--` is a usage error.
 */
export function parseArgs(argv: readonly string[], spec: { flags?: readonly string[]; valued?: readonly string[]; optional?: readonly string[] }): ParsedArgs {
  const flags = new Set(spec.flags ?? []);
  const valued = new Set(spec.valued ?? []);
  const optional = new Set(spec.optional ?? []);
  const positionals: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (optional.has(name)) {
      options.set(name, eq > 0 ? arg.slice(eq + 1) : true);
    } else if (flags.has(name)) {
      if (eq > 0) throw new UsageError(`--${name} takes no value`);
      options.set(name, true);
    } else if (valued.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
      options.set(name, value);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  return { positionals, options };
}

/** Exactly `count` positionals, named for the message. */
export function expectPositionals(args: ParsedArgs, names: readonly string[]): string[] {
  if (args.positionals.length !== names.length) {
    throw new UsageError(names.length ? `expected ${names.map((n) => `<${n}>`).join(' ')}` : `unexpected argument "${args.positionals[0]}"`);
  }
  return args.positionals;
}
