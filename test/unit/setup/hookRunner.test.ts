import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { SessionHooks } from '../../../src/core/setup/hooks/sessionHooks';
import { hookInputs, recordingHook, userHook } from '../../support/hooks';
import { tempDir } from '../../support/store';

// One hook process per event, as Claude Code runs it: the event's JSON on stdin, exit 2 blocks,
// JSON output decides, other failures block nothing.
const dir = tempDir('braid-hook-runner-');
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const info = { sessionId: 'ses_test', transcriptPath: '/data/wire.jsonl', workspaceDir: dir };

test('each event gets the common fields and its own on stdin', async () => {
  const cases: [Parameters<SessionHooks['run']>[0], Record<string, unknown>, string | undefined][] = [
    ['SessionStart', { source: 'startup' }, undefined],
    ['SessionEnd', { reason: 'other' }, undefined],
    ['UserPromptSubmit', { prompt: 'hello' }, undefined],
    ['PreToolUse', { tool_input: { command: 'ls' } }, 'bash'],
    ['PostToolUse', { tool_input: { command: 'ls' }, tool_response: { content: 'a', is_error: false } }, 'bash'],
    ['Stop', { stop_hook_active: false }, undefined],
    ['SubagentStop', { stop_hook_active: true }, undefined],
    ['PreCompact', { trigger: 'manual', custom_instructions: '' }, undefined],
    ['Notification', { message: 'Braid needs your permission to use Bash' }, undefined],
  ];
  for (const [event, fields, toolName] of cases) {
    const hooks = new SessionHooks([userHook(event, recordingHook(dir, event))]);
    await hooks.run(event, info, fields, toolName ? { toolName } : {});
    const [input] = hookInputs(dir, event);
    assert.deepEqual(input, {
      session_id: 'ses_test',
      transcript_path: '/data/wire.jsonl',
      cwd: dir,
      hook_event_name: event,
      ...(toolName ? { tool_name: 'Bash' } : {}),
      ...fields,
    });
  }
});

test('exit 2 blocks with stderr for every event; exit 0 with plain stdout is context only where the event takes it', async () => {
  for (const event of ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SubagentStop'] as const) {
    const hooks = new SessionHooks([userHook(event, recordingHook(dir, `block-${event}`, { code: 2, stderr: `no ${event}` }))]);
    const outcome = await hooks.run(event, info, {}, event.endsWith('ToolUse') ? { toolName: 'bash' } : {});
    assert.equal(outcome.block, `no ${event}`);
  }
  const said = (event: 'SessionStart' | 'UserPromptSubmit' | 'PostToolUse') =>
    new SessionHooks([userHook(event, 'echo plain words')]).run(event, info, {}, event === 'PostToolUse' ? { toolName: 'bash' } : {});
  assert.deepEqual((await said('SessionStart')).context, ['plain words']);
  assert.deepEqual((await said('UserPromptSubmit')).context, ['plain words']);
  assert.deepEqual((await said('PostToolUse')).context, []);
});

test('JSON output: decision, permissionDecision, additionalContext, continue false', async () => {
  const json = (value: unknown) => `echo '${JSON.stringify(value)}'`;
  const run = (command: string, event: 'PreToolUse' | 'PostToolUse' | 'UserPromptSubmit' | 'Stop' = 'PreToolUse') =>
    new SessionHooks([userHook(event, command)]).run(event, info, {}, event.endsWith('ToolUse') ? { toolName: 'write_file' } : {});
  assert.equal((await run(json({ decision: 'block', reason: 'not now' }))).block, 'not now');
  assert.equal((await run(json({ decision: 'approve' }))).permission, 'allow');
  const deny = await run(json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no writes' } }));
  assert.equal(deny.permission, 'deny');
  assert.equal(deny.block, 'no writes');
  const ask = await run(json({ hookSpecificOutput: { permissionDecision: 'ask' } }));
  assert.equal(ask.permission, 'ask');
  assert.equal(ask.block, undefined);
  assert.deepEqual((await run(json({ hookSpecificOutput: { additionalContext: 'lint is clean' } }), 'PostToolUse')).context, ['lint is clean']);
  assert.deepEqual((await run(json({ hookSpecificOutput: { additionalContext: 'today is Friday' } }), 'UserPromptSubmit')).context, ['today is Friday']);
  assert.equal((await run(json({ continue: false, stopReason: 'enough' }), 'Stop')).stop, 'enough');
});

test('hooks of one event run in parallel; the strictest permission wins; the matcher selects by tool name', async () => {
  // Each of the two hooks waits (up to 20 s) for the other to have started: run one after the
  // other, the first would wait in vain and answer nothing.
  const meet = (me: string, other: string, decision: string) =>
    `touch '${path.join(dir, me)}'; for i in $(seq 200); do [ -e '${path.join(dir, other)}' ] && break; sleep 0.1; done; ` +
    `[ -e '${path.join(dir, other)}' ] && touch '${path.join(dir, `${me}-met`)}' && echo '{"hookSpecificOutput":{"permissionDecision":"${decision}"}}'`;
  const hooks = new SessionHooks([
    userHook('PreToolUse', meet('a-started', 'b-started', 'allow'), { matcher: 'Write|Edit' }),
    userHook('PreToolUse', meet('b-started', 'a-started', 'ask'), { matcher: 'write_file' }),
    userHook('PreToolUse', `echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'`, { matcher: 'Bash' }),
  ]);
  const outcome = await hooks.run('PreToolUse', info, {}, { toolName: 'write_file' });
  assert.ok(fs.existsSync(path.join(dir, 'a-started-met')) && fs.existsSync(path.join(dir, 'b-started-met')), 'each hook saw the other running');
  assert.equal(outcome.permission, 'ask');
  assert.equal(hooks.selected('PreToolUse', { toolName: 'bash' }).length, 1);
  assert.equal(hooks.selected('PreToolUse', { toolName: 'read_file' }).length, 0);
  assert.equal(
    new SessionHooks([userHook('PreToolUse', 'true', { matcher: 'mcp__github__.*' })]).selected('PreToolUse', { toolName: 'mcp__github__issue' }).length,
    1,
  );
});

test('a hook past its timeout is stopped, and a failing hook blocks nothing: both are warnings', async () => {
  const started = Date.now();
  const slow = await new SessionHooks([userHook('PreToolUse', 'sleep 30', { timeoutSec: 0.5 })]).run('PreToolUse', info, {}, { toolName: 'bash' });
  assert.ok(Date.now() - started < 10_000, 'the slow hook was not stopped');
  assert.equal(slow.block, undefined);
  assert.match(slow.warnings[0]!, /did not finish within 0.5 s/);
  const failing = await new SessionHooks([userHook('UserPromptSubmit', 'echo broken >&2; exit 1')]).run('UserPromptSubmit', info, { prompt: 'x' });
  assert.equal(failing.block, undefined);
  assert.match(failing.warnings[0]!, /exited with 1: broken/);
});

test('hooks get the project folder in CLAUDE_PROJECT_DIR and BRAID_PROJECT_DIR', async () => {
  const outcome = await new SessionHooks([userHook('SessionStart', 'echo "$CLAUDE_PROJECT_DIR|$BRAID_PROJECT_DIR"')]).run('SessionStart', info, {
    source: 'startup',
  });
  assert.deepEqual(outcome.context, [`${dir}|${dir}`]);
});
