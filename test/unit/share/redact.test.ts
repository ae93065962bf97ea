import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getEnvApiKey, getProviders } from '@mariozechner/pi-ai';
import { knownSecrets, redactLine, type Redaction, type RedactionContext } from '../../../src/core/share/redact';
import { parseRecordLine } from '../../../src/core/wire/records';
import { bytesOf, samplePrivateKey, sampleTokens } from '../../support/secretSamples';

// The rules of docs/reference.md (What leaves the machine), one at a time, on records shaped as
// Braid writes them. The real sessions' and fixtures' lines are in redactReal.test.ts.

const KEY = 'sk-braid-test-0123456789abcdefghijklmnopqrstuvwxyz';
const ctx: RedactionContext = { folders: ['/home/alice/work/app', '/home/alice/work/app/packages/web', '/srv/data'], home: '/home/alice', secrets: [KEY] };

const line = (record: object) => JSON.stringify({ v: 1, ts: 1_760_000_000_000, ...record });
const prompt = (text: string) => line({ t: 'message', turn: 1, id: 'msg_1', message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1 } });
const answer = (text: string) =>
  line({
    t: 'message',
    turn: 1,
    id: 'msg_2',
    message: { role: 'assistant', content: [{ type: 'text', text }], api: 'x', provider: 'x', model: 'x', stopReason: 'stop', timestamp: 2 },
  });
const call = (args: object) =>
  line({
    t: 'message',
    turn: 1,
    id: 'msg_3',
    message: {
      role: 'assistant',
      content: [{ type: 'toolCall', id: 'call_1', name: 'bash', arguments: args }],
      api: 'x',
      provider: 'x',
      model: 'x',
      stopReason: 'toolUse',
      timestamp: 3,
    },
  });
const output = (text: string) =>
  line({
    t: 'message',
    turn: 1,
    id: 'msg_4',
    message: { role: 'toolResult', toolCallId: 'call_1', toolName: 'bash', content: [{ type: 'text', text }], isError: false, timestamp: 4 },
  });

/** A record as sent, read back: the fields these tests look at. */
interface Sent {
  readonly workspaceDir?: string;
  readonly root?: string;
  readonly message: { readonly content: readonly { readonly type: string; readonly text?: string; readonly arguments?: Record<string, unknown> }[] };
}

/** The line redacted, parsed back (it must be a record that reads as the input did), and what was found. */
function redacted(input: string, context = ctx): { record: Sent; text: string; found: Redaction[] } {
  const { line: out, redactions } = redactLine(input, context);
  assert.ok(out !== null, 'a JSON line is sent');
  assert.ok(!out.includes('\n'), 'one line');
  assert.equal('record' in parseRecordLine(out), 'record' in parseRecordLine(input), 'it reads as a record as the input did');
  assert.deepEqual(redactLine(out, context), { line: out, redactions: [] }, 'redacting it again changes nothing, finds nothing');
  const record = JSON.parse(out) as Sent;
  return { record, text: record.message?.content?.[0]?.text ?? '', found: redactions };
}

/** The arguments of the first tool call of a sent record. */
const argsOf = (record: Sent) => record.message.content[0]!.arguments!;

const kinds = (found: readonly Redaction[]) => found.map((r) => r.kind);

/** Checks that no rule takes anything from each text, put in a record by `make`. */
function untouched(texts: readonly string[], make: (text: string) => string): void {
  for (const text of texts) assert.deepEqual(redacted(make(text)).found, [], text);
}

