import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelChoices, providerModelLines, settingsForPick, type ModelCatalogue } from '../../../src/vscode/model/modelChoices';

const catalogue = (over: Partial<ModelCatalogue> = {}): ModelCatalogue => ({
  current: { provider: 'groq', id: 'llama-3.3-70b' },
  vscodeModels: [{ provider: 'vscode-lm', id: 'gpt-x', name: 'GPT X', vendor: 'copilot' }],
  providers: ['amazon-bedrock', 'anthropic', 'groq', 'openai', 'xai'],
  configured: (p) => p === 'openai' || p === 'groq',
  ...over,
});
const lines = (c: ModelCatalogue) => modelChoices(c).map((l) => `${l.group}:${l.kind}:${l.provider}${l.model ? `/${l.model}` : ''}`);

test("the current model comes first and marked, then VS Code's models, providers with a key (current provider first), then the rest", () => {
  assert.deepEqual(lines(catalogue()), [
    'current:model:groq/llama-3.3-70b',
    'vscode:model:vscode-lm/gpt-x',
    'keyed:provider:groq',
    'keyed:provider:openai',
    'other:provider:amazon-bedrock',
    'other:provider:anthropic',
    'other:provider:xai',
    'other:provider:openai-compatible',
  ]);
  const [current] = modelChoices(catalogue());
  assert.equal(current!.description, 'current');
  assert.equal(current!.label, 'groq · llama-3.3-70b');
  const groq = modelChoices(catalogue()).find((l) => l.kind === 'provider' && l.provider === 'groq')!;
  assert.match(groq.description, /^current provider · API key set · choose a model…$/);
});

test('a VS Code model in use is listed once, as the current one; no current line when nothing is configured', () => {
  const vscodeCurrent = lines(catalogue({ current: { provider: 'vscode-lm', id: 'gpt-x' } }));
  assert.deepEqual(vscodeCurrent.slice(0, 2), ['current:model:vscode-lm/gpt-x', 'keyed:provider:groq']);
  assert.equal(vscodeCurrent.filter((l) => l.includes('gpt-x')).length, 1);
  const none = lines(catalogue({ current: undefined, configured: () => false }));
  assert.deepEqual(none[0], 'vscode:model:vscode-lm/gpt-x');
  assert.ok(none.slice(1).every((l) => l.startsWith('other:provider:')));
});

test('openai-compatible is configured by its server address and listed once, last of its group', () => {
  const withServer = lines(
    catalogue({
      current: { provider: 'openai-compatible', id: 'qwen' },
      providers: ['anthropic', 'openai-compatible'],
      configured: (p) => p === 'openai-compatible',
    }),
  );
  assert.deepEqual(withServer, [
    'current:model:openai-compatible/qwen',
    'vscode:model:vscode-lm/gpt-x',
    'keyed:provider:openai-compatible',
    'other:provider:anthropic',
  ]);
});

test("a provider's models list the current one first", () => {
  const models = [
    { id: 'a', contextWindow: 200_000 },
    { id: 'b', contextWindow: 128_000 },
    { id: 'c', contextWindow: 8_000 },
  ];
  assert.deepEqual(
    providerModelLines(models, 'b').map((l) => [l.id, l.current, l.description]),
    [
      ['b', true, '128k context'],
      ['a', false, '200k context'],
      ['c', false, '8k context'],
    ],
  );
  assert.deepEqual(
    providerModelLines(models, undefined).map((l) => l.id),
    ['a', 'b', 'c'],
  );
});

const settings = (provider: string, baseUrl: string, model = 'm', demo = false) => ({ provider, model, baseUrl, demo });
const catalogueProvider = (p: string) => ['anthropic', 'openai'].includes(p);

test('picking another catalogue provider clears a server address set for the previous one, so its key does not go there', () => {
  const fromLocal = settingsForPick(settings('openai-compatible', 'http://127.0.0.1:11434/v1'), { provider: 'anthropic', model: 'claude' }, catalogueProvider);
  assert.deepEqual(fromLocal, { provider: 'anthropic', model: 'claude', baseUrl: '', clearedBaseUrl: true, demo: false });
  // The same provider keeps the address the user set for it (a proxy, say).
  assert.deepEqual(settingsForPick(settings('openai', 'https://proxy.example/v1'), { provider: 'openai', model: 'gpt' }, catalogueProvider), {
    provider: 'openai',
    model: 'gpt',
    baseUrl: 'https://proxy.example/v1',
    clearedBaseUrl: false,
    demo: false,
  });
  // VS Code's models ignore it; an OpenAI-compatible server brings its own.
  assert.equal(
    settingsForPick(settings('openai', 'https://proxy.example/v1'), { provider: 'vscode-lm', model: 'gpt-x' }, catalogueProvider).clearedBaseUrl,
    false,
  );
  assert.equal(
    settingsForPick(settings('anthropic', ''), { provider: 'openai-compatible', model: 'q', baseUrl: 'http://h/v1' }, catalogueProvider).baseUrl,
    'http://h/v1',
  );
});

test('the demo mark stays only while the pick is still the demo server', () => {
  const demo = settings('openai-compatible', 'http://127.0.0.1:9/v1', 'scripted-model', true);
  assert.equal(settingsForPick(demo, { provider: 'openai-compatible', model: 'other-id', baseUrl: 'http://127.0.0.1:9/v1' }, catalogueProvider).demo, true);
  assert.equal(settingsForPick(demo, { provider: 'openai-compatible', model: 'qwen', baseUrl: 'http://127.0.0.1:11434/v1' }, catalogueProvider).demo, false);
  assert.equal(settingsForPick(demo, { provider: 'anthropic', model: 'claude' }, catalogueProvider).demo, false);
  assert.equal(
    settingsForPick({ ...demo, demo: false }, { provider: 'openai-compatible', model: 'scripted-model', baseUrl: 'http://127.0.0.1:9/v1' }, catalogueProvider)
      .demo,
    false,
  );
});
