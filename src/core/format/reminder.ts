// Context Braid adds to a user message ahead of the person's text (instruction files, git
// context, a side question's boundary) goes in `<system-reminder>` text blocks. Each block ends
// its line: a provider that joins a message's text blocks with nothing between them (OpenAI's
// APIs, and servers that copy them) would otherwise put the prompt on the reminder's last line.

const OPEN = '<system-reminder>\n';
const CLOSE = '\n</system-reminder>';

/** A reminder's text block: the tags on lines of their own, ending with a line break. */
export function reminderBlock(text: string): string {
  return `${OPEN}${text}${CLOSE}\n`;
}

/**
 * The text of a block made by {@link reminderBlock}, or undefined for any other block. Blocks
 * written before reminders ended with a line break are read too.
 */
export function reminderText(block: string): string | undefined {
  const body = block.endsWith('\n') ? block.slice(0, -1) : block;
  if (!body.startsWith(OPEN) || !body.endsWith(CLOSE)) return undefined;
  return body.slice(OPEN.length, -CLOSE.length);
}
