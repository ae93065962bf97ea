// Fresh processes of the index-scale benchmark, timed from spawn to exit without blocking the
// event loop (the scripted model server runs in the bench's process): the median of the runs.
import { run, type FreshOptions } from '../processes';
import { median } from '../table';

/** A command's median time over its runs, and the output of its last run. */
export interface Timed {
  readonly ms: number;
  readonly stdout: string;
}

/** Runs `command args` `runs` times, one after the other; throws when an exit code is not one of `okCodes`. */
export async function timedRuns(
  runs: number,
  command: string,
  args: readonly string[],
  options: FreshOptions & { okCodes?: readonly number[] } = {},
): Promise<Timed> {
  const ms: number[] = [];
  let stdout = '';
  for (let i = 0; i < runs; i++) {
    const ran = await run(command, args, options);
    if (!(options.okCodes ?? [0]).includes(ran.code ?? -1))
      throw new Error(`${command} ${args.join(' ')} failed (exit ${ran.code}): ${ran.stderr.slice(-2000)}`);
    ms.push(ran.ms);
    stdout = ran.stdout;
  }
  return { ms: median(ms), stdout };
}
