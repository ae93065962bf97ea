import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXIT_ERROR, EXIT_OK, EXIT_USAGE, runCli } from '../../src/cli/run';

async function cli(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env });
  return { code, out, err };
}

test('braid with no command prints usage and exits 2; help exits 0', async () => {
  const none = await cli([]);
  assert.equal(none.code, EXIT_USAGE);
  assert.match(none.out, /Usage: braid/);
  assert.equal((await cli(['help'])).code, EXIT_OK);
});

test('the usage lines name every option braid takes before its command, --verbose too', async () => {
  for (const args of [['help'], ['help', 'list'], ['list', '--help']]) {
    const usage = (await cli(args)).out.split('\n')[0]!;
    for (const option of ['--data-dir DIR', '--workspace DIR', '--verbose']) assert.ok(usage.includes(`[${option}]`), `${args.join(' ')}: ${usage}`);
  }
  const help = (await cli(['help'])).out;
  assert.match(help, /--verbose prints the session log's info lines/);
});

test('an unknown command is bad usage with a one-line message', async () => {
  const r = await cli(['frobnicate']);
  assert.equal(r.code, EXIT_USAGE);
  assert.equal(r.err.trim().split('\n').length, 1);
  assert.match(r.err, /unknown command "frobnicate"/);
});

test('braid model reads BRAID_* variables and names them when something is missing', async () => {
  const ok = await cli(['model', '--json'], { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'qwen', BRAID_BASE_URL: 'http://127.0.0.1:8000/v1' });
  assert.equal(ok.code, EXIT_OK);
  assert.deepEqual(JSON.parse(ok.out), {
    provider: 'openai-compatible',
    id: 'qwen',
    api: 'openai-completions',
    baseUrl: 'http://127.0.0.1:8000/v1',
    contextWindow: 128000,
    contextFrom: "Braid's default (the server did not say)",
    maxOutputTokens: 8192,
    outputFrom: "Braid's default (a quarter of the window, at most 8,192)",
  });
  const missing = await cli(['model'], { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'qwen' });
  assert.equal(missing.code, EXIT_ERROR);
  assert.match(missing.err, /set BRAID_BASE_URL/);
  assert.equal((await cli(['model', '--bogus'])).code, EXIT_USAGE);
});
