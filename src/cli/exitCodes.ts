/** The CLI's exit codes: 0 ok, 1 error with a one-line message, 2 bad usage, 3 a goal not met within its budget, 130 stopped by Ctrl+C. */
export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_GOAL_UNMET = 3;
export const EXIT_INTERRUPTED = 130;
