// What several benches share about their inputs: seeded numbers for generated data, and whole-number options.

/** A deterministic stream of numbers in [0, 1) from a seed (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The whole number after `name` on the command line (`--files 10000`), at least `min`; `fallback` when absent. */
export function numberArg(argv: readonly string[], name: string, fallback: number, min = 1): number {
  const at = argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} takes a whole number, ${min} or more`);
  return value;
}
