import { MARK, matchesOf, sampleOf, type Cut } from './redaction';

// Random-looking runs in tool output: keys printed by a command or read from a file, in no format
// a token rule knows. A run of the characters keys are written in (base64, base64url, hex) of 20
// or more is judged on its own; the thresholds were set on random keys (16 to 48 bytes in base64,
// base64url, hex and alphanumerics) against the runs of real sessions, the repository's sources,
// a `git log`, `ls -la` and package-lock.json (docs/reference.md, What leaves the machine).

/** A run of the characters keys are written in (begun only where one begins: a shorter run is not tried again from each of its characters). */
const RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{20,}/g;

/** Ids that look random and are not secrets: the providers' and Braid's message, call and session ids, UUIDs, ULIDs, integrity hashes. */
const NOT_SECRET =
  /^(?:(?:msg|toolu|srvtoolu|req|call|ses|agent|fc|resp|rs|prt|run|file|thread|asst|batch|chatcmpl)[_-]|sha(?:1|256|384|512)-)|^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$|^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

const HEX = /^(?:[0-9a-f]+|[0-9A-F]+)$/;

/** A word inside a run joined by `/`, `_`, `-` or `=`: a path, a file name, an identifier, `NAME=value`. */
const WORD = /^(?:[a-z]{3,}|[A-Z][a-z]{2,}|[A-Z]{3,})$/;

/** Before a hex run on its line, close to it: it is a hash the line names as one. */
const DIGEST_CUE = /(?:sha-?\d*|md5|hash|digest|checksum|commit|integrity|etag|object|oid|rev|revision|tree|blob|parent|merge|id)\b\W*$/i;

/** The random-looking runs of tool output `text`, each to be replaced by `[REDACTED:entropy]`. */
export function entropyCuts(text: string): Cut[] {
  const cuts: Cut[] = [];
  for (const m of matchesOf(RUN, text)) {
    if (isRandomRun(m[0], text, m.index))
      cuts.push({ start: m.index, end: m.index + m[0].length, by: MARK.entropy, kind: 'high-entropy', sample: sampleOf(m[0]) });
  }
  return cuts;
}

/**
 * Whether a run found at `at` in `text` reads as a key. Known ids are not; a run joined from parts
 * of which one is a word (a path, `python_utils-1d9c...`, `NAME=value`) is judged part by part
 * (its hex parts, content-addressed names, left out); any other run is judged whole.
 */
export function isRandomRun(run: string, text: string, at: number): boolean {
  if (NOT_SECRET.test(run)) return false;
  if (HEX.test(run)) return isRandomHex(run, text, at);
  const parts = run.split(/[/_=-]+/).filter(Boolean);
  if (parts.length > 1 && parts.some((p) => WORD.test(p))) return parts.some((p) => p.length >= 20 && !HEX.test(p) && !NOT_SECRET.test(p) && looksRandom(p));
  return looksRandom(run);
}

/**
 * A hex key: 32 digits (16 bytes) or more with letters and digits and entropy of 3 bits a digit
 * (random hex has 3.5 or more; a run such as `00000000001111...` less). Not 40 digits (a git or
 * SHA-1 id), nor a hash the line names as one (`commit`, `sha256:`, `"integrity":`...) or prints as
 * `sha256sum` does (`<hash>  <file>`).
 */
function isRandomHex(run: string, text: string, at: number): boolean {
  if (run.length < 32 || run.length === 40 || !/[0-9]/.test(run) || !/[a-fA-F]/.test(run) || entropy(run) < 3) return false;
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  if (DIGEST_CUE.test(text.slice(Math.max(lineStart, at - 32), at))) return false;
  return !/^ [ *]\S/.test(text.slice(at + run.length, at + run.length + 3));
}

/**
 * A run of letters and digits that reads as random: two kinds of characters at least (of lower
 * case, upper case, digits); Shannon entropy of at least 0.8 × log2(min(length, 64)) bits a
 * character (80% of the most a run of that length can have over base64's 64 characters); less
 * than 70% of it in word-shaped pieces (`[A-Z]?[a-z]{2,}` of three letters or more: identifiers
 * and words are nearly all such pieces, random text about a quarter); not counting up (an alphabet).
 */
function looksRandom(s: string): boolean {
  const kinds = Number(/[a-z]/.test(s)) + Number(/[A-Z]/.test(s)) + Number(/[0-9]/.test(s));
  return kinds >= 2 && entropy(s) >= 0.8 * Math.log2(Math.min(s.length, 64)) && wordShare(s) < 0.7 && !countsUp(s);
}

/** Shannon entropy of `s` in bits a character. */
export function entropy(s: string): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const WORD_PIECE = /[A-Z]?[a-z]{2,}/g;

/** The share of `s` in word-shaped pieces. */
function wordShare(s: string): number {
  let inWords = 0;
  for (const m of matchesOf(WORD_PIECE, s)) if (m[0].length >= 3) inWords += m[0].length;
  return inWords / s.length;
}

/** Whether half of the steps from one character to the next go up by one (`0123456789ABCDEF...`). */
function countsUp(s: string): boolean {
  let up = 0;
  for (let i = 1; i < s.length; i++) if (s.charCodeAt(i) === s.charCodeAt(i - 1) + 1) up++;
  return up * 2 >= s.length - 1;
}
