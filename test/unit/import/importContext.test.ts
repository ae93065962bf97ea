import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { importSessions } from '../../../src/core/import/importer';
import { injectedOf, type MessageRecord } from '../../../src/core/wire/records';
import { toEntries } from '../../../src/vscode/chat/transcript';
import { exportMarkdown } from '../../../src/core/store/export';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { braidIn } from '../../support/cli';
import { numberedTurns, writeClaudeSession, importPlace, type ImportPlace } from '../../support/sourceSessions';
import { wasmPath } from '../../support/store';

// What the tools inject as user-role messages (their environment, instructions, reminders, a
// command's name and output, an interruption) is context, not the person's prompt: kept verbatim,
// shown collapsed, never the title or a turn's prompt. And an imported session keeps its own
// times: it sorts by when it happened, not by when it was imported.
let place: ImportPlace;
let root: string;
let workspace: string;
let store: SessionStore;
beforeEach(async () => {
  place = await importPlace('braid-import-context-');
  ({ root, workspace, store } = place);
});
afterEach(() => place.cleanup());

const MARCH = Date.UTC(2026, 2, 3, 8, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const messagesOf = (id: string) => store.history(id).messages.filter((m): m is MessageRecord => m.message.role === 'user' || m.message.role === 'assistant');

/** A Codex rollout as 0.17x writes one: meta, the injected user messages, then the typed prompt (with its event), an answer. */
function codexRollout(file: string): void {
  const line = (ms: number, type: string, payload: object) => JSON.stringify({ timestamp: iso(ms), type, payload });
  const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lines = [
    line(MARCH, 'session_meta', {
      id: 'rollout-ctx',
      timestamp: iso(MARCH),
      cwd: workspace,
      originator: 'codex_exec',
      cli_version: '0.171.0',
      model_provider: 'local',
    }),
    line(MARCH + 10, 'response_item', user(`# AGENTS.md instructions for ${workspace}\n\n<INSTRUCTIONS>\nRun the tests.\n</INSTRUCTIONS>`)),
    line(MARCH + 20, 'response_item', user(`<environment_context>\n  <cwd>${workspace}</cwd>\n  <shell>bash</shell>\n</environment_context>`)),
    line(MARCH + 30, 'turn_context', { cwd: workspace, model: 'small', effort: 'low' }),
    line(MARCH + 40, 'response_item', user('Why does the parser fail?')),
    line(MARCH + 40, 'event_msg', { type: 'user_message', message: 'Why does the parser fail?' }),
    line(MARCH + 5000, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It reads past the end.' }] }),
    line(MARCH + 5001, 'event_msg', { type: 'token_count', info: { last_token_usage: { input_tokens: 100, cached_input_tokens: 0, output_tokens: 9 } } }),
  ];
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

test('Codex: its AGENTS.md and environment blocks are context of the first turn; the title and first prompt are what the person typed', async () => {
  const file = path.join(root, 'codex', 'sessions', '2026', '03', '03', 'rollout-2026-03-03T08-00-00-ctx.jsonl');
  codexRollout(file);
  const [outcome] = await importSessions(store, { from: 'auto', paths: [file], dryRun: false, wasmPath });
  assert.equal(outcome?.action, 'imported', outcome?.reason);
  const id = outcome.sessionId!;
  const state = store.get(id);
  assert.equal(state.title, 'Why does the parser fail?');
  assert.equal(state.turnCount, 1);
  assert.equal(store.index.get(id)?.firstPrompt, 'Why does the parser fail?');
  const users = messagesOf(id).filter((m) => m.message.role === 'user');
  assert.deepEqual(
    users.map((m) => injectedOf(m)?.kind ?? 'prompt'),
    ['agents-md', 'environment_context', 'prompt'],
  );
  assert.ok(users.every((m) => m.turn === 1));
  // Kept verbatim: the model is sent what Codex's model saw.
  assert.match(String((users[1]!.message.content as Array<{ text: string }>)[0]!.text), /^<environment_context>\n {2}<cwd>/);
  // Shown collapsed in the transcript, as context; in the Markdown export as details.
  const entries = toEntries(store.history(id).messages);
  assert.deepEqual(
    entries.map((e) => e.kind),
    ['context', 'context', 'user', 'assistant'],
  );
  assert.deepEqual(entries[1], {
    kind: 'context',
    key: users[1]!.id,
    by: 'codex',
    what: 'environment_context',
    text: (users[1]!.message.content as Array<{ text: string }>)[0]!.text,
  });
  assert.match(exportMarkdown(state, store.history(id)), /<details><summary>Context codex added \(environment_context\)<\/summary>/);
  // Search finds what the person said, not the environment block.
  assert.equal(store.index.search('parser', { limit: 10 }).length, 1);
  assert.equal(store.index.search('shell', { limit: 10 }).length, 0);
});

test('Claude Code: a caveat, a slash command and its output, a reminder and an interruption are context; the interrupted turn is cancelled', async () => {
  const projects = path.join(root, 'claude', 'projects', '-project');
  writeClaudeSession(projects, {
    id: 'cc-ctx',
    cwd: workspace,
    startMs: MARCH,
    before: [
      {
        type: 'user',
        isMeta: true,
        message: {
          role: 'user',
          content: '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>',
        },
      },
      {
        type: 'user',
        message: { role: 'user', content: '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>' },
      },
      { type: 'user', message: { role: 'user', content: '<local-command-stdout>Set model to sonnet</local-command-stdout>' } },
    ],
    turns: numberedTurns(2),
    after: [
      { type: 'user', message: { role: 'user', content: [{ type: 'text', text: '<system-reminder>The user opened notes.md</system-reminder>' }] } },
      { type: 'user', message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] } },
    ],
  });
  const [outcome] = await importSessions(store, { from: 'auto', paths: [projects], dryRun: false, wasmPath });
  assert.equal(outcome?.action, 'imported', outcome?.reason);
  const id = outcome.sessionId!;
  const state = store.get(id);
  assert.equal(state.title, 'Prompt 1', 'never the caveat or the command');
  const history = store.history(id);
  const users = history.messages.filter((m) => m.message.role === 'user');
  assert.deepEqual(
    users.map((m) => [m.turn, injectedOf(m)?.kind ?? 'prompt']),
    [
      [1, 'local-command-caveat'],
      [1, 'command-name'],
      [1, 'local-command-stdout'],
      [2, 'prompt'],
      [3, 'prompt'],
      [3, 'system-reminder'],
      [3, 'interrupted'],
    ],
  );
  assert.deepEqual(
    history.turnEnds.map((e) => e.outcome),
    ['completed', 'completed', 'cancelled'],
  );
  // braid show: the turn of the command has no prompt; the context is one line each.
  const shown = await braidIn(['--data-dir', path.join(root, 'data'), 'show', id], { cwd: workspace });
  assert.match(shown.out, /^turn 1$/m);
  assert.match(shown.out, /^ {2}\[context claude-code added: command-name, \d+ characters\]$/m);
  assert.match(shown.out, /^turn 2 {2}prompt \S+\n> Prompt 1$/m);
  assert.doesNotMatch(shown.out, /> <command-name>/);
});

test('an imported session keeps its own times: it lists below today’s work, and a re-import that appends moves it to the time of what it added', async () => {
  const projects = path.join(root, 'claude', 'projects', '-project');
  const file = writeClaudeSession(projects, { id: 'cc-old', cwd: workspace, turns: numberedTurns(2), startMs: MARCH });
  const today = await store.create({ workspaceDir: workspace, title: 'Today' });
  const [first] = await importSessions(store, { from: 'auto', paths: [file], dryRun: false, wasmPath });
  const imported = store.get(first!.sessionId!);
  assert.equal(imported.createdAt, MARCH);
  assert.equal(imported.updatedAt, MARCH + 60_000 + 1000, 'its last answer');
  assert.deepEqual(
    store.index.list({ limit: 10 }).map((s) => s.title),
    ['Today', 'Prompt 1'],
  );
  assert.ok(today.createdAt > imported.updatedAt);
  // The source grew by a turn in May: the session is updated then, created in March still.
  const MAY = Date.UTC(2026, 4, 1, 12, 0);
  writeClaudeSession(projects, { id: 'cc-old', cwd: workspace, turns: [...numberedTurns(2)], startMs: MARCH });
  const grown = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  const lastLine = JSON.parse(grown.at(-1)!) as { uuid: string };
  const next = (uuid: string, parent: string, type: string, message: object) =>
    JSON.stringify({ parentUuid: parent, isSidechain: false, cwd: workspace, sessionId: 'cc-old', type, uuid, timestamp: iso(MAY), message });
  fs.appendFileSync(
    file,
    `${next('u9', lastLine.uuid, 'user', { role: 'user', content: 'Prompt in May' })}\n${next('a9', 'u9', 'assistant', { id: 'msg_9', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], usage: {} })}\n`,
  );
  const [again] = await importSessions(store, { from: 'auto', paths: [file], dryRun: false, wasmPath });
  assert.equal(again?.action, 'appended', again?.reason);
  const after = store.get(imported.id);
  assert.equal(after.createdAt, MARCH);
  assert.equal(after.updatedAt, MAY);
  assert.equal(after.turnCount, 3);
});
