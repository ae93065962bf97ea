// Faults the test suites make on purpose, at the file-system layer: a full or failing disk is
// hard to get for real without privileges, so the code that writes asks here. Without the
// environment variables below, nothing changes.
import fs from 'node:fs';
import util from 'node:util';

/** An error as Node's fs would make it for the errno code `code` ("ENOSPC: no space left on device, write"). */
export function faultError(code: string): NodeJS.ErrnoException {
  const known = [...util.getSystemErrorMap().values()].find(([name]) => name === code);
  return Object.assign(new Error(`${code}: ${known?.[1] ?? 'a fault made for a test'}, write`), { code });
}

let logBytesWritten = 0;

let logErrorsSpec: string | undefined;
let logErrorsUsed = 0;

/**
 * For the fault tests, BRAID_FAULT_LOG_ERRORS=<item,item,...> makes this process's successive log
 * writes go wrong once each, in order, then work: an errno code (EAGAIN, EINTR, EBUSY, ENOSPC...)
 * is thrown as fs would throw it, `short` writes half of what was asked (a short write), `ok` is a
 * write that works. A change
 * of the variable starts its list over.
 */
function logWriteFault(): string | undefined {
  const spec = process.env.BRAID_FAULT_LOG_ERRORS;
  if (spec !== logErrorsSpec) {
    logErrorsSpec = spec;
    logErrorsUsed = 0;
  }
  if (!spec) return undefined;
  const items = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items[logErrorsUsed++];
}

/**
 * `fs.writeSync` for the appends to wire logs. For the fault tests, BRAID_FAULT_LOG_ROOM=<bytes>
 * gives this process that much room for them in all, as a disk about to fill: a write that does
 * not fit writes what does (a short write, as write(2) makes on a full disk), and the next one
 * fails with ENOSPC. BRAID_FAULT_LOG_ERRORS (above) makes errors that pass, or last.
 */
export function writeLogBytes(fd: number, buffer: Buffer, offset: number, length: number): number {
  const fault = logWriteFault();
  if (fault === 'short') return fs.writeSync(fd, buffer, offset, Math.max(1, Math.floor(length / 2)));
  if (fault !== undefined && fault !== 'ok') throw faultError(fault);
  const room = process.env.BRAID_FAULT_LOG_ROOM;
  if (room === undefined) return fs.writeSync(fd, buffer, offset, length);
  const left = Number(room) - logBytesWritten;
  if (!(left > 0)) throw faultError('ENOSPC');
  const written = fs.writeSync(fd, buffer, offset, Math.min(length, left));
  logBytesWritten += written;
  return written;
}
