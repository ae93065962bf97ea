import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ulid } from 'ulid';
import { writeFileAtomic } from '../fs/atomic';
import { machineFile, readMachineId } from '../format/machineId';

/** This machine as its pushes name it: an id made once per data folder, and a name to show. */
export interface Machine {
  readonly id: string;
  readonly name: string;
}

/**
 * The machine of data folder `root` (`share/machine.json`): its id is made on first use and kept,
 * so a renamed host keeps its refs; its name is the host's, or `name` when given.
 */
export function thisMachine(root: string, name?: string): Machine {
  const file = machineFile(root);
  const shown = name ?? os.hostname();
  const kept = readMachineId(root);
  if (kept) return { id: kept, name: shown };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const id = ulid().toLowerCase();
  try {
    fs.writeFileSync(file, `${JSON.stringify({ id })}\n`, { flag: 'wx' }); // two first pushes at once: one id wins
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const other = readMachineId(root);
    if (other) return { id: other, name: shown };
    writeFileAtomic(file, `${JSON.stringify({ id })}\n`); // the file there was broken
  }
  return { id, name: shown };
}
