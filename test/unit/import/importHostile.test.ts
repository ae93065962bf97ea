import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { braidIn } from '../../support/cli';
import { numberedTurns, writeClaudeSession } from '../../support/sourceSessions';
import { tempDir } from '../../support/store';

// Source files a stranger wrote: ids that name other files, links, FIFOs and devices where a log
// belongs, names on the command line that are not sessions, values no tool writes. Each is read
// or refused with its reason, and nothing outside the source's folder reaches the store.
let root: string;
let data: string;
let workspace: string;
let projects: string;
beforeEach(() => {
  root = tempDir('braid-import-hostile-');
  data = path.join(root, 'data');
  workspace = path.join(root, 'project');
  projects = path.join(root, 'claude', 'projects', '-project');
  fs.mkdirSync(workspace, { recursive: true });
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const braid = (args: string[]) => braidIn(['--data-dir', data, ...args], { cwd: workspace });
const MARCH = Date.UTC(2026, 2, 1, 10, 0);

/** Every byte the store holds, as one string: what a secret must never be found in. */
function storeText(): string {
  const all: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() && !e.name.endsWith('.sqlite')) all.push(fs.readFileSync(full, 'latin1'));
    }
  };
  walk(data);
  return all.join('\n');
}

/** A Task call whose result names `agentId` (Claude Code 2.1's toolUseResult.agentId). */
function taskCall(agentId: string): object[] {
  return [
    {
      type: 'assistant',
      message: {
        model: 'claude-sonnet-4-5',
        id: 'msg_task',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_t', name: 'Task', input: { description: 'look', prompt: 'look around' } }],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    },
    {
      type: 'user',
      toolUseResult: { agentId, description: 'look' },
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_t', content: 'done' }] },
    },
  ];
}

test("an agent id or a session id that names another file reads nothing outside the session's folder", async () => {
  const secret = path.join(root, 'secret.jsonl');
  const line = { type: 'user', uuid: 's1', parentUuid: null, sessionId: 'x', cwd: workspace, message: { role: 'user', content: 'TOP-SECRET-CONTENT' } };
  fs.writeFileSync(secret, `${JSON.stringify(line)}\n`);
  // `agent-<id>.jsonl` joined under the session's subagents folder (or beside the session) would name root/secret.jsonl.
  const ups = path.relative(path.join(projects, 'sess-1', 'subagents'), root).split(path.sep).length;
  writeClaudeSession(projects, { id: 'sess-1', cwd: workspace, turns: numberedTurns(1), startMs: MARCH, after: taskCall(`${'../'.repeat(ups + 1)}secret`) });
  writeClaudeSession(projects, { id: 'sess-2', cwd: workspace, turns: numberedTurns(1), startMs: MARCH, after: taskCall(`${'../'.repeat(ups)}secret`) });
  const run = await braid(['import', path.join(root, 'claude', 'projects')]);
  assert.equal(run.code, 0, run.out + run.err);
  assert.match(run.out, /2 imported/);
  assert.equal(storeText().includes('TOP-SECRET-CONTENT'), false, 'the file outside was not read into the store');
});

test('a subagent log that is a FIFO, or a link to a device or to a file outside, is not read; the import ends and says so', async () => {
  writeClaudeSession(projects, {
    id: 'sess-3',
    cwd: workspace,
    turns: numberedTurns(2),
    startMs: MARCH,
    after: [...taskCall('fifo'), ...taskCall('zero'), ...taskCall('outside')],
  });
  const subagents = path.join(projects, 'sess-3', 'subagents');
  fs.mkdirSync(subagents, { recursive: true });
  assert.equal(spawnSync('mkfifo', [path.join(subagents, 'agent-fifo.jsonl')]).status, 0);
  fs.symlinkSync('/dev/zero', path.join(subagents, 'agent-zero.jsonl'));
  fs.writeFileSync(path.join(root, 'outside.jsonl'), `${JSON.stringify({ type: 'user', uuid: 'o', message: { role: 'user', content: 'OUTSIDE-TEXT' } })}\n`);
  fs.symlinkSync(path.join(root, 'outside.jsonl'), path.join(subagents, 'agent-outside.jsonl'));
  const started = Date.now();
  const run = await braid(['import', path.join(projects, 'sess-3.jsonl')]);
  assert.ok(Date.now() - started < 20_000, 'it ended (a FIFO or /dev/zero read would not)');
  assert.equal(run.code, 0, run.out + run.err);
  assert.match(run.out, /imported +claude-code/);
  assert.match(run.out, /agent-fifo\.jsonl is a named pipe/);
  assert.match(run.out, /agent-zero\.jsonl is a symbolic link/);
  assert.match(run.out, /agent-outside\.jsonl is a symbolic link/);
  assert.equal(storeText().includes('OUTSIDE-TEXT'), false);
  const size = fs.statSync(data).size; // the folder exists and holds a session, not a flood of bytes
  assert.ok(size >= 0);
});

test('paths named on the command line are imported or refused, each with its reason, and then the run exits 1', async () => {
  const session = writeClaudeSession(projects, { id: 'sess-ok', cwd: workspace, turns: numberedTurns(1), startMs: MARCH });
  const agentLog = path.join(projects, 'sess-ok', 'subagents', 'agent-a1.jsonl');
  fs.mkdirSync(path.dirname(agentLog), { recursive: true });
  fs.copyFileSync(session, agentLog);
  const link = path.join(root, 'link.jsonl');
  fs.symlinkSync(session, link);
  const notes = path.join(root, 'notes.jsonl');
  fs.writeFileSync(notes, '{"hello": "world"}\n');
  const fifo = path.join(root, 'pipe.jsonl');
  spawnSync('mkfifo', [fifo]);
  const empty = path.join(root, 'empty-folder');
  fs.mkdirSync(empty);
  const missing = path.join(root, 'missing.jsonl');
  const run = await braid(['import', session, agentLog, link, notes, fifo, empty, missing]);
  assert.equal(run.code, 1, 'refused paths fail the run');
  assert.match(run.out, /imported +claude-code .*sess-ok\.jsonl/);
  const refusal = (file: string) => new RegExp(`refused +(claude-code )?${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n +(.+)`).exec(run.out)?.[2];
  assert.match(refusal(agentLog) ?? '', /a subagent's log: it is imported with its session, .*sess-ok\.jsonl/);
  assert.match(refusal(link) ?? '', /a symbolic link; links are not followed/);
  assert.match(refusal(notes) ?? '', /not a session file of Claude Code, Codex, pi, opencode/);
  assert.match(refusal(fifo) ?? '', /a named pipe/);
  assert.match(refusal(empty) ?? '', /no session of Claude Code, Codex, pi, opencode in it/);
  assert.match(refusal(missing) ?? '', /no such file or folder/);
  assert.match(run.out, /1 imported, .* 6 refused, 0 failed/);
  const json = await braid(['import', '--json', missing]);
  assert.equal(json.code, 1);
  assert.deepEqual(
    (JSON.parse(json.out) as { outcomes: Array<{ action: string; file: string }> }).outcomes.map((o) => [o.action, o.file]),
    [['refused', missing]],
  );
});

test('a title of several lines and times in the future are read as Braid reads its own: braid doctor finds nothing', async () => {
  const future = Date.UTC(2999, 0, 1);
  writeClaudeSession(projects, {
    id: 'sess-odd',
    cwd: workspace,
    turns: numberedTurns(2),
    startMs: future,
    after: [{ type: 'custom-title', customTitle: 'Line one\nline two\r\n\tline three', sessionId: 'sess-odd' }],
  });
  const run = await braid(['import', projects]);
  assert.equal(run.code, 0, run.out + run.err);
  const [session] = JSON.parse((await braid(['list', '--json'])).out) as Array<{ title: string; createdAt: string; updatedAt: string }>;
  assert.equal(session!.title, 'Line one line two line three');
  assert.ok(Date.parse(session!.createdAt) <= Date.now() && Date.parse(session!.updatedAt) <= Date.now(), 'no time in the future');
  const doctor = await braid(['doctor']);
  assert.equal(doctor.code, 0, doctor.out);
  assert.doesNotMatch(doctor.out, /warning|error/i);
});
