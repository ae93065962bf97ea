import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IMAGE_TYPES, MAX_ATTACHMENTS, MAX_IMAGE_BYTES, MAX_MENTION_QUERY } from '../../src/protocol/messages';
import { parseWebviewMessage } from '../../src/protocol/validate';
import { matchScore, rankMatches, subsequenceGlob } from '../../src/vscode/chat/mentionRank';

const prompt = (attachments: unknown) => parseWebviewMessage({ type: 'prompt', requestId: 'r1', text: 'hi', attachments });
const reason = (parsed: ReturnType<typeof parseWebviewMessage>) => (parsed.ok ? 'ok' : parsed.reason);

test("a prompt's attachments parse to their typed form, extra fields dropped", () => {
  assert.deepEqual(
    prompt([
      { kind: 'file', label: 'a.ts', path: 'src/a.ts', content: 'forged' },
      { kind: 'selection', label: 'a.ts:2-4', path: 'src/a.ts', lines: [2, 4] },
      { kind: 'problems', label: 'Problems' },
      { kind: 'gitDiff', label: 'Git diff' },
      { kind: 'folder', label: 'src', path: 'src' },
      { kind: 'editor', label: 'b.ts', path: 'b.ts' },
    ]),
    {
      ok: true,
      message: {
        type: 'prompt',
        requestId: 'r1',
        text: 'hi',
        attachments: [
          { kind: 'file', label: 'a.ts', path: 'src/a.ts' },
          { kind: 'selection', label: 'a.ts:2-4', path: 'src/a.ts', lines: [2, 4] },
          { kind: 'problems', label: 'Problems' },
          { kind: 'gitDiff', label: 'Git diff' },
          { kind: 'folder', label: 'src', path: 'src' },
          { kind: 'editor', label: 'b.ts', path: 'b.ts' },
        ],
      },
    },
  );
  assert.deepEqual(prompt([]), { ok: true, message: { type: 'prompt', requestId: 'r1', text: 'hi' } });
});

test('bad attachments refuse the prompt, saying why', () => {
  assert.equal(reason(prompt('src/a.ts')), 'prompt with attachments that are not a list');
  assert.equal(reason(prompt([{ kind: 'secret', label: 'x' }])), 'prompt with an attachment of an unknown kind');
  assert.equal(reason(prompt([{ kind: 'file', label: '', path: 'a' }])), 'prompt with an attachment without a label');
  assert.equal(reason(prompt([{ kind: 'file', label: 'a' }])), 'prompt with a file attachment without a path');
  assert.equal(reason(prompt([{ kind: 'problems', label: 'P', path: 'a' }])), 'prompt with a problems attachment with a path');
  for (const path of ['/etc/passwd', '../outside', 'a/../../b', 'C:/x', 'a\\b', 'a\nb', 'a\u0000b'])
    assert.equal(reason(prompt([{ kind: 'file', label: 'a', path }])), 'prompt with an attachment whose path is not a workspace-relative path', path);
  assert.equal(reason(prompt([{ kind: 'selection', label: 'a', path: 'a' }])), 'prompt with a selection without its lines');
  assert.equal(reason(prompt([{ kind: 'file', label: 'a', path: 'a', lines: [1, 2] }])), 'prompt with a file attachment with lines');
  for (const lines of [[0, 2], [3, 2], [1], [1, 2.5], 'x'])
    assert.equal(reason(prompt([{ kind: 'selection', label: 'a', path: 'a', lines }])), 'prompt with a selection whose lines are not a range');
  const many = Array.from({ length: MAX_ATTACHMENTS + 1 }, () => ({ kind: 'problems', label: 'P' }));
  assert.equal(reason(prompt(many)), `prompt with more than ${MAX_ATTACHMENTS} attachments`);
});