test('known keys: every occurrence, whole or inside a longer string, in prompts, answers, tool calls, output and keys', () => {
  const p = redacted(prompt(`use ${KEY} and x${KEY}y`));
  assert.equal(p.text, 'use [REDACTED:key] and x[REDACTED:key]y');
  assert.deepEqual(p.found, [
    { kind: 'known-key', where: 'message message.content[0].text', sample: 'sk-b…' },
    { kind: 'known-key', where: 'message message.content[0].text', sample: 'sk-b…' },
  ]);
  assert.equal(redacted(answer(`The key is ${KEY}.`)).text, 'The key is [REDACTED:key].');
  const c = redacted(call({ command: `curl -H "x-key: ${KEY}" host`, env: { [KEY]: 1 } }));
  const args = argsOf(c.record);
  assert.equal(args.command, 'curl -H "x-key: [REDACTED:key]" host');
  assert.deepEqual(Object.keys(args.env as object), ['[REDACTED:key]'], 'a key of an object too');
  assert.ok(c.found.some((r) => r.where === 'message message.content[0].arguments.env(key)'));
  assert.equal(redacted(output(`OPENAI=${KEY}`)).text.includes(KEY), false);
});

test('known keys: the longest first, so a key holding a shorter one goes whole; values under 8 characters are not keys', () => {
  const short = 'abcd1234';
  const long = `${short}efgh5678ijkl`;
  const context = { ...ctx, secrets: [short, long, 'tiny'] };
  const { text, found } = redacted(prompt(`${long} ${short} tiny`), context);
  assert.equal(text, '[REDACTED:key] [REDACTED:key] tiny');
  assert.deepEqual(kinds(found), ['known-key', 'known-key']);
  assert.deepEqual(
    found.map((r) => r.sample),
    ['abcd…', 'ab…'],
    'a sample shows a quarter at most, never more than 4 characters',
  );
});

test('tokens of every known format are replaced wherever they are, the text around them kept', () => {
  for (const { name, token } of sampleTokens('formats')) {
    for (const make of [prompt, answer, output]) {
      const { text, found } = redacted(make(`before ${token} after`));
      assert.equal(text, 'before [REDACTED:token] after', name);
      assert.deepEqual(kinds(found), ['token'], name);
      assert.equal(found[0]!.sample, `${token.slice(0, 4)}…`, name);
    }
    const c = redacted(call({ command: `deploy --with ${token}` }));
    assert.equal(argsOf(c.record).command, 'deploy --with [REDACTED:token]', `${name} in a tool call`);
  }
});

test('a PEM private key goes whole, BEGIN to END, or to the end when cut short', () => {
  const pem = samplePrivateKey('pem');
  assert.equal(redacted(output(`key:\n${pem}\ndone`)).text, 'key:\n[REDACTED:token]\ndone');
  assert.equal(redacted(prompt(`here ${pem.slice(0, 200)}`)).text, 'here [REDACTED:token]');
  const openssh = `-----BEGIN OPENSSH PRIVATE KEY-----\n${bytesOf('ssh', 300).toString('base64')}\n-----END OPENSSH PRIVATE KEY-----`;
  assert.equal(redacted(answer(openssh)).text, '[REDACTED:token]');
  assert.equal(redacted(prompt('-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----')).found.length, 0, 'a public key stays');
});

test('credentials in headers and URLs: the secret goes, the scheme, user and host stay', () => {
  const cases: [string, string][] = [
    ['curl -H "Authorization: Bearer abc123def456ghi789" https://api.x', 'curl -H "Authorization: Bearer [REDACTED:token]" https://api.x'],
    ['Authorization: Basic dXNlcjpwYXNzd29yZA==', 'Authorization: Basic [REDACTED:token]'],
    ['{"authorization": "token 0123456789abcdef"}', '{"authorization": "token [REDACTED:token]"}'],
    ['git clone https://alice:s3cr3t-pw@github.com/a/b.git', 'git clone https://alice:[REDACTED:token]@github.com/a/b.git'],
    ['DATABASE_URL=postgres://app:hunter2@db:5432/main', 'DATABASE_URL=postgres://app:[REDACTED:token]@db:5432/main'],
  ];
  for (const [text, expected] of cases) assert.equal(redacted(prompt(text)).text, expected, text);
  untouched(
    [
      'Authorization: required for every call',
      'Authorization: Bearer $TOKEN',
      'https://ci:${CI_PASSWORD}@host/x',
      'see https://example.com:8080/a@b',
      'mail alice@example.com',
    ],
    prompt,
  );
});

