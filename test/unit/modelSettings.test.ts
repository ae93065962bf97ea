import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveApiKey } from '../../src/core/model/apiKey';
import { ENV_NAMES, ModelConfigError, resolveModel } from '../../src/core/model/modelSettings';

const base = { provider: '', model: '', baseUrl: '', demo: false };

test('openai-compatible describes a server at the base URL with the completions API', () => {
  const model = resolveModel({ ...base, provider: 'openai-compatible', model: 'llama3', baseUrl: 'http://127.0.0.1:11434/v1/' });
  assert.equal(model.api, 'openai-completions');
  assert.equal(model.provider, 'openai-compatible');
  assert.equal(model.baseUrl, 'http://127.0.0.1:11434/v1');
  assert.equal(model.id, 'llama3');
});

test('known providers come from the kernel catalogue with prices and context windows', () => {
  const model = resolveModel({ ...base, provider: 'anthropic', model: 'claude-sonnet-4-5' });
  assert.equal(model.api, 'anthropic-messages');
  assert.ok(model.contextWindow > 100_000);
  assert.ok(model.cost.input > 0);
});

test("unusable settings say which setting to change, in the caller's names", () => {
  const cases: Array<[typeof base, RegExp]> = [
    [base, /set braid\.provider and braid\.model/],
    [{ ...base, provider: 'openai-compatible' }, /set braid\.model/],
    [{ ...base, provider: 'openai-compatible', model: 'm' }, /set braid\.baseUrl/],
    [{ ...base, provider: 'openai-compatible', model: 'm', baseUrl: 'ftp://x' }, /not an http\(s\) URL/],
    [{ ...base, provider: 'nope', model: 'm' }, /Unknown provider "nope"/],
    [{ ...base, provider: 'anthropic', model: 'not-a-model' }, /has no model "not-a-model"/],
  ];
  for (const [settings, message] of cases)
    assert.throws(
      () => resolveModel(settings),
      (err: unknown) => err instanceof ModelConfigError && message.test(err.message),
    );
  assert.throws(() => resolveModel(base, ENV_NAMES), /set BRAID_PROVIDER and BRAID_MODEL/);
});

test('API keys: stored secret, then BRAID_API_KEY, then the provider variable; local servers get a placeholder', () => {
  assert.equal(resolveApiKey('anthropic', { BRAID_API_KEY: 'env', ANTHROPIC_API_KEY: 'prov' }, 'secret'), 'secret');
  assert.equal(resolveApiKey('anthropic', { BRAID_API_KEY: 'env', ANTHROPIC_API_KEY: 'prov' }), 'env');
  const saved = process.env.ANTHROPIC_API_KEY;
  process.env.ANTHROPIC_API_KEY = 'prov';
  try {
    assert.equal(resolveApiKey('anthropic', {}), 'prov');
  } finally {
    if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved;
  }
  assert.equal(resolveApiKey('openai-compatible', {}), 'no-key');
});
