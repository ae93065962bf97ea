import { execFile } from 'node:child_process';

// A server program may start others (npx starts node, a shell script starts its command); closing
// the server's stdin and killing its process leaves those running. Its descendants are found before
// it is closed and stopped after.

/** The ids of every process below `pid` (empty where they cannot be listed). */
export async function descendantsOf(pid: number): Promise<number[]> {
  if (process.platform === 'win32') return []; // Windows: the caller stops the tree with stopTreeOnWindows
  const table = await new Promise<string>((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid='], { timeout: 2000 }, (err, stdout) => resolve(err ? '' : stdout));
  });
  const children = new Map<number, number[]>();
  for (const line of table.split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (!child || parent === undefined || Number.isNaN(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** Stops the processes that are still running (a process already gone is no error). */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Windows has no process table to read here: taskkill stops a process and everything below it. */
export async function stopTreeOnWindows(pid: number): Promise<void> {
  await new Promise<void>((resolve) => execFile('taskkill', ['/pid', String(pid), '/T', '/F'], { timeout: 5000 }, () => resolve()));
}