test('assignments of secrets: the value goes when the name says secret and a value is there', () => {
  const cases: [string, string][] = [
    ['export DB_PASSWORD=hunter2', 'export DB_PASSWORD=[REDACTED:token]'],
    ['STRIPE_KEY=abcd1234efgh', 'STRIPE_KEY=[REDACTED:token]'],
    ['{"api_key": "a1b2c3d4"}', '{"api_key": "[REDACTED:token]"}'],
    ['const clientSecret = "0f9e8d7c6b5a";', 'const clientSecret = "[REDACTED:token]";'],
    ["password: 'correct-horse'", "password: '[REDACTED:token]'"],
    ['aws_secret_access_key: wJalrXUtnFEMI7K7MDENG', 'aws_secret_access_key: [REDACTED:token]'],
    ['curl "https://x.io/api?access_token=9f8e7d6c5b&page=2"', 'curl "https://x.io/api?access_token=[REDACTED:token]&page=2"'],
    ['mysql --password secretpw1 -u root', 'mysql --password [REDACTED:token] -u root'],
    ['"x-api-key": "k-1234567890"', '"x-api-key": "[REDACTED:token]"'],
    ['{\\"token\\": \\"abc123xyz\\"}', '{\\"token\\": \\"[REDACTED:token]\\"}'],
  ];
  for (const [text, expected] of cases) assert.equal(redacted(output(text)).text, expected, text);
  const notSecrets = [
    'const sortKey = "createdAt";',
    'readonly apiKey: string;',
    'const token = await getToken();',
    'token = getToken()',
    'max_tokens=4096',
    'password_hash: 9f8e7d6c',
    '"key": "Enter"',
    'apiKey: process.env.OPENAI_API_KEY',
    'api_key=os.environ["OPENAI_API_KEY"]',
    'const STORAGE_KEY = "view.state";',
    'export ANTHROPIC_API_KEY=sk-ant-...',
    '"apiKey": "OPENAI_API_KEY"',
    'TOKEN=$GITHUB_TOKEN',
    'password: ${{ secrets.DB_PASSWORD }}',
    'the token: required',
    'token=null',
  ];
  untouched(notSecrets, output);
});

test("a record's field named as a secret's loses its value (a tool call's env, a header); other fields stay", () => {
  const { record, found } = redacted(
    call({
      env: { GITHUB_TOKEN: 'tok-123', STRIPE_KEY: 'abc', NPM_TOKEN: 'a1b2c3d4e5f6-', EXAMPLE_TOKEN: 'gsk_', PATH: '/usr/bin' },
      headers: { Authorization: 'Bearer abcdefgh1234' },
      sortKey: 'name',
      token: '',
    }),
  );
  assert.deepEqual(argsOf(record), {
    env: { GITHUB_TOKEN: '[REDACTED:token]', STRIPE_KEY: '[REDACTED:token]', NPM_TOKEN: '[REDACTED:token]', EXAMPLE_TOKEN: 'gsk_', PATH: '/usr/bin' },
    headers: { Authorization: 'Bearer [REDACTED:token]' },
    sortKey: 'name',
    token: '',
  });
  assert.deepEqual(
    found.map((r) => r.where),
    [
      'message message.content[0].arguments.env.GITHUB_TOKEN',
      'message message.content[0].arguments.env.STRIPE_KEY',
      'message message.content[0].arguments.env.NPM_TOKEN',
      'message message.content[0].arguments.headers.Authorization',
    ],
  );
});

/** A 32-byte secret in base64, base64url and hex, for seed `i`. */
const randomKeys = (i: number) => {
  const bytes = bytesOf(`key-${i}`, 32);
  return [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), bytesOf(`short-${i}`, 16).toString('hex')];
};

