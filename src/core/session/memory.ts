import type { MemoryFact, MemoryKind } from '../wire/records';

// The session memory as text (docs/reference.md, Session memory): one fact a line, `- kind: text`.
// The same text is what the user reads and edits, what the model is asked to write, and what the
// model is given after a compaction, so there is one format to learn and to parse.

/** The kinds of fact, in the order the text lists them. */
export const MEMORY_KINDS: readonly MemoryKind[] = ['decision', 'constraint', 'file', 'preference', 'note'];

/** The most facts a memory holds, and the longest fact (characters): it is given to the model whole. */
export const MAX_FACTS = 60;
export const MAX_FACT_CHARS = 600;

/** Text that is not a memory the user can save; the message says which line and why. */
export class MemoryTextError extends Error {
  override readonly name = 'MemoryTextError';
}

/** A kind this version knows; any other reads as a note (a newer writer's kind loses nothing but its name). */
export function memoryKind(kind: string): MemoryKind {
  return (MEMORY_KINDS as readonly string[]).includes(kind) ? (kind as MemoryKind) : 'note';
}

/** The facts as text, one `- kind: text` line each, grouped by kind in MEMORY_KINDS order. */
export function memoryText(facts: readonly MemoryFact[]): string {
  const ordered = MEMORY_KINDS.flatMap((kind) => facts.filter((f) => memoryKind(f.kind) === kind));
  return ordered.map((f) => `- ${memoryKind(f.kind)}: ${f.text}`).join('\n');
}

/** The heading of the text the user edits: how to write it (lines starting with `#` are not facts). */
export function memoryEditHeading(title: string): string {
  return [
    `# Session memory of "${title.replace(/\s+/g, ' ')}"`,
    `# One fact a line: "- kind: text", kind one of ${MEMORY_KINDS.join(', ')} (another is read as a note).`,
    '# Save to keep it; the model is given it after a compaction and in forks. Lines starting with # are left out.',
    '',
  ].join('\n');
}

/**
 * The facts of a memory text: each line that is not blank and not a `#` comment is one fact,
 * `- kind: text`, `- text` or plain text (a note). Code fences around it (as a model may write
 * them) are left out. Throws MemoryTextError when a fact is too long or there are too many.
 */
export function parseMemoryText(text: string): MemoryFact[] {
  const facts: MemoryFact[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('```')) continue;
    const body = line.replace(/^[-*]\s*/, '');
    const match = /^([a-z]+):\s*(.*)$/i.exec(body);
    const known = match && (MEMORY_KINDS as readonly string[]).includes(match[1]!.toLowerCase());
    const fact: MemoryFact = known ? { kind: match[1]!.toLowerCase() as MemoryKind, text: match[2]!.trim() } : { kind: 'note', text: body };
    if (!fact.text) continue;
    if (fact.text.length > MAX_FACT_CHARS)
      throw new MemoryTextError(`line ${i + 1} is ${fact.text.length} characters long; a fact holds at most ${MAX_FACT_CHARS}: split or shorten it`);
    facts.push(fact);
  }
  if (facts.length > MAX_FACTS) throw new MemoryTextError(`the memory has ${facts.length} facts; it holds at most ${MAX_FACTS}: keep the ones that matter`);
  return facts;
}

/** What the model is given of the memory (after a compaction's summary, or when the user changed it). */
export function memoryForModel(facts: readonly MemoryFact[]): string {
  return `Session memory (durable facts of this session; the user can see and edit them):\n${facts.length > 0 ? memoryText(facts) : '(no facts)'}`;
}
