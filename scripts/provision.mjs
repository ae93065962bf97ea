#!/usr/bin/env node
// Provisions the real-VS-Code toolchain now (Chromium, Node 24, code-server) and prints where
// it is (JSON on stdout; a line per step on stderr, the tools' output in the cache's setup.log).
// The e2e suite and `npm start` provision what is missing themselves; this is for doing it ahead of time.
import { provisionToolchain } from './toolchain.mjs';

try {
  process.stdout.write(`${JSON.stringify(await provisionToolchain(), null, 2)}\n`);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