test('high entropy: random keys in tool output are replaced (32 bytes in base64, base64url or hex; 16 in hex)', () => {
  let missed = 0;
  for (let i = 0; i < 100; i++) {
    for (const key of randomKeys(i)) {
      const { text, found } = redacted(output(`$ cat .secret\n${key}\n`));
      if (text === '$ cat .secret\n[REDACTED:entropy]\n')
        assert.deepEqual(found, [{ kind: 'high-entropy', where: 'message message.content[0].text', sample: `${key.slice(0, 4)}…` }]);
      else missed++;
    }
  }
  assert.ok(missed <= 2, `${missed} of 400 random keys missed`);
});

test('high entropy applies to tool output only (a prompt, an answer, a tool call keep their random-looking text)', () => {
  const [key] = randomKeys(7);
  assert.deepEqual(redacted(prompt(`the seed is ${key}`)).found, []);
  assert.deepEqual(redacted(answer(`the seed is ${key}`)).found, []);
  assert.deepEqual(redacted(call({ seed: key })).found, []);
  const injected = line({
    t: 'message',
    turn: 1,
    id: 'msg_5',
    message: { role: 'user', content: [{ type: 'text', text: `<local-command-stdout>${key}</local-command-stdout>` }], timestamp: 5 },
    injected: { by: 'claude-code', kind: 'local-command-stdout' },
  });
  assert.deepEqual(kinds(redacted(injected).found), ['high-entropy'], "a command's output another tool injected is tool output");
});

const GIT_LOG = `$ git rev-parse HEAD
8e39295a1c0f2b7d4e6a9b3c5d7e9f1a2b4c6d8e
$ git log --stat -2
commit 8e39295a1c0f2b7d4e6a9b3c5d7e9f1a2b4c6d8e
Author: Alice Example <alice@example.com>
Date:   Sat Dec 5 18:02:11 2026 +0000

    state.json: shared, where a session pulled from a git remote came from

 src/core/format/sessionState.ts         | 14 ++++++++++++--
 test/unit/format/sessionStateShared.test.ts | 61 +++++++++++++++++++++++++++++++++++++
 2 files changed, 73 insertions(+), 2 deletions(-)

commit 48e1c4671b6f49479b87b20bf79bad7f185902ef
Merge: 2ade7cb aeba0f0
Author: Alice Example <alice@example.com>
`;

const LS_LA = `total 1432
drwxr-xr-x  14 alice staff    448 Dec  5 18:02 .
drwxr-xr-x   9 alice staff    288 Dec  1 09:13 ..
-rw-r--r--   1 alice staff   1067 Nov 30 11:20 LICENSE
-rw-r--r--   1 alice staff 412903 Dec  5 17:58 package-lock.json
drwxr-xr-x 812 alice staff  25984 Dec  5 17:58 node_modules
lrwxr-xr-x   1 alice staff     38 Dec  2 10:01 current -> releases/2026-12-02T10-01-33Z_9f2b7c1
`;

const PACKAGE_LOCK = `    "node_modules/@esbuild/linux-x64": {
      "version": "0.25.12",
      "resolved": "https://registry.npmjs.org/@esbuild/linux-x64/-/linux-x64-0.25.12.tgz",
      "integrity": "sha512-xNSb9mVGN1ddpqX7Y6hHnpNmUfEi6m8gy8dPnEbHs0rVoMQn4Gq2T0x2gFXBOo7PtJQbTg5wNdFgl+AOxT3mHBA==",
      "cpu": ["x64"],
    },
    "node_modules/ms": { "integrity": "sha1-VgiurfwAvmwpAd9fmGF4jeDVl8g=" },`;

