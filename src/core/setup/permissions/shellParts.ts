// A compound shell command (`a && b`, `a; b`, `a | b`) is judged part by part, as Claude Code
// does: an allow rule allows it only when every part matches; a deny rule matches any part.

/**
 * The simple commands of a command line, split at `&&`, `||`, `;`, `|`, `&` and line breaks
 * outside quotes. Each part is trimmed; empty parts are dropped.
 */
export function commandParts(command: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === '\\' && quote === '"' && i + 1 < command.length) current += c + command[++i]!;
      else {
        if (c === quote) quote = undefined;
        current += c;
      }
      continue;
    }
    if (c === '\\' && i + 1 < command.length) {
      current += c + command[++i]!;
    } else if (c === '"' || c === "'") {
      quote = c;
      current += c;
    } else if (c === ';' || c === '\n' || c === '|' || c === '&') {
      parts.push(current);
      current = '';
      if ((c === '|' || c === '&') && command[i + 1] === c) i++;
    } else current += c;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

/** A part that runs other commands inside it (`$(…)`, backquotes, `<(…)`): no prefix rule can vouch for it. */
export function hasSubstitution(part: string): boolean {
  return /\$\(|`|<\(|>\(/.test(part);
}

/**
 * Whether a simple command matches a Bash specifier: `prefix:*` matches the prefix alone or
 * followed by a space and anything; `*` elsewhere matches any text; otherwise the exact command.
 */
export function bashSpecifierMatches(specifier: string, part: string): boolean {
  const command = part.replace(/\s+/g, ' ').trim();
  if (specifier.endsWith(':*')) {
    const prefix = specifier.slice(0, -2).replace(/\s+/g, ' ').trim();
    return command === prefix || command.startsWith(`${prefix} `);
  }
  if (specifier.includes('*')) {
    const source = specifier
      .replace(/\s+/g, ' ')
      .trim()
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    return new RegExp(`^${source}$`, 's').test(command);
  }
  return command === specifier.replace(/\s+/g, ' ').trim();
}
