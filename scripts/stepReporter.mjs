// The progress of `npm start`'s slow steps (installing the dependencies, Debian packages, Node
// 24, code-server; building and installing Braid): one line per step saying what it does, how
// much is done and how long it has taken. On a terminal the line is rewritten in place; in a log
// (not a terminal) a step says its line when it ends, and once a minute while it runs. What the
// tools print goes to a log file, named when a step fails, never to the screen.
import fs from 'node:fs';
import path from 'node:path';

/** "4m 05s" */
export function formatElapsed(ms) {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/** Lines of a failed step's output repeated in its error, beside the log file's name. */
const TAIL_LINES = 15;

/** One step as its work sees it: where to say how much is done, and the log its tools write to. */
export class Step {
  /** @param {StepReporter} reporter @param {string} label */
  constructor(reporter, label) {
    this.reporter = reporter;
    this.label = label;
    this.started = Date.now();
    /** @type {string | undefined} */
    this.done = undefined;
  }

  /** Says how much is done ("312 of 461 packages", "compiling node-pty"); shown with the next line. */
  progress(text) {
    this.done = text;
    this.reporter.refresh();
  }

  /** The log file's descriptor, for a child process's stdout and stderr. */
  get logFd() {
    return this.reporter.logFd();
  }

  /** Appends text to the log file. */
  log(text) {
    fs.writeSync(this.reporter.logFd(), text);
  }

  /** The step's line: "Node 24.21.0: 31 MB, 12s". */
  line(state) {
    const elapsed = formatElapsed(Date.now() - this.started);
    if (state === 'done') return `${this.label}: done in ${elapsed}${this.done ? ` (${this.done})` : ''}`;
    if (state === 'failed') return `${this.label}: failed after ${elapsed}`;
    return `${this.label}: ${this.done ? `${this.done}, ` : ''}${elapsed} so far`;
  }
}

/** Runs steps one at a time, each shown as one line on `stream`, their tools' output in `logFile`. */
export class StepReporter {
  /**
   * @param {{ logFile: string, stream?: NodeJS.WriteStream | { write(text: string): unknown, isTTY?: boolean }, tickMs?: number, quietMs?: number }} options
   * `tickMs`: how often a terminal's line is redrawn; `quietMs`: how long a step runs before a log gets a line again.
   */
  constructor(options) {
    this.logFile = options.logFile;
    this.stream = options.stream ?? process.stderr;
    this.tty = Boolean(this.stream.isTTY);
    this.tickMs = options.tickMs ?? 1_000;
    this.quietMs = options.quietMs ?? 60_000;
    /** @type {Step | undefined} */
    this.current = undefined;
    /** @type {number | undefined} */
    this.fd = undefined;
  }

  /** The log file, opened (and headed with the time) on the first step that writes to it. */
  logFd() {
    if (this.fd === undefined) {
      fs.mkdirSync(path.dirname(this.logFile), { recursive: true });
      this.fd = fs.openSync(this.logFile, 'a');
      fs.writeSync(this.fd, `\n=== ${new Date().toISOString()} (pid ${process.pid})\n`);
    }
    return this.fd;
  }

  /**
   * Runs `work` as the step `label`: its line while it runs, then "done in …"; on failure the line
   * says so and the error names the log file with the last lines the step's tools wrote.
   * @template T
   * @param {string} label
   * @param {(step: Step) => Promise<T>} work
   * @returns {Promise<T>}
   */
  async run(label, work) {
    const step = new Step(this, label);
    this.current = step;
    const logStart = this.logSize();
    step.log(`\n--- ${label}\n`);
    let lastQuietLine = Date.now();
    const timer = setInterval(() => {
      if (this.tty) this.refresh();
      else if (Date.now() - lastQuietLine >= this.quietMs) {
        lastQuietLine = Date.now();
        this.stream.write(`${step.line('running')}\n`);
      }
    }, this.tickMs);
    this.refresh();
    try {
      const result = await work(step);
      this.finish(step, 'done');
      return result;
    } catch (err) {
      this.finish(step, 'failed');
      const message = err instanceof Error ? err.message : String(err);
      step.log(`\n${label} failed: ${message}\n`);
      const tail = this.logTail(logStart);
      throw new Error(`${label} failed: ${message}\nThe tools' output is in ${this.logFile}${tail ? `; its last lines:\n${tail}` : ''}`, { cause: err });
    } finally {
      clearInterval(timer);
      this.current = undefined;
    }
  }

  /** Redraws the current step's line on a terminal. */
  refresh() {
    if (this.tty && this.current) this.stream.write(`\r\x1b[K${this.current.line('running')}`);
  }

  finish(step, state) {
    this.stream.write(`${this.tty ? '\r\x1b[K' : ''}${step.line(state)}\n`);
  }

  logSize() {
    try {
      return fs.fstatSync(this.logFd()).size;
    } catch {
      return 0;
    }
  }

  /** The last lines written to the log since `from`. */
  logTail(from) {
    const text = fs.readFileSync(this.logFile).subarray(from).toString('utf8');
    return text
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('--- '))
      .slice(-TAIL_LINES)
      .join('\n');
  }

  /** Closes the log file. */
  close() {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