const IDS_AND_HASHES = `session ses_01JEZ8Q4Y3KX2W7H9R5T6V8N0M, message msg_01H4wg8bFy2psdmQvJMU6kpD, call toolu_01JA2mLseQCAW3MdwPE4qWEk
request req_011CXL3BXxXpqshf6BAp1chN, call_VtK3mQ8rZp2Lx7Wn4Yb9Hd1F, run 36c1a185-65f2-41fa-8065-d1b2ea42bc39, 01ARZ3NDEKTSV4RRFFQ69G5FAV
e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  package.tgz
image: sha256:4bcff63911fcb4448bd4fdacec207030997caf25e9bea4045fa6c8c44de311d1
checksum = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
.git/objects/2d/92320763269ce60a27222eda165c3ecaaf6679
target/debug/deps/python_utils-1d9cbe00910c3870
/var/folders/49/l4171l3n219_xwq30fmyzr8w0000gn/T/pi-bash-a4cd2460b5b4e0be
node_modules/typescript/lib/lib.es2015.collection.d.ts
toHaveBeenCalledWith getElementsByTagName onDidChangeChatModels isVisibleInTranscriptOnly
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
ephemeral_5m_input_tokens ephemeral_1h_input_tokens BRAID_PROVIDER=anthropic DELETED_runSingleShotMode
`;

test('high entropy leaves ordinary tool output alone: a git log, ls -la, package-lock integrity, ids, digests, paths, identifiers', () => {
  for (const [name, text] of [
    ['git log', GIT_LOG],
    ['ls -la', LS_LA],
    ['package-lock.json', PACKAGE_LOCK],
    ['ids and hashes', IDS_AND_HASHES],
  ] as const)
    assert.deepEqual(redacted(output(text)).found, [], name);
});

test('paths: inside a workspace folder relative to it (the longest folder), under home ~/..., the folders themselves . and ~', () => {
  const cases: [string, string, string[]][] = [
    ['open /home/alice/work/app/src/main.ts:12', 'open src/main.ts:12', ['src/main.ts']],
    ['cd /home/alice/work/app && ls', 'cd . && ls', ['.']],
    ['cd /home/alice/work/app/ && ls', 'cd ./ && ls', ['.']],
    ['see /home/alice/work/app/packages/web/index.html', 'see index.html', ['index.html']],
    ['cat /home/alice/.config/braid/settings.json', 'cat ~/.config/braid/settings.json', ['~/.config/braid/settings.json']],
    ['HOME=/home/alice', 'HOME=~', ['~']],
    ['PATH=/usr/bin:/home/alice/bin:/srv/data/tools', 'PATH=/usr/bin:~/bin:tools', ['~/bin', 'tools']],
    ['("/home/alice/work/app")', '(".")', ['.']],
    ['at file:///home/alice/work/app/README.md and file:///home/alice/notes.txt.', 'at README.md and ~/notes.txt.', ['README.md', '~/notes.txt']],
  ];
  for (const [text, expected, samples] of cases) {
    const { text: out, found } = redacted(prompt(text));
    assert.equal(out, expected, text);
    assert.deepEqual(
      found,
      samples.map((sample) => ({ kind: 'path', where: 'message message.content[0].text', sample })),
      text,
    );
  }
});

test('paths: a folder is matched only whole (not inside a word or a longer path), other absolute paths stay', () => {
  untouched(
    [
      '/home/alicea/x',
      '/home/alice2',
      '/mnt/home/alice/work/app/x',
      '/home/alice.bak/x',
      '/home/alice-old',
      'x/home/alice/y',
      '/srv/database',
      '/usr/lib/node',
    ],
    prompt,
  );
});

