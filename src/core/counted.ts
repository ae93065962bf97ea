/** A count with its noun in the right number: "1 turn", "2 turns", "0 files". */
export function counted(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}
