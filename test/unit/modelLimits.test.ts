import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../src/cli/run';
import { ENV_NAMES, ModelConfigError, resolveModel, resolveModelWithLimits, type ModelSettings } from '../../src/core/model/modelSettings';
import { probeServerLimits } from '../../src/core/model/serverLimits';
import type { CompactionRecord } from '../../src/core/wire/records';
import { ScriptedModelServer, type ServedLimits } from '../support/modelServer';
import { sessionFixture } from '../support/session';
import { tempDir, wasmPath } from '../support/store';

// A local server's context window and answer limit, read where it reports them, under the user's
// settings; the request's max_tokens follows. Each test has its own server: answers are cached
// per server and model for the process.
const servers: ScriptedModelServer[] = [];
const root = tempDir('braid-limits-');
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  fs.rmSync(root, { recursive: true, force: true });
});

async function serving(limits: ServedLimits, modelId = 'local-model'): Promise<{ server: ScriptedModelServer; settings: ModelSettings }> {
  const server = new ScriptedModelServer(undefined, modelId);
  servers.push(server);
  server.limits = limits;
  return { server, settings: { provider: 'openai-compatible', model: modelId, baseUrl: await server.start(), demo: false } };
}

test("llama-server's /props gives the window it runs and its n_predict", async () => {
  const { settings } = await serving({ props: { default_generation_settings: { n_ctx: 4096, params: { n_predict: 512 } }, total_slots: 1 } });
  const { model, limits } = await resolveModelWithLimits(settings);
  assert.deepEqual(limits, { contextWindow: 4096, contextFrom: 'llama-server /props', maxOutputTokens: 512, outputFrom: 'llama-server /props' });
  assert.equal(model.contextWindow, 4096);
  assert.equal(model.maxTokens, 512);
});