test("paths: in object keys, a record's workspace folder and roots, tool output", () => {
  const agent = redacted(
    line({
      t: 'agent',
      agentId: 'main',
      parentAgentId: null,
      purpose: 'main',
      sessionId: 'ses_01JEZ8Q4Y3KX2W7H9R5T6V8N0M',
      workspaceDir: '/home/alice/work/app',
    }),
  );
  assert.equal(agent.record.workspaceDir, '.');
  assert.deepEqual(agent.found, [{ kind: 'path', where: 'agent workspaceDir', sample: '.' }]);
  const change = redacted(
    line({ t: 'file_change', turn: 1, toolCallId: 'call_1', path: 'src/a.ts', before: null, after: 'a'.repeat(64), root: '/home/alice/work/app' }),
  );
  assert.equal(change.record.root, '.');
  const details = redacted(call({ files: { '/home/alice/work/app/src/a.ts': 1, '/home/alice/x': 2 } }));
  assert.deepEqual(Object.keys(argsOf(details.record).files as object), ['src/a.ts', '~/x']);
  assert.equal(redacted(output('/home/alice/work/app/src/a.ts:3: error')).text, 'src/a.ts:3: error');
});

test('paths: Windows drive paths, either separator and case, become relative with /', () => {
  const windows = { folders: ['C:\\Users\\alice\\app'], home: 'C:\\Users\\alice', secrets: [] };
  const cases: [string, string][] = [
    ['at C:\\Users\\alice\\app\\src\\main.ts(3,5)', 'at src/main.ts(3,5)'],
    ['at c:/users/alice/app/src/main.ts', 'at src/main.ts'],
    ['see C:\\Users\\alice\\Documents\\a.txt', 'see ~/Documents/a.txt'],
    ['file:///C:/Users/alice/app/README.md', 'README.md'],
    ['C:\\Users\\alicebob\\x', 'C:\\Users\\alicebob\\x'],
  ];
  for (const [text, expected] of cases) assert.equal(redacted(prompt(text), windows).text, expected, text);
});

test('images: an image part becomes a text part saying so (user and tool messages), a data URL in a text goes', () => {
  const image = line({
    t: 'message',
    turn: 1,
    id: 'msg_6',
    message: {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image', blob: 'ab'.repeat(32), mimeType: 'image/png' },
      ],
      timestamp: 6,
    },
  });
  const { record, found } = redacted(image);
  assert.deepEqual(record.message.content, [
    { type: 'text', text: 'look' },
    { type: 'text', text: '[image not shared]' },
  ]);
  assert.deepEqual(found, [{ kind: 'image', where: 'message message.content[1]', sample: 'image…' }]);
  const shot = line({
    t: 'message',
    turn: 1,
    id: 'msg_7',
    message: {
      role: 'toolResult',
      toolCallId: 'c',
      toolName: 'screenshot',
      content: [{ type: 'image', data: bytesOf('png', 900).toString('base64'), mimeType: 'image/png' }],
      isError: false,
      timestamp: 7,
    },
  });
  assert.deepEqual(redacted(shot).record.message.content, [{ type: 'text', text: '[image not shared]' }]);
  const dataUrl = `<img src="data:image/png;base64,${bytesOf('inline', 300).toString('base64')}">`;
  assert.equal(redacted(prompt(dataUrl)).text, '<img src="[image not shared]">');
});

test('a line that is not JSON is not sent; one redaction says so', () => {
  assert.deepEqual(redactLine('{"v":1,"t":"message","turn":1,"id":"m","message":{"role":"us', ctx), {
    line: null,
    redactions: [{ kind: 'unreadable-line', where: 'line', sample: '{"v"…' }],
  });
  assert.equal(redactLine('', ctx).line, null);
});