test('a mention query parses; a bad one is refused', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'mentionQuery', id: 3, query: 'rdme', x: 1 }), {
    ok: true,
    message: { type: 'mentionQuery', id: 3, query: 'rdme' },
  });
  assert.equal(reason(parseWebviewMessage({ type: 'mentionQuery', id: -1, query: 'a' })), 'mentionQuery without an id');
  assert.equal(
    reason(parseWebviewMessage({ type: 'mentionQuery', id: 1, query: 'a'.repeat(MAX_MENTION_QUERY + 1) })),
    `mentionQuery without a query of at most ${MAX_MENTION_QUERY} characters`,
  );
  assert.equal(reason(parseWebviewMessage({ type: 'mentionQuery', id: 1 })), `mentionQuery without a query of at most ${MAX_MENTION_QUERY} characters`);
});

test("the `@` list's glob is a case-insensitive subsequence of the name typed", () => {
  assert.equal(subsequenceGlob('rdMe'), '**/*[rR]*[dD]*[mM]*[eE]*');
  assert.equal(subsequenceGlob('src/a.t'), '**/*[aA]*.*[tT]*');
  assert.equal(subsequenceGlob('a*{b}'), '**/*[aA]*[bB]*', 'glob characters are dropped');
  assert.equal(subsequenceGlob('  '), undefined);
});

test('ranking puts name matches, word starts and runs first', () => {
  const paths = ['docs/readme-old/notes.txt', 'src/render.ts', 'README.md', 'test/fixtures/deep/r/e/a/d/m/e.txt'];
  assert.deepEqual(
    rankMatches('readme', paths, (p) => p, 10),
    ['README.md', 'docs/readme-old/notes.txt', 'test/fixtures/deep/r/e/a/d/m/e.txt'],
  );
  assert.equal(matchScore('xyz', 'src/render.ts'), undefined);
  assert.deepEqual(
    rankMatches('rend', paths, (p) => p, 1),
    ['src/render.ts'],
  );
});

test('an image chip carries a known type and base64 data of at most the limit', () => {
  const png = { mimeType: 'image/png', data: 'iVBORw0KGgo=' };
  assert.deepEqual(prompt([{ kind: 'image', label: 'shot.png', image: png }]), {
    ok: true,
    message: { type: 'prompt', requestId: 'r1', text: 'hi', attachments: [{ kind: 'image', label: 'shot.png', image: png }] },
  });
  assert.equal(reason(prompt([{ kind: 'image', label: 'a' }])), 'prompt with an image attachment without its image');
  assert.equal(reason(prompt([{ kind: 'file', label: 'a', path: 'a', image: png }])), 'prompt with a file attachment with an image');
  assert.equal(
    reason(prompt([{ kind: 'image', label: 'a', image: { mimeType: 'image/svg+xml', data: 'PHN2Zz4=' } }])),
    `prompt with an image that is not one of ${IMAGE_TYPES.join(', ')}`,
  );
  assert.equal(
    reason(prompt([{ kind: 'image', label: 'a', image: { mimeType: 'image/png', data: 'not base64!' } }])),
    'prompt with an image whose data is not base64',
  );
  const big = 'A'.repeat(Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 4);
  assert.equal(reason(prompt([{ kind: 'image', label: 'a', image: { mimeType: 'image/png', data: big } }])), 'prompt with an image larger than 5 MiB');
});

test('an MCP resource chip carries its server:uri, and only a resource does', () => {
  const uri = 'everything:demo://resource/static/document/architecture.md';
  assert.deepEqual(prompt([{ kind: 'mcpResource', label: 'architecture.md', uri, x: 1 }]), {
    ok: true,
    message: { type: 'prompt', requestId: 'r1', text: 'hi', attachments: [{ kind: 'mcpResource', label: 'architecture.md', uri }] },
  });
  assert.equal(reason(prompt([{ kind: 'mcpResource', label: 'a' }])), 'prompt with an MCP resource without its URI');
  assert.equal(reason(prompt([{ kind: 'mcpResource', label: 'a', uri: 'no scheme' }])), 'prompt with an MCP resource whose URI is not server:uri');
  assert.equal(reason(prompt([{ kind: 'problems', label: 'P', uri }])), 'prompt with a problems attachment with a URI');
  assert.deepEqual(parseWebviewMessage({ type: 'listCommands', x: 1 }), { ok: true, message: { type: 'listCommands' } });
});