test('without an output limit from the server, a small window gets a quarter of it, never the 8k default', async () => {
  const { settings } = await serving({ props: { default_generation_settings: { n_ctx: 4096, params: { n_predict: -1 } } } });
  const { limits } = await resolveModelWithLimits(settings);
  assert.equal(limits.contextWindow, 4096);
  assert.equal(limits.maxOutputTokens, 1024);
  assert.match(limits.outputFrom, /Braid's default \(a quarter of the window/);
});

test("Ollama: the loaded model's context from /api/ps wins over num_ctx and the model's maximum; num_predict limits answers", async () => {
  const { settings } = await serving(
    {
      ollamaPs: { models: [{ name: 'qwen2.5:0.5b', model: 'qwen2.5:0.5b', context_length: 8192 }] },
      ollamaShow: {
        parameters: 'num_ctx                        16384\nnum_predict                    300\nstop "<|im_end|>"',
        model_info: { 'qwen2.context_length': 32768 },
      },
    },
    'qwen2.5:0.5b',
  );
  const { limits } = await resolveModelWithLimits(settings);
  assert.deepEqual(limits, { contextWindow: 8192, contextFrom: 'Ollama /api/ps', maxOutputTokens: 300, outputFrom: 'Ollama /api/show (num_predict)' });
});

test("Ollama before the model is loaded: num_ctx, else the model's maximum, asked again until the server says what it runs", async () => {
  const { server, settings } = await serving(
    { ollamaPs: { models: [] }, ollamaShow: { parameters: 'num_ctx 16384', model_info: { 'llama.context_length': 131072 } } },
    'llama3.1',
  );
  assert.equal((await resolveModelWithLimits(settings)).limits.contextWindow, 16384);

  const other = await serving({ ollamaPs: { models: [] }, ollamaShow: { model_info: { 'llama.context_length': 131072 } } }, 'llama3.1');
  const first = await resolveModelWithLimits(other.settings);
  assert.deepEqual([first.limits.contextWindow, first.limits.contextFrom], [131072, "Ollama /api/show (the model's maximum)"]);
  // The model loads with Ollama's own window: the next turn's model says so.
  other.server.limits = { ...other.server.limits, ollamaPs: { models: [{ name: 'llama3.1:latest', context_length: 4096 }] } };
  const asked = other.server.limitRequests.length;
  const later = await resolveModelWithLimits(other.settings);
  assert.ok(other.server.limitRequests.length > asked, 'asked again');
  assert.deepEqual([later.limits.contextWindow, later.limits.contextFrom, later.limits.maxOutputTokens], [4096, 'Ollama /api/ps', 1024]);
  assert.ok(server.limitRequests.includes('POST /api/show'));
});

test("vLLM's max_model_len and LM Studio's loaded context come from their model listings", async () => {
  const vllm = await serving({ modelsEntry: { max_model_len: 32768 } });
  assert.deepEqual((await resolveModelWithLimits(vllm.settings)).limits.contextWindow, 32768);
  assert.equal((await resolveModelWithLimits(vllm.settings)).limits.contextFrom, '/v1/models');
  const lmStudio = await serving({ lmStudioModel: { id: 'local-model', state: 'loaded', max_context_length: 131072, loaded_context_length: 16384 } });
  assert.deepEqual((await resolveModelWithLimits(lmStudio.settings)).limits.contextWindow, 16384);
});

test('a server that says nothing gets the defaults, and is asked once per process', async () => {
  const { server, settings } = await serving({});
  const first = await resolveModelWithLimits(settings);
  assert.deepEqual(first.limits, {
    contextWindow: 128_000,
    contextFrom: "Braid's default (the server did not say)",
    maxOutputTokens: 8192,
    outputFrom: "Braid's default (a quarter of the window, at most 8,192)",
  });
  const asked = server.limitRequests.length;
  assert.ok(asked >= 4);
  await resolveModelWithLimits(settings);
  await resolveModelWithLimits(settings);
  assert.equal(server.limitRequests.length, asked, 'the answer is cached for the process');
});

test('a server that is down or never answers costs the defaults, not the turn', async () => {
  const down = await resolveModelWithLimits({ provider: 'openai-compatible', model: 'm', baseUrl: 'http://127.0.0.1:9/v1', demo: false });
  assert.equal(down.limits.contextWindow, 128_000);
  const silent = http.createServer(() => {
    /* never answers */
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = silent.address() as { port: number };
    const limits = await probeServerLimits(`http://127.0.0.1:${port}/v1`, 'm', { timeoutMs: 200 });
    assert.deepEqual(limits, { settled: false });
  } finally {
    silent.closeAllConnections();
    silent.close();
  }
});

test('braid.contextWindow and braid.maxOutputTokens win over the server, and together skip asking it', async () => {
  const { server, settings } = await serving({ props: { default_generation_settings: { n_ctx: 4096, params: { n_predict: 512 } } } });
  const both = await resolveModelWithLimits({ ...settings, contextWindow: 16_000, maxOutputTokens: 700 });
  assert.deepEqual(both.limits, { contextWindow: 16_000, contextFrom: 'braid.contextWindow', maxOutputTokens: 700, outputFrom: 'braid.maxOutputTokens' });
  assert.deepEqual(server.limitRequests, [], 'both set: the server is not asked');
  const windowOnly = await resolveModelWithLimits({ ...settings, contextWindow: 16_000 });
  assert.deepEqual([windowOnly.limits.contextWindow, windowOnly.limits.maxOutputTokens, windowOnly.limits.outputFrom], [16_000, 512, 'llama-server /props']);
  // A catalogue model takes them too; its answers stay within half a smaller window.
  const claude = resolveModel({ provider: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: '', demo: false, contextWindow: 50_000 });
  assert.deepEqual([claude.contextWindow, claude.maxTokens], [50_000, 25_000]);
  for (const bad of [{ contextWindow: 100 }, { contextWindow: 1.5e4 + 0.5 }, { maxOutputTokens: -3 }, { contextWindow: Number.NaN }]) {
    await assert.rejects(
      resolveModelWithLimits({ ...settings, ...bad }),
      (err: unknown) => err instanceof ModelConfigError && /must be a whole number of tokens/.test(err.message),
    );
  }
});

async function braid(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const workspace = path.join(root, 'project');
  fs.mkdirSync(workspace, { recursive: true });
  const code = await runCli(['--data-dir', path.join(root, 'store'), '--workspace', workspace, ...args], {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env,
    wasmPath,
  });
  return { code, out, err };
}

test('braid model shows the limits and where they came from; BRAID_* variables set them; a bad one is one sentence', async () => {
  const { settings } = await serving({ props: { default_generation_settings: { n_ctx: 8192 } } });
  const env = { BRAID_PROVIDER: settings.provider, BRAID_MODEL: settings.model, BRAID_BASE_URL: settings.baseUrl };
  const json = await braid(['model', '--json'], env);
  assert.equal(json.code, 0, json.err);
  assert.deepEqual(JSON.parse(json.out), {
    provider: 'openai-compatible',
    id: 'local-model',
    api: 'openai-completions',
    baseUrl: settings.baseUrl,
    contextWindow: 8192,
    contextFrom: 'llama-server /props',
    maxOutputTokens: 2048,
    outputFrom: "Braid's default (a quarter of the window, at most 8,192)",
  });
  const text = await braid(['model'], { ...env, BRAID_MAX_OUTPUT_TOKENS: '300' });
  assert.match(text.out, /^context window 8,192 tokens \(llama-server \/props\); answers up to 300 tokens \(BRAID_MAX_OUTPUT_TOKENS\)$/m);
  const bad = await braid(['model'], { ...env, BRAID_CONTEXT_WINDOW: '32k' });
  assert.equal(bad.code, 1);
  assert.equal(bad.err, 'braid: BRAID_CONTEXT_WINDOW must be a whole number of tokens, at least 1024 (or 0 to use what the server or catalogue says).\n');
  assert.equal(ENV_NAMES.contextWindow, 'BRAID_CONTEXT_WINDOW');
});

test("braid exec asks a small local model for no more than its limit (the request's max_tokens)", async () => {
  const { server, settings } = await serving({ props: { default_generation_settings: { n_ctx: 4096, params: { n_predict: -1 } } } });
  const env = { BRAID_PROVIDER: settings.provider, BRAID_MODEL: settings.model, BRAID_BASE_URL: settings.baseUrl };
  server.enqueue({ kind: 'text', chunks: ['Short.'], usage: { prompt: 50, completion: 2 } });
  const r = await braid(['exec', 'Say something short.'], env);
  assert.equal(r.code, 0, r.err);
  assert.equal(server.requests.at(-1)!.body.max_tokens, 1024);
  server.enqueue({ kind: 'text', chunks: ['Shorter.'], usage: { prompt: 60, completion: 2 } });
  const capped = await braid(['exec', '--continue', 'Again.'], { ...env, BRAID_MAX_OUTPUT_TOKENS: '200' });
  assert.equal(capped.code, 0, capped.err);
  assert.equal(server.requests.at(-1)!.body.max_tokens, 200);
});

test('compaction comes at the threshold of the window the server reports, not of the 128k default', async () => {
  const { server, settings } = await serving({ props: { default_generation_settings: { n_ctx: 2000 } } });
  const f = await sessionFixture();
  try {
    const session = await f.open({ model: async () => ({ ...(await resolveModelWithLimits(settings)), thinking: 'off' }) });
    // A long first answer (about 1,250 tokens by Braid's estimate) leaves something older than the kept tail to summarize.
    server.enqueue({ kind: 'text', chunks: ['word '.repeat(1000)], usage: { prompt: 300, completion: 1250 } });
    await session.submit('first question');
    await session.waitForIdle();
    assert.equal(f.records(session.id).filter((r) => r.t === 'compaction').length, 0, '1,550 tokens of 2,000: no compaction yet');
    // 1,700 of 2,000 tokens is past 0.8 of the server's window (and far below 0.8 of 128k).
    server.enqueue(
      { kind: 'text', chunks: ['A second answer.'], usage: { prompt: 1690, completion: 10 } },
      { kind: 'text', chunks: ['SUMMARY: a first question was answered.'], usage: { prompt: 200, completion: 10 } },
    );
    await session.submit('second question');
    await session.waitForIdle();
    const compactions = f.records(session.id).filter((r): r is CompactionRecord => r.t === 'compaction');
    assert.equal(compactions.length, 1);
    assert.match(compactions[0]!.summary, /SUMMARY/);
    assert.equal(server.requests.at(-1)!.body.max_tokens, 500, 'the summary call is limited like every request');
  } finally {
    await f.cleanup();
  }
});
