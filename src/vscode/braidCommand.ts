/** One palette command: its id (as in package.json) and what it does; its failure is reported by src/vscode/reported.ts. */
export interface BraidCommand {
  readonly id: string;
  /** How the message of a failure begins ("Braid could not fork the session"); "Braid" when absent. */
  readonly failure?: string;
  run(...args: unknown[]): unknown;
}
