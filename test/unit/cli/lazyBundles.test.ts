import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ScriptedModelServer } from '../../support/modelServer';
import { repoRoot, tempDir } from '../../support/store';

// The node bundles as esbuild.mjs builds them (scripts/lazyBundles.mjs): dist/cli.js answers
// version and help alone, the read-only commands load dist/cli-read.js, every other command
// dist/cli-commands.js, and only a model's
// first request loads its provider, from its family's file (dist/providers-openai.js here).
const root = tempDir('braid-bundles-');
const dist = path.join(root, 'dist');
const workspace = path.join(root, 'project');
const server = new ScriptedModelServer();
let modelEnv: NodeJS.ProcessEnv = {};

before(async () => {
  const build = spawnSync(process.execPath, ['esbuild.mjs', '--node-only', '--outdir', dist], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
  fs.mkdirSync(workspace);
  modelEnv = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: await server.start() };
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** `node dist/cli.js <args>` in its own process, with the data folder and workspace of this test. */
function braid(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  const argv = [path.join(dist, 'cli.js'), '--data-dir', path.join(root, 'store'), '--workspace', workspace, ...args];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { env: { PATH: process.env.PATH, HOME: root, ...env }, encoding: 'utf8' }, (error, out, err) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out, err }),
    );
  });
}

/** Runs `fn` with one of the bundles moved away, as if it were not shipped. */
async function without<T>(file: string, fn: () => Promise<T>): Promise<T> {
  fs.renameSync(path.join(dist, file), path.join(root, file));
  try {
    return await fn();
  } finally {
    fs.renameSync(path.join(root, file), path.join(dist, file));
  }
}

test('version and help are answered by dist/cli.js alone; the read-only commands need dist/cli-read.js, every other command dist/cli-commands.js', async () => {
  const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  await without('cli-commands.js', async () => {
    await without('cli-read.js', async () => {
      assert.deepEqual(await braid(['version']), { code: 0, out: `${version}\n`, err: '' });
      const help = await braid(['help', 'exec']);
      assert.equal(help.code, 0, help.err);
      assert.match(help.out, /^Usage: braid .* exec /);
      const list = await braid(['list']);
      assert.equal(list.code, 1);
      assert.match(list.err, /^braid: cannot load its commands: .*cli-read\.js/);
    });
    // The read-only commands run without the kernel's bundle; the others cannot.
    for (const args of [['list'], ['search', 'anything'], ['where']]) {
      const read = await braid(args);
      assert.equal(read.code, 0, `${args.join(' ')}: ${read.err}`);
    }
    const missing = await braid(['show', 'ses_01JAAAAAAAAAAAAAAAAAAAAAAA']);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /^braid: there is no Braid data in /, 'show runs, and finds no store');
    const usage = await braid(['usage']);
    assert.equal(usage.code, 1);
    assert.match(usage.err, /^braid: cannot load its commands: .*cli-commands\.js/);
  });
  const list = await braid(['list']);
  assert.equal(list.code, 0, list.err);
  const usage = await braid(['help', 'a', 'b']);
  assert.deepEqual([usage.code, usage.err], [2, 'braid: help takes one command, not "a b"; run "braid help" for usage\n'], "a usage error is the full CLI's");
});

test('dist/cli-read.js holds neither the agent kernel nor the model catalogue, and is a fraction of dist/cli-commands.js', () => {
  const read = fs.readFileSync(path.join(dist, 'cli-read.js'), 'utf8');
  for (const marker of ['pi-agent-core', 'pi-ai', 'typebox'])
    assert.ok(!read.includes(`node_modules/${marker}`) && !read.includes(`@mariozechner/${marker}/`), `cli-read.js holds ${marker}`);
  const full = fs.statSync(path.join(dist, 'cli-commands.js')).size;
  assert.ok(read.length < full / 4, `cli-read.js is ${read.length} bytes, cli-commands.js ${full}`);
});

test("a model's first request loads its provider from its family's file; commands without a model never do, nor other families' files", async () => {
  const families = fs.readdirSync(dist).filter((f) => /^providers-[\w-]+\.js$/.test(f));
  assert.ok(families.includes('providers-openai.js') && families.length >= 3, `family files: ${families.join(', ')}`);
  await without('providers-openai.js', async () => {
    const list = await braid(['list']);
    assert.equal(list.code, 0, list.err);
    const failed = await braid(['exec', 'hello'], modelEnv);
    assert.equal(failed.code, 1);
    assert.match(failed.err, /providers-openai\.js/);
  });
  // Without every other family's file, the OpenAI-compatible server is still answered.
  const others = families.filter((f) => f !== 'providers-openai.js');
  for (const f of others) fs.renameSync(path.join(dist, f), path.join(root, f));
  try {
    server.enqueue({ kind: 'text', chunks: ['Only the OpenAI family.'] });
    const alone = await braid(['exec', 'hello'], modelEnv);
    assert.equal(alone.code, 0, alone.err);
    assert.equal(alone.out, 'Only the OpenAI family.\n');
  } finally {
    for (const f of others) fs.renameSync(path.join(root, f), path.join(dist, f));
  }
  server.enqueue({ kind: 'text', chunks: ['Hello ', 'from the provider.'] });
  const answered = await braid(['exec', 'hello again'], modelEnv);
  assert.equal(answered.code, 0, answered.err);
  assert.equal(answered.out, 'Hello from the provider.\n');
});

test('the packaged extension (.vscodeignore) ships every node bundle the build writes', () => {
  const kept = fs
    .readFileSync(path.join(repoRoot, '.vscodeignore'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('!dist/'))
    .map((line) => new RegExp(`^${line.slice('!dist/'.length).replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`));
  const built = fs.readdirSync(dist).filter((f) => f.endsWith('.js') || f.endsWith('.wasm'));
  assert.ok(built.includes('cli-read.js') && built.includes('cli-commands.js'), built.join(', '));
  assert.deepEqual(
    built.filter((f) => !kept.some((pattern) => pattern.test(f))),
    [],
  );
});
