// The doctor's unit of report, apart from the checks so the doctor and its writer checks
// (doctorWriters.ts) both import it without importing each other.

/** One thing the doctor found. */
export interface Finding {
  readonly severity: 'error' | 'warning' | 'info';
  readonly where: string;
  readonly message: string;
  /** Whether `--fix` can repair it; what it cannot (a line with invalid UTF-8 that still reads, an interleaved turn structure) is reported only. */
  readonly fixable: boolean;
  /** What `--fix` did about it, when it did something. */
  fixed?: string;
}
