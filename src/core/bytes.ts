const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

/** A size for people: "512 bytes", "3.4 KiB", "12.0 MiB", "1.25 GiB". */
export function formatBytes(n: number): string {
  if (n < KIB) return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
  if (n < MIB) return `${(n / KIB).toFixed(1)} KiB`;
  if (n < GIB) return `${(n / MIB).toFixed(1)} MiB`;
  return `${(n / GIB).toFixed(2)} GiB`;
}

/** The bytes of a budget given in MB (`braid.storage.budgetMB`): mebibytes, as the sizes are shown. */
export const bytesOfMB = (mb: number): number => mb * MIB;
