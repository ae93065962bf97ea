import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, beforeEach, test } from 'node:test';
import type { AssistantMessage, ToolResultMessage } from '@mariozechner/pi-ai';
import { importSessions, type ImportOutcome } from '../../../src/core/import/importer';
import type { SourceTool } from '../../../src/core/import/source';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { readWireLog } from '../../../src/core/wire/wireReader';
import type { AgentRecord, CompactionRecord, ImportedRecord, MessageRecord, TurnBeginRecord, UsageRecord, WireRecord } from '../../../src/core/wire/records';
import { replay } from '../../../src/core/wire/replay';
import { importSources } from '../../support/importFixtures';
import { openStore, tempDir } from '../../support/store';

// The importer over the project's fixtures of each format (test/fixtures/import/README.md): what
// each record maps to, branches as forks, subagents, compactions, re-imports and growing
// sources, and hostile files that must never stop a batch.
let src: ReturnType<typeof importSources>;
let store: SessionStore;
let storeRoot: string;
beforeEach(async () => {
  src = importSources();
  storeRoot = tempDir('braid-import-store-');
  store = await openStore(storeRoot);
});
afterEach(async () => {
  await store.close();
  src.cleanup();
  fs.rmSync(storeRoot, { recursive: true, force: true });
});
after(() => undefined);

const run = (from: SourceTool | 'auto', sub: string, dryRun = false) => importSessions(store, { from, paths: [path.join(src.sources, sub)], dryRun });
const records = (id: string, agent = 'main'): WireRecord[] => readWireLog(store.layout.agentLog(store.locate(id), agent)).records;
const messages = (id: string, agent = 'main') =>
  records(id, agent)
    .filter((r): r is MessageRecord => r.t === 'message')
    .map((r) => r.message);
const only = (outcomes: ImportOutcome[], action: string) => outcomes.filter((o) => o.action === action);
const claudeFile = () => path.join(src.sources, 'claude-code', '-workspace', '0f1e2d3c-0000-4000-8000-000000000001.jsonl');

