#!/usr/bin/env node
// Provisions the real-VS-Code toolchain now (Chromium, Node 24, code-server) and prints where
// it is. The e2e suite and `npm start` do this themselves; this is for doing it ahead of time.
import { ensureToolchain } from './toolchain.mjs';

try {
  process.stdout.write(`${JSON.stringify(ensureToolchain(), null, 2)}\n`);
} catch (err) {
  process.stderr.write(`[toolchain] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