test('what nothing touches is sent byte for byte; numbers, booleans, nulls and key order stay; the record type stays', () => {
  const plain = '{"v":1,"ts":1.5e+21,"t":"usage","turn":2,"messageId":"msg_1","input":-0,"cost":0.1,"ok":true,"x":null,"z":1,"a":2}';
  assert.deepEqual(redactLine(plain, ctx), { line: plain, redactions: [] });
  const changed = JSON.stringify({ v: 1, ts: 2, t: 'custom_kind', z: 1, note: '/home/alice/work/app/a', a: [true, null, 3.25], __proto__x: 1 });
  const out = redactLine(changed, ctx).line!;
  assert.equal(out, JSON.stringify({ v: 1, ts: 2, t: 'custom_kind', z: 1, note: 'a', a: [true, null, 3.25], __proto__x: 1 }));
  const proto = '{"v":1,"ts":1,"t":"x","__proto__":{"p":"/home/alice/q"}}';
  assert.equal(redactLine(proto, ctx).line, '{"v":1,"ts":1,"t":"x","__proto__":{"p":"~/q"}}', 'a __proto__ key stays a key');
});

test('knownSecrets: BRAID_API_KEY, the provider variables, any *_API_KEY, *_TOKEN, *_SECRET, *_PASSWORD of 8 characters or more, and the stored key', () => {
  const env = {
    BRAID_API_KEY: 'braid-key-1234',
    ANTHROPIC_OAUTH_TOKEN: 'sk-ant-oat01-abcdefgh',
    AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG',
    AWS_BEARER_TOKEN_BEDROCK: 'bedrock-bearer-99',
    MY_SERVICE_PASSWORD: 'pass-word-1',
    WEBHOOK_SECRET: '  whsec-abcdefgh  ',
    SHORT_TOKEN: 'abc',
    HOME: '/home/alice',
    PATH: '/usr/bin',
    TOKEN_COUNT: '12345678',
  };
  assert.deepEqual(knownSecrets(env, ['stored-key-5678', 'x']), [
    'sk-ant-oat01-abcdefgh',
    'wJalrXUtnFEMI/K7MDENG',
    'bedrock-bearer-99',
    'stored-key-5678',
    'braid-key-1234',
    'whsec-abcdefgh',
    'pass-word-1',
  ]);
});

/** The variables `getEnvApiKey(provider)` reads, found by giving it an environment that records what it asks for. */
function variablesPiAiReads(provider: string): Set<string> {
  const read = new Set<string>();
  const original = process.env;
  const tryWith = (set: ReadonlySet<string>) => {
    process.env = new Proxy({} as NodeJS.ProcessEnv, {
      get: (_, name) => {
        if (typeof name === 'string') read.add(name);
        return typeof name === 'string' && set.has(name) ? 'value-of-the-variable' : undefined;
      },
    });
    try {
      getEnvApiKey(provider);
    } finally {
      process.env = original;
    }
  };
  tryWith(new Set());
  // A variable read only when another is set (AWS_SECRET_ACCESS_KEY after AWS_ACCESS_KEY_ID): set each one seen, until no new one appears.
  for (let seen = 0; seen !== read.size;) {
    seen = read.size;
    for (const name of [...read]) tryWith(new Set([name]));
  }
  return read;
}

/** Variables pi-ai reads that hold no secret: a profile's name, a project, a region, a path or URL of credentials. */
const NOT_KEYS =
  /^(?:AWS_PROFILE|AWS_REGION|AWS_DEFAULT_REGION|GOOGLE_CLOUD_PROJECT|GCLOUD_PROJECT|GOOGLE_CLOUD_LOCATION|GOOGLE_APPLICATION_CREDENTIALS|AWS_CONTAINER_CREDENTIALS_\w+|AWS_WEB_IDENTITY_TOKEN_FILE)$/;

test("knownSecrets covers every key variable pi-ai's getEnvApiKey reads, for every provider it knows", () => {
  const names = new Set(getProviders().flatMap((provider) => [...variablesPiAiReads(provider)]));
  assert.ok(names.has('OPENAI_API_KEY') && names.has('AWS_SECRET_ACCESS_KEY'), `the variables are found: ${[...names].join(', ')}`);
  const missed = [...names].filter((name) => !NOT_KEYS.test(name) && !knownSecrets({ [name]: 'value-of-the-variable' }).includes('value-of-the-variable'));
  assert.deepEqual(missed, []);
});
