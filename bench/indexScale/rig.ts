// What every part of the index-scale benchmark is given, and how its figures are written.
import type { ColumnSection } from '../resultsSection';
import type { NativeSqlite } from './nativeSqlite';

/** The benchmark's section of bench/RESULTS.md (a full `npm run bench` keeps it as it was). */
export const INDEX_SCALE_SECTION: ColumnSection = { heading: '## Index at scale: what users type, from fresh processes', rowHeader: 'measure (goal)' };

/** The sizes a full run measures unless told. */
export const DEFAULT_SIZES: readonly number[] = [1_000, 10_000];

/**
 * The section a run fills: the default sizes (1k and 10k) fill INDEX_SCALE_SECTION; other sizes
 * (a 100k run takes about 17 minutes) fill a section of their own, so each column's note names the
 * run its figures come from.
 */
export function scaleSectionOf(sizes: readonly number[]): ColumnSection {
  if (sizes.join() === DEFAULT_SIZES.join()) return INDEX_SCALE_SECTION;
  return {
    heading: `${SIZED_SECTION_START}${sizes.map(sizeLabel).join(' and ')} sessions: what users type, from fresh processes`,
    rowHeader: INDEX_SCALE_SECTION.rowHeader,
  };
}

const SIZED_SECTION_START = '## Index at ';

/** The headings of the sections runs at other sizes filled in `markdown` (a full `npm run bench` keeps them as they were). */
export function sizedScaleHeadings(markdown: string): string[] {
  return markdown.split('\n').filter((line) => line.startsWith(SIZED_SECTION_START) && line !== INDEX_SCALE_SECTION.heading && / sessions: /.test(line));
}

/** A table row of the section: what is measured (the store's size in it), and its figures in words. */
export type ScaleRow = readonly [string, string];

export interface ScaleRig {
  /** dist/cli.js: the `braid` command. */
  readonly cli: string;
  /** bench/indexScale/peers.mjs. */
  readonly peers: string;
  /** Fresh processes per figure (their median). */
  readonly runs: number;
  readonly sqlite: NativeSqlite;
  /** The scripted OpenAI-compatible server (ends in /v1). */
  readonly baseUrl: string;
  readonly wasmPath: string;
  /** A folder for copies, removed at the end. */
  readonly scratch: string;
  say(line: string): void;
}

/** "412 ms", "13.8 s", "0.84 ms". */
export function ms(x: number): string {
  if (x >= 10_000) return `${(x / 1000).toFixed(1)} s`;
  return `${x.toFixed(x < 1 ? 2 : x < 10 ? 1 : 0)} ms`;
}

/** Braid's time over a peer's: "1.37x". */
export function times(braid: number, peer: number): string {
  const r = braid / peer;
  return `${r.toFixed(r >= 10 ? 0 : 2)}x`;
}

/** "(goal <= 1.5x: met)". */
export function goal(ratio: number, most: number): string {
  return `(goal <= ${most}x: ${ratio <= most ? 'met' : 'not met'})`;
}

export function bytes(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(2)} GB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MB`;
  return `${(n / 1024).toFixed(1)} KB`;
}

/** "1k sessions", "200 sessions". */
export const sizeLabel = (count: number) => (count >= 1000 ? `${count / 1000}k` : `${count}`);