test('a Claude Code session: turns, mapped tools with paired results, usage, thinking, image, compaction, title', async () => {
  const [outcome] = only(await run('claude-code', 'claude-code'), 'imported');
  assert.ok(outcome?.sessionId);
  const id = outcome.sessionId;
  const state = store.get(id);
  assert.equal(state.workspaceDir, src.workspace);
  assert.equal(state.title, 'Notes and TODOs');
  // The resumed branch: the first prompt, the prompt after the rewind, the one after the compaction.
  assert.equal(state.turnCount, 3);
  const all = records(id);
  assert.equal(all[0]?.t, 'agent');
  const head = all[1] as ImportedRecord;
  assert.equal(head.t, 'imported');
  assert.equal(head.tool, 'claude-code');
  assert.equal(head.size, fs.statSync(claudeFile()).size);
  assert.match(head.sha256, /^[0-9a-f]{64}$/);
  const msgs = messages(id);
  const answers = msgs.filter((m): m is AssistantMessage => m.role === 'assistant');
  // One answer split over three records is one message, with its thinking and both calls.
  const first = answers[0]!;
  assert.deepEqual(
    first.content.map((b) => b.type),
    ['thinking', 'toolCall', 'toolCall'],
  );
  const calls = first.content.filter((b) => b.type === 'toolCall');
  assert.deepEqual(calls[0], { type: 'toolCall', id: 'toolu_1', name: 'read_file', arguments: { path: 'notes.md' } });
  assert.deepEqual(calls[1], { type: 'toolCall', id: 'toolu_2', name: 'bash', arguments: { command: 'wc -l notes.md', timeout_ms: 5000 } });
  assert.equal(first.model, 'claude-sonnet-4-5');
  assert.equal(first.usage.cacheRead, 1000);
  assert.equal(first.usage.output, 42, 'the last record of an answer has its final output count');
  // Both results follow the answer, the parallel one that hung off another record included.
  const results = msgs.filter((m): m is ToolResultMessage => m.role === 'toolResult');
  assert.deepEqual(
    results.slice(0, 2).map((r) => [r.toolCallId, r.toolName]),
    [
      ['toolu_1', 'read_file'],
      ['toolu_2', 'bash'],
    ],
  );
  const afterAnswer = msgs.indexOf(first);
  assert.equal(msgs[afterAnswer + 1], results[0]);
  // An unknown tool is kept as it was; Edit maps with Braid's argument names.
  const edit = answers.flatMap((a) => a.content).filter((b) => b.type === 'toolCall');
  assert.ok(
    edit.some((c) => c.name === 'edit_file' && JSON.stringify(c.arguments) === JSON.stringify({ path: 'notes.md', old_text: 'two', new_text: 'three' })),
  );
  assert.ok(edit.some((c) => c.name === 'WebFetch' && (c.arguments as { url?: string }).url === 'https://example.com'));
  // The prompt's image is a blob, named in the log.
  const prompt = msgs.find((m) => m.role === 'user' && Array.isArray(m.content) && m.content.some((b) => b.type === 'image'))!;
  const image = (prompt.content as unknown as Array<{ type: string; blob?: string; data?: string }>).find((b) => b.type === 'image')!;
  assert.equal(image.data, undefined);
  assert.ok(fs.existsSync(path.join(store.locate(id), 'blobs', image.blob!.slice(0, 2), image.blob!)));
  // The meta line is kept in the first turn, not a turn of its own.
  const begins = all.filter((r): r is TurnBeginRecord => r.t === 'turn_begin');
  assert.deepEqual(
    begins.map((b) => b.turn),
    [1, 2, 3],
  );
  assert.equal(begins[0]!.model?.id, 'claude-sonnet-4-5');
  assert.deepEqual(
    begins.map((b) => b.branch),
    ['main', 'main', 'main'],
    'each turn has the branch its lines name',
  );
  const summary = store.summaryAt(store.locate(id));
  assert.deepEqual([summary.branch, summary.branches], ['main', ['main']]);
  assert.equal(store.index.get(id)?.branch, 'main', 'the index lists it by its branch');
  // Usage: a record per answer (the main agent's and the subagent's), with cache tokens.
  const usage = all.filter((r): r is UsageRecord => r.t === 'usage');
  assert.equal(usage.filter((u) => !u.purpose).length, answers.length);
  assert.equal(usage.filter((u) => u.purpose?.startsWith('subagent:')).length, 2);
  assert.ok(state.usage.cacheRead > 0 && state.usage.cost > 0, 'priced from the catalogue');
  // The compaction: its summary, the history going on with the next prompt; the messages before it kept.
  const compaction = all.find((r): r is CompactionRecord => r.t === 'compaction')!;
  assert.match(compaction.summary, /it now says three/);
  const next = all.find((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).id === compaction.firstKeptMessageId)!;
  assert.equal(next.message.content, 'Ask a subagent to list the TODOs');
  const history = replay(readWireLog(store.layout.agentLog(store.locate(id))).records);
  assert.ok(history.messages.some((m) => m.message.role === 'user' && JSON.stringify(m.message.content).includes('Read notes.md')));
});

test('a Claude Code subagent gets its own log, and the task result names it', async () => {
  const [outcome] = only(await run('claude-code', 'claude-code'), 'imported');
  const id = outcome!.sessionId!;
  const task = messages(id).find((m): m is ToolResultMessage => m.role === 'toolResult' && m.toolName === 'task')!;
  const agentId = (task.details as { agentId: string }).agentId;
  const agent = store.get(id).agents.find((a) => a.id === agentId);
  assert.ok(agent, 'the session lists the subagent');
  const sub = records(id, agentId);
  assert.equal((sub[0] as AgentRecord).parentAgentId, 'main');
  const subMessages = messages(id, agentId);
  assert.equal(subMessages[0]?.content, 'Find every TODO in the repo');
  const grep = (subMessages[1] as AssistantMessage).content.find((b) => b.type === 'toolCall')!;
  assert.deepEqual(grep, { type: 'toolCall', id: 'toolu_s1', name: 'grep', arguments: { pattern: 'TODO', path: '.', include: '*.md' } });
  assert.equal(sub.filter((r) => r.t === 'turn_begin').length, 0, "a subagent's log has no turns of its own");
});

