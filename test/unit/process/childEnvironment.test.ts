import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { silentLogger } from '../../../src/core/logger';
import { gitEnvironment } from '../../../src/core/git/safeGit';
import { promptHooks } from '../../support/hooks';
import { workspaceTools } from '../../../src/core/tools';
import { ApprovalGate } from '../../../src/core/tools/approvals';
import { Checkpoints } from '../../../src/core/tools/checkpoints';
import { BlobStore } from '../../../src/core/format/blobStore';
import { WorkspaceFs } from '../../../src/core/tools/workspaceFs';
import { tempDir } from '../../support/store';

// Every variable a model key can come from (src/core/model/apiKey.ts: BRAID_API_KEY, then pi-ai's
// provider variables), each set to a value no command may see.
const KEYS = [
  'BRAID_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_OAUTH_TOKEN',
  'GEMINI_API_KEY',
  'OPENROUTER_API_KEY',
  'GROQ_API_KEY',
  'DEEPSEEK_API_KEY',
  'MISTRAL_API_KEY',
  'XAI_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'HF_TOKEN',
  'COPILOT_GITHUB_TOKEN',
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'GOOGLE_CLOUD_API_KEY',
  'AWS_BEARER_TOKEN_BEDROCK',
];
const secret = (name: string) => `secret-value-of-${name.toLowerCase()}`;
const saved = new Map<string, string | undefined>();
const root = tempDir('braid-env-');

before(() => {
  for (const name of [...KEYS, 'BRAID_PLAIN_VARIABLE', 'GIT_DIR']) saved.set(name, process.env[name]);
  for (const name of KEYS) process.env[name] = secret(name);
  process.env.BRAID_PLAIN_VARIABLE = 'plain-value';
  process.env.GIT_DIR = path.join(root, 'elsewhere');
});

after(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  fs.rmSync(root, { recursive: true, force: true });
});

function assertNoKeys(text: string, what: string): void {
  for (const name of KEYS) assert.equal(text.includes(secret(name)), false, `${what} saw ${name}`);
  assert.match(text, /BRAID_PLAIN_VARIABLE=plain-value/, `${what} keeps the rest of the environment`);
}

test("a bash command gets an environment without Braid's or any provider's API key", async () => {
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws);
  const checkpoints = new Checkpoints(new BlobStore(path.join(root, 'blobs')), async () => undefined);
  const tools = workspaceTools({
    workspace: new WorkspaceFs([ws]),
    trusted: true,
    approvals: new ApprovalGate({ request: async () => 'allow' }),
    checkpoints,
    logger: silentLogger,
  });
  const result = await tools.find((t) => t.name === 'bash')!.execute('call', { command: 'env' });
  const text = result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  assert.match(text, /^Exit code 0\./);
  assertNoKeys(text, 'the bash command');
});

test('the prompt hook gets an environment without the keys', async () => {
  const hook = await promptHooks('env').run('UserPromptSubmit', { sessionId: 'ses_x', transcriptPath: '', workspaceDir: root }, { prompt: 'hello' });
  assert.equal(hook.block, undefined);
  assert.equal(hook.context.length, 1);
  assertNoKeys(hook.context.join('\n'), 'the prompt hook');
});

test('git gets an environment without the keys and without the GIT_* variables Braid inherited', () => {
  const env = gitEnvironment();
  assertNoKeys(
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    'git',
  );
  assert.equal(env.GIT_DIR, undefined);
  assert.equal(env.GIT_CONFIG_NOSYSTEM, '1');
});
