// `npm run fixtures:import [tool...]`: records import fixtures with the current releases of
// Claude Code, Codex, pi and opencode, each run headless against Braid's scripted model server,
// into test/fixtures/import/real/<tool>/ (see its README.md). One progress line per step; a
// tool's raw output goes to a log named when it fails.
import fs from 'node:fs';
import path from 'node:path';
import { loadSqlJs } from '../../src/core/index/sqlite';
import { ScriptedModelServer } from '../../test/support/modelServer';
import { REAL_IMPORT_FIXTURES } from '../../test/support/importFixtures';
import { repoRoot, wasmPath } from '../../test/support/store';
import { claudeCode } from './claudeCode';
import { codex } from './codex';
import { fixtureTurns, scriptedReply } from './conversation';
import { ensureTool } from './install';
import { opencode } from './opencode';
import { pi } from './pi';
import { newRecording } from './recording';
import { noteRecordedVersion } from './recordedVersions';
import { leftoverPaths } from './sanitize';
import type { RecordContext, ToolRecorder } from './toolRecorder';

const RECORDERS: readonly ToolRecorder[] = [claudeCode, codex, pi, opencode];

/** What a side call (a title, a summary: a request without tools) is answered. */
const SIDE_TEXT = 'Project check';

function progress(tool: string, message: string): void {
  console.log(`[fixtures:import] ${tool}: ${message}`);
}

async function recordTool(recorder: ToolRecorder): Promise<string> {
  const recording = newRecording(recorder.name, recorder.workspaceFiles);
  progress(recorder.name, `installing ${recorder.pkg} (reused from the cache when there)`);
  const tool = ensureTool(recorder.pkg, recorder.bin, recording.log);
  progress(recorder.name, `${recorder.pkg}@${tool.version}; recording in ${recording.root}`);
  const turns = fixtureTurns(recorder.vocabulary(recording.workspace), recorder.idPrefix);
  const requests = path.join(recording.root, 'requests.jsonl');
  const server = new ScriptedModelServer((request) => {
    fs.appendFileSync(requests, JSON.stringify({ path: request.path, body: request.body }) + '\n');
    return context.intercept?.(request) ?? scriptedReply(turns, request, SIDE_TEXT);
  });
  server.cachePrompts();
  const context: RecordContext = { tool, recording, serverUrl: (await server.start()).replace(/\/v1$/, '') };
  try {
    await recorder.record(context);
  } finally {
    await server.close();
  }
  progress(recorder.name, `${server.requests.length} model requests answered (each in ${requests}); keeping what it wrote`);
  const out = path.join(REAL_IMPORT_FIXTURES, recorder.name);
  recorder.collect(context, out, await loadSqlJs(wasmPath));
  for (const file of leftoverPaths(out, recording)) progress(recorder.name, `warning: ${path.relative(repoRoot, file)} still names ${recording.root}`);
  return tool.version;
}

async function main(): Promise<number> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !RECORDERS.some((r) => r.name === w));
  if (unknown.length) {
    console.error(`unknown tool ${unknown.join(', ')}; usage: npm run fixtures:import [${RECORDERS.map((r) => r.name).join('|')}...]`);
    return 2;
  }
  let failed = 0;
  for (const recorder of RECORDERS.filter((r) => wanted.length === 0 || wanted.includes(r.name))) {
    try {
      const version = await recordTool(recorder);
      noteRecordedVersion(path.join(REAL_IMPORT_FIXTURES, 'README.md'), recorder.name, recorder.pkg, version, new Date().toISOString().slice(0, 10));
      progress(recorder.name, `done: test/fixtures/import/real/${recorder.name} (${recorder.pkg}@${version})`);
    } catch (err) {
      failed++;
      progress(recorder.name, `FAILED: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
