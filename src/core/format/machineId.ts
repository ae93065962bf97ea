import fs from 'node:fs';
import path from 'node:path';

const MACHINE_ID = /^[0-9a-z]{26}$/;

export const isMachineId = (s: string): boolean => MACHINE_ID.test(s);

/** Where a data folder keeps the id its pushes and syncs name this machine by. */
export function machineFile(root: string): string {
  return path.join(root, 'share', 'machine.json');
}

/** The machine id data folder `root` keeps; undefined when it has none (it never pushed or synced) or the file is damaged. */
export function readMachineId(root: string): string | undefined {
  try {
    const id = (JSON.parse(fs.readFileSync(machineFile(root), 'utf8')) as { id?: unknown }).id;
    return typeof id === 'string' && isMachineId(id) ? id : undefined;
  } catch {
    return undefined;
  }
}
