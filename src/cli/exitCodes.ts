/** The CLI's exit codes: 0 ok, 1 error with a one-line message, 2 bad usage, 130 stopped by Ctrl+C. */
export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;
