/** One palette command: its id (as in package.json) and what it does. */
export interface BraidCommand {
  readonly id: string;
  run(...args: unknown[]): unknown;
}
