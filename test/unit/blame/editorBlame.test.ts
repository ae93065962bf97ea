import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { marked } from 'marked';
import { blameFile, blameWorkspaceKeys, type LineAuthor } from '../../../src/core/store/blame';
import { authorRuns, hoverMarkdown, lensTitle, markdownText } from '../../../src/vscode/blame/blameText';
import { DocumentBlame } from '../../../src/vscode/blame/documentBlame';
import { openSessionArg } from '../../../src/vscode/commands/openSessionArg';
import { fauxAssistantMessage, fauxToolCall, sessionFixture } from '../../support/session';

// Blame in the editor: the authors of a document's lines as its buffer says them (unsaved edits
// included), kept per version; the hover's Markdown and the CodeLens's title, which show the
// untrusted text of a log (a prompt, a commit's subject) as text and link to one command only.

test('an unsaved buffer is blamed as it is, not the file on disk; the authors are kept per version until cleared', async () => {
  const f = await sessionFixture();
  try {
    f.faux.setResponses([
      fauxAssistantMessage(fauxToolCall('write_file', { path: 'app.ts', content: 'one\ntwo\n' }, { id: 'w1' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage('done'),
    ]);
    const session = await f.open();
    await session.submit('write app');
    await session.waitForIdle();
    await session.close();
    const file = path.join(f.workspace, 'app.ts');
    const keys = blameWorkspaceKeys(f.store.index, f.workspace, file);
    assert.ok(keys.length > 0);
    const authors = (text?: string) => blameFile(f.store.index, f.store.layout, keys, file, text).map((l) => l.author && `${l.text} #${l.author.turn}`);

    assert.deepEqual(authors(), ['one #1', 'two #1']);
    assert.deepEqual(authors('typed\none\ntwo\n'), [null, 'one #1', 'two #1'], 'a line typed above them, not saved');
    assert.equal(fs.readFileSync(file, 'utf8'), 'one\ntwo\n');

    let runs = 0;
    const kept = new DocumentBlame(
      (file, folder, text) => {
        runs++;
        return blameFile(f.store.index, f.store.layout, blameWorkspaceKeys(f.store.index, folder, file), file, text).map((l) => l.author);
      },
      () => assert.fail('blame failed'),
    );
    const doc = (version: number, text: string) => ({ key: 'file:///app.ts', version, file, folder: f.workspace, text: () => text });
    assert.equal(kept.authors(doc(1, 'one\ntwo\n'))[1]?.prompt, 'write app');
    kept.authors(doc(1, 'one\ntwo\n'));
    assert.equal(runs, 1, 'the same version: no second read of the logs');
    assert.equal(kept.authors(doc(2, 'two\n'))[0]?.turn, 1);
    assert.equal(runs, 2);
    kept.clear();
    kept.authors(doc(2, 'two\n'));
    assert.equal(runs, 3, 'the index changed: read again');
  } finally {
    await f.cleanup();
  }
});

test('a file blame cannot read (gone from disk) has no authors, and says why once per version', () => {
  const why: string[] = [];
  const kept = new DocumentBlame(
    () => {
      throw new Error('ENOENT');
    },
    (file, err) => why.push(`${file}: ${(err as Error).message}`),
  );
  const doc = { key: 'k', version: 1, file: '/gone.ts', folder: '/', text: () => 'x\n' };
  assert.deepEqual(kept.authors(doc), []);
  assert.deepEqual(kept.authors(doc), []);
  assert.deepEqual(why, ['/gone.ts: ENOENT']);
});

const author = (turn: number, prompt = 'Add the parser', sessionId = 'ses_01JABCDEFGHJKMNPQRSTVWXYZ0'): LineAuthor => ({
  sessionId,
  turn,
  at: Date.UTC(2026, 0, 2, 3, 4),
  prompt,
  model: 'faux/faux-1',
});

test('a CodeLens stands above each run of consecutive lines one turn wrote', () => {
  const [a, b] = [author(1), author(2)];
  const other = author(1, 'x', 'ses_01JABCDEFGHJKMNPQRSTVWXYZ9');
  assert.deepEqual(
    authorRuns([null, a, a, b, null, a, other, other]).map((r) => [r.first, r.last, r.author.sessionId.at(-1), r.author.turn]),
    [
      [1, 2, '0', 1],
      [3, 3, '0', 2],
      [5, 5, '0', 1],
      [6, 7, '9', 1],
    ],
  );
  assert.deepEqual(authorRuns([]), []);
  assert.deepEqual(authorRuns([null, null]), []);
});

const HOSTILE =
  '[x](command:workbench.action.terminal.new) <img src=x onerror=alert(1)> ![i](https://e.x/i.png) **b** `c` https://e.x www.e.x a@e.x &amp; <script>';

test("the hover shows a hostile prompt and commit subject as text: its one link is Open Session's, at the turn", () => {
  const line = { ...author(3, HOSTILE), commit: { id: '0123456789abcdef', at: 0, subject: '<b>fix</b> [y](command:x)' } };
  const html = marked.parse(hoverMarkdown(line, line.at + 5 * 60_000), { async: false });
  assert.doesNotMatch(html, /<img|<script|<b>|<strong>b|<code>|&lt;b&gt;<\/b>/);
  const links = [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]!);
  assert.equal(links.length, 1, html);
  const [command, args] = decodeURIComponent(links[0]!.replace(/&amp;/g, '&')).split('?') as [string, string];
  assert.equal(command, 'command:braid.openSession');
  assert.deepEqual(JSON.parse(args), [{ id: line.sessionId, turn: 3 }]);
  const shown = html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
  assert.ok(shown.includes(`Written by Braid: ${HOSTILE}`), shown);
  assert.ok(shown.includes('faux/faux-1 · 5 min ago'), shown);
  assert.ok(shown.includes('commit 012345678 <b>fix</b> [y](command:x)'), shown);
  assert.ok(shown.includes('Open the session at turn 3'));
  assert.ok(marked.parse(hoverMarkdown(author(1)), { async: false }).includes('uncommitted'));
});

test('escaped Markdown reads back as the text for every ASCII character', () => {
  const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
  const html = marked.parseInline(markdownText(ascii), { async: false });
  assert.equal(
    html
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&'),
    ascii,
  );
});

test("a CodeLens's title cuts the prompt to one line and shows $(name) as written, not as an icon", () => {
  assert.equal(lensTitle(author(1, 'Fix $(alert) the\n\nparser')), 'Written by Braid: Fix \\$(alert) the parser');
  assert.equal(lensTitle(author(1, 'x'.repeat(100))), `Written by Braid: ${'x'.repeat(60)}…`);
});

test('Open Session takes a session id and a turn from a link only when they are one', () => {
  const id = 'ses_01JABCDEFGHJKMNPQRSTVWXYZ0';
  assert.deepEqual(openSessionArg({ id, turn: 2 }), { id, turn: 2, query: undefined });
  assert.deepEqual(openSessionArg(id), { id });
  assert.deepEqual(openSessionArg(undefined), {});
  assert.deepEqual(openSessionArg({ query: 'parser' }), { id: undefined, turn: undefined, query: 'parser' });
  for (const bad of ['../x', { id: '../../etc' }, { id: 7 }, { id, turn: 0 }, { id, turn: 1.5 }, { id, turn: '2' }, { turn: 2 }, 42])
    assert.ok('problem' in openSessionArg(bad), JSON.stringify(bad));
});
