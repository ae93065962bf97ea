import type { Results } from './memory';
import type { Programs } from './processes';
import type { Row } from './table';

/** What every section of a run is given. */
export interface BenchContext {
  readonly quick: boolean;
  readonly wasmPath: string;
  /** dist/cli.js: the `braid` command. */
  readonly cli: string;
  /** dist/extension.js. */
  readonly extensionBundle: string;
  readonly programs: Programs;
  /** The scripted OpenAI-compatible server, on 127.0.0.1 in this process (ends in /v1). */
  readonly baseUrl: string;
  /** Runs per measure: in-process medians, fresh processes per figure, `braid exec` runs, timed turns. */
  readonly runs: { readonly warm: number; readonly fresh: number; readonly exec: number; readonly turns: number };
  /** Runs measure kinds of a measure program (braidMeasures, peerMeasures, sessionMeasures) in one child process; `wasmPath` is added to their args. */
  measure(program: 'braidMeasures' | 'peerMeasures' | 'sessionMeasures', ...kinds: Array<{ kind: string; args: object }>): Promise<Record<string, Results>>;
  /** Prints a line of progress. */
  say(line: string): void;
  /** Sets the line printed under `group`'s heading (its load average). */
  describe(group: string, text: string): void;
  /** Adds a row to the table under `group` (a store's size, a log's) and prints it. */
  add(group: string, row: Row): void;
}
