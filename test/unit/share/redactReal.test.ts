import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { importSessions } from '../../../src/core/import/importer';
import type { SourceTool } from '../../../src/core/import/source';
import { redactLine, type Redaction, type RedactionContext } from '../../../src/core/share/redact';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { parseRecordLine } from '../../../src/core/wire/records';
import { realImportSources, type ImportSources } from '../../support/importFixtures';
import { openStore, repoRoot, tempDir, wasmPath } from '../../support/store';

// Real sessions made Braid sessions by the importer, every line of every log redacted: nothing
// in their ordinary content is taken for a secret, every line stays the record it was, the
// workspace's and home's paths are gone, and a second pass changes nothing.

const roots: string[] = [];
after(() => roots.forEach((r) => fs.rmSync(r, { recursive: true, force: true })));

/** A fresh store with the sessions of each `[tool, folder]` imported into it. */
async function importedStore(sources: readonly (readonly [SourceTool | 'auto', string])[]): Promise<SessionStore> {
  const root = tempDir('braid-redact-real-');
  roots.push(root);
  const store = await openStore(root);
  for (const [from, folder] of sources) {
    const outcomes = await importSessions(store, { from, paths: [folder], dryRun: false, wasmPath });
    assert.ok(
      outcomes.some((o) => o.action === 'imported'),
      JSON.stringify(outcomes),
    );
  }
  return store;
}

/** Every log of every session of `store` (main agents and subagents), as its lines. */
function logsOf(store: SessionStore): string[][] {
  const logs: string[][] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'wire.jsonl') logs.push(fs.readFileSync(full, 'utf8').split('\n').filter(Boolean));
    }
  };
  walk(store.layout.root);
  return logs;
}

/** Each line redacted, checked to read as the record it was and to stay as it is when redacted again; what was found. */
function redactAll(lines: readonly string[], ctx: RedactionContext): { lines: string[]; found: Redaction[] } {
  const out: string[] = [];
  const found: Redaction[] = [];
  for (const input of lines) {
    const { line, redactions } = redactLine(input, ctx);
    assert.ok(line !== null, input.slice(0, 200));
    const [was, is] = [parseRecordLine(input), parseRecordLine(line)];
    assert.equal('record' in is, 'record' in was, line.slice(0, 200));
    if ('record' in is && 'record' in was) assert.equal(is.record.t, was.record.t);
    assert.deepEqual(redactLine(line, ctx), { line, redactions: [] }, line.slice(0, 200));
    out.push(line);
    found.push(...redactions);
  }
  return { lines: out, found };
}

/** The workspace folder a log's agent record names. */
function workspaceOf(lines: readonly string[]): string | undefined {
  return (JSON.parse(lines[0]!) as { workspaceDir?: string }).workspaceDir;
}

let fixtures: ImportSources;
before(async () => {
  fixtures = await realImportSources();
});
after(() => fixtures.cleanup());

test('the sessions the four tools wrote themselves (test/fixtures/import/real): paths made relative, nothing else taken', async () => {
  const tools = ['claude-code', 'codex', 'pi', 'opencode'] as const;
  const store = await importedStore(tools.map((tool) => [tool, path.join(fixtures.sources, tool)] as const));
  const home = path.dirname(fixtures.workspace);
  const ctx = { folders: [fs.realpathSync(fixtures.workspace), fixtures.workspace], home, secrets: [] };
  let paths = 0;
  for (const log of logsOf(store)) {
    const { lines, found } = redactAll(log, ctx);
    assert.deepEqual(
      found.filter((r) => r.kind !== 'path'),
      [],
      'no secret, token or random-looking run in ordinary sessions',
    );
    paths += found.length;
    for (const line of lines) assert.ok(!line.includes(home), `${home} left in ${line.slice(0, 300)}`);
    if (workspaceOf(log) === fixtures.workspace) assert.equal(workspaceOf(lines), '.');
  }
  assert.ok(paths > 10, `the workspace's paths were found (${paths})`);
  await store.close();
});

const REAL = path.resolve(repoRoot, '..', 'shared', 'real-sessions');

test(
  'real sessions of Claude Code, Codex, pi and opencode (../shared/real-sessions): no secret found in ordinary content',
  { skip: !fs.existsSync(REAL) && 'skipped: ../shared/real-sessions is not beside the repository (the fixtures above cover the formats)' },
  async () => {
    const store = await importedStore([['auto', REAL]]);
    let lines = 0;
    for (const log of logsOf(store)) {
      const workspace = workspaceOf(log);
      const ctx = { folders: workspace ? [workspace] : [], home: '/home/nobody', secrets: [] };
      const { lines: out, found } = redactAll(log, ctx);
      lines += out.length;
      assert.deepEqual(
        found.filter((r) => r.kind === 'high-entropy' || r.kind === 'known-key' || r.kind === 'unreadable-line'),
        [],
      );
      // The one token the sessions hold: a README's example of qpdf's option, `--password=mypassword`.
      const tokens = out.filter((line, i) => line !== log[i] && line.includes('[REDACTED:token]'));
      for (const line of tokens) assert.match(line, /qpdf --password=\[REDACTED:token\]/);
      if (workspace) assert.equal(workspaceOf(out), '.');
    }
    assert.ok(lines > 3000, `the sessions' lines were read (${lines})`);
    await store.close();
  },
);
