// What a measure program does with its command line: runs the measure kinds it is given, in order,
// and prints their figures as one JSON line ({ kind: figures }). The parent (bench/processes.ts)
// passes `[{ kind, args }, ...]` as one JSON argument.
import type { Results } from '../memory';
import type { LogTarget } from '../measureLog';

/** What the measure kinds are given. */
export interface MeasureArgs {
  readonly wasmPath: string;
  readonly root: string;
  readonly workspaceDir: string;
  readonly sessionsDir: string;
  readonly current: string;
  readonly all: string[];
  readonly queries: string[];
  readonly runs: number;
  readonly earlier: number;
  readonly sessions: number;
  readonly dir: string;
  readonly baseUrl: string;
  readonly log: LogTarget;
}

export type MeasureKinds = Record<string, (args: MeasureArgs) => Promise<Results>>;

export function runMeasures(kinds: MeasureKinds): void {
  const run = async () => {
    const asked = JSON.parse(process.argv[2] ?? '[]') as Array<{ kind: string; args: MeasureArgs }>;
    const out: Record<string, Results> = {};
    for (const { kind, args } of asked) {
      const measure = kinds[kind];
      if (!measure) throw new Error(`unknown measure ${kind}`);
      out[kind] = await measure(args);
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  };
  run().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