test('the other branch of a rewind becomes a fork of the resumed one, sharing the turns before it', async () => {
  const [outcome] = only(await run('claude-code', 'claude-code'), 'imported');
  assert.equal(outcome!.forks?.length, 1);
  const fork = store.get(outcome!.forks![0]!);
  assert.deepEqual(fork.forkedFrom, { sessionId: outcome!.sessionId, turn: 1 });
  assert.equal(fork.title, 'Notes and TODOs (other branch)');
  const prompts = messages(fork.id)
    .filter((m) => m.role === 'user' && typeof m.content === 'string')
    .map((m) => m.content);
  assert.ok(prompts.includes('Now write summary.md'));
  assert.ok(!prompts.includes('Instead, edit notes.md to say three'));
  // The shared turn's calls count once: the fork's copies of them come before its `forked` record.
  const all = records(fork.id);
  const forkedAt = all.findIndex((r) => r.t === 'forked');
  assert.ok(forkedAt > all.findIndex((r) => r.t === 'turn_end'));
});

test('importing again: unchanged sources are skipped; a grown one gets only what it added', async () => {
  const first = only(await run('claude-code', 'claude-code'), 'imported')[0]!;
  const again = await run('claude-code', 'claude-code');
  assert.deepEqual(
    again.map((o) => o.action),
    ['unchanged'],
  );
  const id = first.sessionId!;
  const before = messages(id).length;
  // The source tool went on: a new prompt and its answer.
  const line = (o: object) => `${JSON.stringify(o)}\n`;
  const base = { isSidechain: false, cwd: src.workspace, sessionId: '0f1e2d3c-0000-4000-8000-000000000001' };
  fs.appendFileSync(
    claudeFile(),
    line({ ...base, type: 'user', uuid: 'u5', parentUuid: 'a9', timestamp: '2026-03-01T11:00:00.000Z', message: { role: 'user', content: 'One more thing' } }),
  );
  fs.appendFileSync(
    claudeFile(),
    line({
      ...base,
      type: 'assistant',
      uuid: 'a10',
      parentUuid: 'u5',
      timestamp: '2026-03-01T11:00:01.000Z',
      message: {
        id: 'msg_H',
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        content: [{ type: 'text', text: 'Sure.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 2 },
      },
    }),
  );
  const grown = await run('claude-code', 'claude-code');
  assert.equal(grown[0]!.action, 'appended');
  assert.equal(grown[0]!.messages, 2);
  assert.equal(store.get(id).turnCount, 4);
  assert.equal(messages(id).length, before + 2);
  // The last turn grew (an answer went on): it is written again after a conversation-only rewind of it; nothing doubles.
  fs.appendFileSync(
    claudeFile(),
    line({
      ...base,
      type: 'assistant',
      uuid: 'a11',
      parentUuid: 'a10',
      timestamp: '2026-03-01T11:00:02.000Z',
      message: {
        id: 'msg_I',
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        content: [{ type: 'text', text: 'Done too.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 3 },
      },
    }),
  );
  const usageBefore = store.get(id).usage.output;
  assert.equal((await run('claude-code', 'claude-code'))[0]!.action, 'appended');
  const history = replay(readWireLog(store.layout.agentLog(store.locate(id))).records);
  const ids = history.messages.map((m) => m.id);
  assert.equal(new Set(ids).size, ids.length, 'no message twice in the history');
  assert.equal(store.get(id).turnCount, 4);
  assert.equal(store.get(id).usage.output, usageBefore + 3, 'the rewritten turn’s call counted once');
  assert.ok(records(id).some((r) => r.t === 'rewind' && (r as { files: boolean }).files === false));
  assert.deepEqual(
    (await run('claude-code', 'claude-code')).map((o) => o.action),
    ['unchanged'],
  );
});

test('a session continued in Braid is not appended to; a deleted one is not imported again', async () => {
  const first = only(await run('claude-code', 'claude-code'), 'imported')[0]!;
  fs.appendFileSync(
    claudeFile(),
    `${JSON.stringify({ type: 'user', uuid: 'u9', parentUuid: 'a9', cwd: src.workspace, message: { role: 'user', content: 'later' } })}\n`,
  );
  const dir = store.locate(first.sessionId!);
  // A turn of Braid's own after the imported ones.
  fs.appendFileSync(store.layout.agentLog(dir), `${JSON.stringify({ v: 1, t: 'turn_begin', turn: 4, promptId: 'p', model: null, ts: Date.now() })}\n`);
  const outcome = (await run('claude-code', 'claude-code'))[0]!;
  assert.equal(outcome.action, 'skipped');
  assert.match(outcome.reason!, /continued or rewound in Braid/);
  await store.delete(first.sessionId!);
  const afterDelete = (await run('claude-code', 'claude-code'))[0]!;
  assert.equal(afterDelete.action, 'skipped');
  assert.match(afterDelete.reason!, /in the trash/);
});

test('--dry-run writes nothing and says what would happen', async () => {
  const outcomes = await run('auto', '.', true);
  assert.ok(outcomes.some((o) => o.action === 'imported' && o.dryRun));
  assert.equal(store.index.count({}), 0);
  assert.deepEqual(
    fs.readdirSync(store.layout.sessionsDir).filter((d) => !d.startsWith('.')),
    [],
  );
});

test('a Codex rollout: injected context kept in its turn, shell and apply_patch mapped, token counts, compaction, an aborted turn, a child thread as subagent', async () => {
  const outcomes = await run('codex', 'codex');
  const main = only(outcomes, 'imported');
  assert.equal(main.length, 1);
  assert.match(only(outcomes, 'skipped')[0]!.reason!, /subagent of/);
  const id = main[0]!.sessionId!;
  const state = store.get(id);
  assert.equal(state.turnCount, 2);
  const msgs = messages(id);
  const answers = msgs.filter((m): m is AssistantMessage => m.role === 'assistant');
  const shell = answers[0]!.content.find((b) => b.type === 'toolCall')!;
  assert.deepEqual(shell, { type: 'toolCall', id: 'call_1', name: 'bash', arguments: { command: 'ls' } });
  assert.equal(answers[0]!.content[0]!.type, 'thinking');
  assert.equal(answers[0]!.usage.input, 500, 'input without the cached part');
  assert.equal(answers[0]!.usage.cacheRead, 1000);
  const patch = answers[1]!.content.find((b) => b.type === 'toolCall')!;
  assert.deepEqual(patch.arguments, { path: 'hello.txt', content: 'hello\n' });
  assert.equal(patch.name, 'write_file');
  const all = records(id);
  const begins = all.filter((r): r is TurnBeginRecord => r.t === 'turn_begin');
  assert.deepEqual(
    begins.map((b) => [b.model?.id, b.model?.thinking]),
    [
      ['gpt-5.2-codex', 'medium'],
      ['gpt-5.2-codex', 'high'],
    ],
  );
  assert.deepEqual(
    begins.map((b) => b.branch),
    ['main', 'main'],
    "session_meta's branch, on each turn",
  );
  // The environment context went to the model as a user message of the first turn, before the prompt.
  assert.match(JSON.stringify(msgs[0]!.content), /environment_context/);
  assert.equal(
    all
      .filter((r) => r.t === 'turn_end')
      .map((r) => (r as { outcome: string }).outcome)
      .join(),
    'completed,cancelled',
  );
  const compaction = all.find((r): r is CompactionRecord => r.t === 'compaction')!;
  assert.match(compaction.summary, /added hello.txt/);
  const child = state.agents.find((a) => a.parentId === 'main')!;
  assert.equal(child.title, 'Worker');
  assert.deepEqual(
    messages(id, child.id).map((m) => m.role),
    ['user', 'assistant'],
  );
});

test('a pi session: kernel messages as they are, model and thinking changes, the branch pi resumes and the other as a fork, v1 compaction by index', async () => {
  const outcomes = only(await run('pi', 'pi'), 'imported');
  const v3 = outcomes.find((o) => o.sourceId === 'pi-sess-3')!;
  const state = store.get(v3.sessionId!);
  assert.equal(state.title, 'Notes in pi');
  assert.equal(state.turnCount, 2, 'the resumed branch: the first prompt and "Count words instead"');
  const begins = records(v3.sessionId!).filter((r): r is TurnBeginRecord => r.t === 'turn_begin');
  assert.deepEqual(begins[0]!.model, { provider: 'anthropic', id: 'claude-sonnet-4-5', thinking: 'high' });
  const msgs = messages(v3.sessionId!);
  const call = (msgs[1] as AssistantMessage).content.find((b) => b.type === 'toolCall')!;
  assert.deepEqual(call, { type: 'toolCall', id: 'tc1', name: 'read_file', arguments: { path: 'notes.md' } });
  assert.equal((msgs[1] as AssistantMessage).usage.cost.total, 0.002, "pi's recorded cost");
  assert.equal(v3.forks?.length, 1);
  const fork = store.get(v3.forks![0]!);
  // Its first turn holds the command the user ran after the answer too: no turn is shared whole.
  assert.equal(fork.forkedFrom?.turn, 0);
  const forkMsgs = messages(fork.id);
  assert.ok(
    forkMsgs.some((m) => m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('Ran `ls`')),
    "the user's own command",
  );
  const compaction = records(fork.id).find((r): r is CompactionRecord => r.t === 'compaction')!;
  assert.equal(
    records(fork.id).find((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).id === compaction.firstKeptMessageId)?.message.content,
    'Write a haiku',
  );
  const v1 = outcomes.find((o) => o.sourceId === 'pi-sess-1')!;
  const v1Records = records(v1.sessionId!);
  assert.equal(store.get(v1.sessionId!).turnCount, 3);
  const kept = v1Records.find((r): r is CompactionRecord => r.t === 'compaction')!;
  assert.equal(v1Records.find((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).id === kept.firstKeptMessageId)?.message.content, 'second');
  assert.equal((messages(v1.sessionId!).at(-1) as AssistantMessage).stopReason, 'aborted');
});

test('an opencode storage: a tool part is a call and its result, a failed one an error, a child session a subagent', async () => {
  const outcomes = await run('opencode', 'opencode');
  const main = only(outcomes, 'imported');
  assert.equal(main.length, 1);
  const id = main[0]!.sessionId!;
  const state = store.get(id);
  assert.equal(state.title, 'Fix the README');
  const msgs = messages(id);
  assert.deepEqual(
    msgs.map((m) => m.role),
    ['user', 'assistant', 'toolResult', 'toolResult'],
  );
  const answer = msgs[1] as AssistantMessage;
  assert.deepEqual(
    answer.content.map((b) => b.type),
    ['thinking', 'toolCall', 'toolCall', 'text'],
  );
  assert.deepEqual(answer.content[1], {
    type: 'toolCall',
    id: 'call_oc1',
    name: 'edit_file',
    arguments: { path: 'README.md', old_text: 'teh', new_text: 'the' },
  });
  assert.equal(answer.usage.cacheRead, 2000);
  assert.equal(answer.usage.cost.total, 0.0123);
  assert.equal((msgs[3] as ToolResultMessage).isError, true);
  assert.match(JSON.stringify(msgs[3]!.content), /network down/);
  const child = state.agents.find((a) => a.parentId === 'main')!;
  assert.equal(messages(id, child.id)[0]?.content.toString(), [{ type: 'text', text: 'Summarize docs/' }].toString());
});

test('hostile files: each is reported with what was left out, none stops the batch, and no source is changed', async () => {
  const hostile = path.join(src.sources, 'hostile');
  const digests = () => fs.readdirSync(hostile).map((f) => fs.readFileSync(path.join(hostile, f)).toString('base64'));
  const before = digests();
  const outcomes = await run('auto', 'hostile');
  assert.deepEqual(digests(), before);
  assert.equal(only(outcomes, 'failed').length, 0, JSON.stringify(outcomes, null, 1));
  const claude = outcomes.find((o) => o.tool === 'claude-code')!;
  assert.equal(claude.action, 'imported');
  assert.match(claude.skippedLines!, /torn last line/);
  assert.match(claude.skippedLines!, /not JSON/);
  assert.match(claude.skippedLines!, /brand-new-record-type/);
  const msgs = messages(claude.sessionId!);
  // Both objects of the joined line, the orphan's branch (the newest) with its mojibake, the bytes that are not UTF-8 as U+FFFD.
  assert.ok(msgs.some((m) => m.content === 'orphan â†’ mojibake'));
  assert.ok(msgs.some((m) => typeof m.content === 'string' && m.content.includes('\ufffd')));
  const codex = outcomes.find((o) => o.tool === 'codex')!;
  assert.ok(['imported', 'skipped'].includes(codex.action));
  // A file without a pi header is no pi session (nor any other tool's); damaged messages are left out and counted.
  const pi = outcomes.filter((o) => o.tool === 'pi');
  assert.deepEqual(
    pi.map((o) => path.basename(o.file)),
    ['pi-damaged.jsonl'],
  );
  assert.match(pi[0]!.skippedLines!, /1 × toolResult messages not in pi's shape; 1 × messages whose content is damaged/);
  assert.deepEqual(
    messages(pi[0]!.sessionId!).map((m) => m.role),
    ['user', 'assistant'],
  );
  const rewritten = readWireLog(store.layout.agentLog(store.locate(pi[0]!.sessionId!)));
  assert.equal(rewritten.report.badLines, 0, 'every line Braid wrote reads back');
});

const REAL = path.resolve(process.cwd(), '..', 'shared', 'real-sessions');

test(
  'real sessions of the four tools import without a failure (when ../shared/real-sessions is present)',
  { skip: !fs.existsSync(REAL) && 'skipped: ../shared/real-sessions is not here (the fixtures above cover every format)' },
  async () => {
    const outcomes = await importSessions(store, { from: 'auto', paths: [REAL], dryRun: false });
    assert.equal(only(outcomes, 'failed').length, 0, JSON.stringify(only(outcomes, 'failed')));
    for (const tool of ['claude-code', 'codex', 'pi', 'opencode'])
      assert.ok(
        outcomes.some((o) => o.tool === tool && o.action === 'imported'),
        tool,
      );
  },
);

test('a rewind in the source tool after the import: the branch it resumes now comes in as a fork, the imported session stays', async () => {
  const first = only(await run('claude-code', 'claude-code'), 'imported')[0]!;
  const base = { isSidechain: false, cwd: src.workspace, sessionId: '0f1e2d3c-0000-4000-8000-000000000001' };
  const line = (o: object) => `${JSON.stringify(o)}\n`;
  // Back to after the first answer, and a new prompt there: Claude Code resumes this branch now.
  fs.appendFileSync(
    claudeFile(),
    line({
      ...base,
      type: 'user',
      uuid: 'u6',
      parentUuid: 'a4',
      timestamp: '2026-03-01T12:00:00.000Z',
      message: { role: 'user', content: 'Start over: rename notes.md' },
    }),
  );
  fs.appendFileSync(
    claudeFile(),
    line({
      ...base,
      type: 'assistant',
      uuid: 'a12',
      parentUuid: 'u6',
      timestamp: '2026-03-01T12:00:01.000Z',
      message: {
        id: 'msg_J',
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        content: [{ type: 'text', text: 'Renamed.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    }),
  );
  const [again] = await run('claude-code', 'claude-code');
  assert.equal(again!.action, 'skipped');
  assert.match(again!.reason!, /rewound the conversation since the import/);
  assert.equal(again!.forks?.length, 1, 'only the new branch: the imported one and the older fork exist already');
  const fork = store.get(again!.forks![0]!);
  assert.deepEqual(fork.forkedFrom, { sessionId: first.sessionId, turn: 1 });
  assert.deepEqual(
    messages(fork.id)
      .filter((m) => m.role === 'user' && typeof m.content === 'string')
      .map((m) => m.content)
      .slice(-1),
    ['Start over: rename notes.md'],
  );
  assert.equal(store.get(first.sessionId!).turnCount, 3, 'the imported session is as it was');
  assert.deepEqual(
    (await run('claude-code', 'claude-code')).map((o) => o.forks?.length),
    [0],
  );
});
