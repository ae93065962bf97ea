/** Where the core writes what happened. The extension backs it with a LogOutputChannel, the CLI with stderr. */
export interface Logger {
  trace(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger that drops everything, for callers that do not care. */
export const silentLogger: Logger = {
  trace() {},
  info() {},
  warn() {},
  error() {},
};

/** A duration as log lines give it: 42 -> "42 ms", 12340 -> "12.3 s". */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
