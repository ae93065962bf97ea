// One measure of the import benchmark (bench/import.ts) in a lean child process: its argument is
// `{ measure, wasmPath }` as JSON; it prints the figures as one JSON line.
import { runImportMeasure, type ImportMeasure } from '../importMeasure';

const { measure, wasmPath } = JSON.parse(process.argv[2] ?? '{}') as { measure: ImportMeasure; wasmPath: string };
runImportMeasure(measure, wasmPath).then(
  (figures) => process.stdout.write(`${JSON.stringify(figures)}\n`),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
