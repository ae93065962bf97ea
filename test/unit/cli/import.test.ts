import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { braidIn } from '../../support/cli';
import { importSources } from '../../support/importFixtures';
import { tempDir } from '../../support/store';

// `braid import` as a person runs it: what it prints per source session, --dry-run, --json, the
// default folders and their override variables, exit codes, and what a second run says.
let src: ReturnType<typeof importSources>;
let data: string;
beforeEach(() => {
  src = importSources();
  data = path.join(tempDir('braid-import-cli-'), 'data');
});
afterEach(() => {
  src.cleanup();
  fs.rmSync(path.dirname(data), { recursive: true, force: true });
});

const braid = (args: string[], env: NodeJS.ProcessEnv = {}) => braidIn(['--data-dir', data, ...args], { env, cwd: src.workspace });

test('a dry run says what it would import and writes nothing, not even the data folder', async () => {
  const run = await braid(['import', '--dry-run', path.join(src.sources, 'claude-code')]);
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /^would be imported claude-code .*0f1e2d3c-0000-4000-8000-000000000001\.jsonl -> ses_\w+, 1 fork of other branches, in /m);
  assert.match(run.out, /dry run, nothing written: 1 imported, 0 appended, 0 repaired, 0 unchanged, 0 skipped, 0 refused, 0 failed/);
  assert.equal(fs.existsSync(data), false);
});

test('an import from the default folders (the tools’ override variables), then again: unchanged; the sessions are listed in their workspace', async () => {
  const home = path.join(src.sources, 'no-home-here');
  const env = { HOME: home, CLAUDE_CONFIG_DIR: path.join(src.sources, 'claude-code-home'), PI_CODING_AGENT_DIR: path.join(src.sources, 'pi-home') };
  fs.mkdirSync(env.CLAUDE_CONFIG_DIR);
  fs.cpSync(path.join(src.sources, 'claude-code'), path.join(env.CLAUDE_CONFIG_DIR, 'projects'), { recursive: true });
  fs.cpSync(path.join(src.sources, 'pi'), path.join(env.PI_CODING_AGENT_DIR, 'sessions', '--workspace--'), { recursive: true });
  const first = await braid(['import'], env);
  assert.equal(first.code, 0, first.err);
  assert.match(first.out, /3 imported, 0 appended, 0 repaired, 0 unchanged, 0 skipped, 0 refused, 0 failed; [\d.]+ MB read in \d+ ms/);
  const again = await braid(['import', '--json'], env);
  const outcomes = (JSON.parse(again.out) as { outcomes: Array<{ action: string; tool: string }> }).outcomes;
  assert.deepEqual(outcomes.map((o) => `${o.tool} ${o.action}`).sort(), ['claude-code unchanged', 'pi unchanged', 'pi unchanged']);
  const list = await braid(['list', '--json']);
  const titles = (JSON.parse(list.out) as Array<{ title: string }>).map((s) => s.title).sort();
  assert.deepEqual(titles, ['Notes and TODOs', 'Notes and TODOs (other branch)', 'Notes in pi', 'Notes in pi (other branch)', 'first']);
});

test('hostile files are reported with what was left out; --from takes only the four tools', async () => {
  const run = await braid(['import', path.join(src.sources, 'hostile')]);
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /left out: .*torn last line/);
  assert.match(run.out, /skipped +codex .*broken\.jsonl|imported +codex .*broken\.jsonl/);
  const bad = await braid(['import', '--from', 'cursor']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--from takes claude-code, codex, pi, opencode or auto/);
});

test('nothing found says where to look', async () => {
  const run = await braid(['import', '--from', 'codex'], { HOME: path.join(src.sources, 'nowhere'), CODEX_HOME: path.join(src.sources, 'nowhere') });
  assert.equal(run.code, 0);
  assert.match(run.out, /no sessions found to import/);
});
