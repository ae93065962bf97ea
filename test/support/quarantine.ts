import fs from 'node:fs';
import { quarantineFileOf, type QuarantineEntry } from '../../src/core/wire/logQuarantine';

/** The entries of a log's quarantine file (none when there is no file). */
export function quarantined(log: string): QuarantineEntry[] {
  const file = quarantineFileOf(log);
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as QuarantineEntry);
}

/** The bytes an entry holds (its line, newline excluded). */
export function entryBytes(entry: QuarantineEntry): Buffer {
  return entry.base64 !== undefined ? Buffer.from(entry.base64, 'base64') : Buffer.from(entry.text ?? '', 'utf8');
}

/**
 * The log's bytes with every quarantined line put back where it was: the repairs undone newest
 * first, each one's lines inserted at their offsets in file order (each offset is a place in the
 * log as that repair found it, and only appends came after it).
 */
export function withQuarantinedLines(log: string): Buffer {
  let bytes = fs.readFileSync(log);
  const repairs = new Map<number, QuarantineEntry[]>();
  for (const entry of quarantined(log)) repairs.set(entry.repairedAt, [...(repairs.get(entry.repairedAt) ?? []), entry]);
  for (const at of [...repairs.keys()].sort((a, b) => b - a)) {
    for (const entry of repairs.get(at)!.sort((a, b) => a.offset - b.offset)) {
      const line = Buffer.concat([entryBytes(entry), Buffer.from(entry.newline ? '\n' : '')]);
      bytes = Buffer.concat([bytes.subarray(0, entry.offset), line, bytes.subarray(entry.offset)]);
    }
  }
  return bytes;
}
