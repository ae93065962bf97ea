import { entropyCuts } from './highEntropy';
import { imageCuts } from './images';
import { MIN_SECRET_LENGTH } from './knownSecrets';
import { applyCuts, disjoint, MARK, matchesOf, sampleOf, type Cut, type RedactionContext } from './redaction';
import { assignmentCuts } from './secretAssignments';
import { tokenCuts } from './secretTokens';
import { PathRewriter } from './workspacePaths';

/** A text redacted, and what was cut from it (in the order the rules ran). */
export interface RedactedText {
  readonly text: string;
  readonly cuts: readonly Cut[];
}

/**
 * The rules of docs/reference.md (What leaves the machine) for one context, applied to one text
 * at a time, in order: known keys, images, tokens and secret assignments, paths, and (tool output
 * only) high-entropy runs. Each rule reads what the ones before it left, and none takes what
 * another put in (a mark is a placeholder to every rule): redacting the result again changes nothing.
 */
export class TextRedactor {
  private readonly keys: RegExp | null;
  private readonly paths: PathRewriter;
  /** Texts shorter than this hold nothing any rule takes (a folder's path, or 7 characters: `://u:p@`, the shortest credential). */
  private readonly shortest: number;

  constructor(ctx: RedactionContext) {
    this.keys = knownKeysPattern(ctx.secrets);
    this.paths = new PathRewriter(ctx.folders, ctx.home);
    this.shortest = Math.min(7, this.paths.shortest);
  }

  /** `text` redacted, or null when no rule changed it; `toolOutput` adds the high-entropy rule. */
  redact(text: string, toolOutput: boolean): RedactedText | null {
    if (text.length < this.shortest) return null;
    let out = text;
    const made: Cut[] = [];
    const step = (cuts: Cut[]) => {
      if (cuts.length === 0) return;
      out = applyCuts(out, cuts);
      made.push(...cuts);
    };
    step(this.keyCuts(out));
    step(imageCuts(out));
    step(disjoint([...tokenCuts(out), ...assignmentCuts(out)]));
    step(this.paths.cuts(out));
    if (toolOutput) step(entropyCuts(out));
    return made.length ? { text: out, cuts: made } : null;
  }

  private keyCuts(text: string): Cut[] {
    if (!this.keys) return [];
    return matchesOf(this.keys, text).map((m) => ({ start: m.index, end: m.index + m[0].length, by: MARK.key, kind: 'known-key', sample: sampleOf(m[0]) }));
  }
}

/** One pattern for every known secret, longest first (so a key that holds a shorter one is taken whole); null when there are none. */
function knownKeysPattern(secrets: readonly string[]): RegExp | null {
  const kept = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
  return kept.length ? new RegExp(kept.map((s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g') : null;
}
