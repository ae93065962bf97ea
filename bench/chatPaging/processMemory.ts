// Resident memory of the processes a bench started (code-server's extension host, Chromium's
// renderers), read from /proc while it runs: the largest seen is the run's peak.
import fs from 'node:fs';

/** The kinds of process whose memory a run reports. */
export type ProcessKind = 'extensionHost' | 'renderers';

interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly cmdline: string;
}

function readProcess(pid: number): ProcessInfo | undefined {
  try {
    // The command name in stat is in parentheses and may hold spaces: the fields follow the last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    return { pid, ppid, cmdline };
  } catch {
    return undefined; // ended while read
  }
}

/** Every process below `root` (its children, theirs, ...). */
function descendants(root: number): ProcessInfo[] {
  const all = fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => readProcess(Number(name)) ?? []);
  const below = new Set([root]);
  const found: ProcessInfo[] = [];
  // Parents have lower pids only until pids wrap: repeat until nothing is added.
  for (let added = true; added;) {
    added = false;
    for (const p of all) {
      if (below.has(p.ppid) && !below.has(p.pid)) {
        below.add(p.pid);
        found.push(p);
        added = true;
      }
    }
  }
  return found;
}

function kindOf(cmdline: string): ProcessKind | undefined {
  if (cmdline.includes('--type=extensionHost')) return 'extensionHost';
  if (cmdline.includes('--type=renderer')) return 'renderers';
  return undefined;
}

function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Samples the resident memory of this process's extension host and of its Chromium renderers
 * (together) every `everyMs` until stopped: `peak` is the largest of each seen. The processes are
 * found once, when it starts, so a sample reads two small files per process.
 */
export class MemoryPeak {
  readonly peak: Record<ProcessKind, number> = { extensionHost: 0, renderers: 0 };
  private readonly watched: { pid: number; kind: ProcessKind }[];
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 100) {
    this.watched = descendants(process.pid).flatMap((p) => {
      const kind = kindOf(p.cmdline);
      return kind ? [{ pid: p.pid, kind }] : [];
    });
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  /** The kinds found, with how many processes each. */
  get found(): Record<ProcessKind, number> {
    const count = { extensionHost: 0, renderers: 0 };
    for (const w of this.watched) count[w.kind]++;
    return count;
  }

  stop(): Record<ProcessKind, number> {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }

  private sample(): void {
    const now: Record<ProcessKind, number> = { extensionHost: 0, renderers: 0 };
    for (const w of this.watched) now[w.kind] += rssMb(w.pid);
    for (const kind of Object.keys(now) as ProcessKind[]) this.peak[kind] = Math.max(this.peak[kind], now[kind]);
  }
}
