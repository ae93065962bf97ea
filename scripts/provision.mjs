#!/usr/bin/env node
// Provisions the real-VS-Code toolchain now (Chromium, Node 24, code-server) and prints where
// it is (JSON on stdout; progress on stderr). The e2e suite and `npm start` run it themselves
// when something is missing; this is for doing it ahead of time.
import { provisionToolchain } from './toolchain.mjs';

try {
  process.stdout.write(`${JSON.stringify(await provisionToolchain(), null, 2)}\n`);
} catch (err) {
  process.stderr.write(`[toolchain] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
