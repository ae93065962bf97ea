// The fault suite's two modes: `npm test` runs the bounded quick mode, `npm run test:faults` the
// long one (test/run.ts sets BRAID_FAULTS_MODE). An explicit environment variable overrides both.
export const longMode = process.env.BRAID_FAULTS_MODE === 'long';

/** How many trials (or seconds) a fault kind gets: `quick` in npm test, `long` in test:faults. */
export function trials(envName: string, quick: number, long: number): number {
  const forced = process.env[envName];
  return forced !== undefined ? Number(forced) : longMode ? long : quick;
}
