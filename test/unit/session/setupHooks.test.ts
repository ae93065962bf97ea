import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Session } from '../../../src/core/session/session';
import { approveProjectSettings } from '../../../src/core/setup/permissions/settingsApproval';
import { readSetupSources } from '../../../src/core/setup/sources';
import type { MessageRecord, WireRecord } from '../../../src/core/wire/records';
import { hookInputs, recordingHook } from '../../support/hooks';
import { fauxAssistantMessage, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';

// The user's hooks and rules at work in a session: every event fired at its moment with a real
// hook process, blocks and decisions taking effect, rules deciding each tool call.

type Hooks = Record<string, { matcher?: string; command: string }[]>;

/** A session whose user settings file holds these hooks and permissions (and the project's files, if any). */
async function openWith(
  f: SessionFixture,
  settings: { hooks?: Hooks; permissions?: unknown },
  options: { trusted?: boolean; sessionId?: string } = {},
): Promise<Session> {
  const config = path.join(f.root, 'config');
  fs.mkdirSync(path.join(config, 'braid'), { recursive: true });
  const hooks = Object.fromEntries(
    Object.entries(settings.hooks ?? {}).map(([e, list]) => [
      e,
      list.map((h) => ({ matcher: h.matcher ?? '', hooks: [{ type: 'command', command: h.command }] })),
    ]),
  );
  fs.writeFileSync(path.join(config, 'braid', 'settings.json'), JSON.stringify({ hooks, permissions: settings.permissions ?? {} }));
  const setup = readSetupSources({ workspaceDir: f.workspace, trusted: options.trusted ?? true, env: { HOME: f.root, XDG_CONFIG_HOME: config } });
  return f.open({ setup }, options.sessionId);
}

const toolResults = (records: WireRecord[]) =>
  records
    .filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'toolResult')
    .map((r) => (r.message.content as { text?: string }[]).map((b) => b.text ?? '').join('\n'));
const userTexts = (records: WireRecord[]) =>
  records
    .filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'user')
    .map((r) => (typeof r.message.content === 'string' ? r.message.content : r.message.content.map((b) => ('text' in b ? b.text : '')).join('\n')));
const bash = (command: string, id = 'b1') => fauxAssistantMessage([fauxToolCall('bash', { command }, { id })], { stopReason: 'toolUse' });

test('SessionStart (startup, then resume) gives context to the next turn; SessionEnd runs on close', async () => {
  const f = await sessionFixture();
  try {
    const hooks = {
      SessionStart: [{ command: `${recordingHook(f.root, 'start')}; echo "started here"` }],
      SessionEnd: [{ command: recordingHook(f.root, 'end') }],
    };
    const session = await openWith(f, { hooks });
    f.faux.setResponses([fauxAssistantMessage('ok')]);
    await session.submit('hello');
    await session.waitForIdle();
    assert.match(userTexts(f.records(session.id))[0]!, /started here[\s\S]*hello$/);
    await session.close();
    assert.deepEqual(
      hookInputs(f.root, 'end').map((i) => [i.hook_event_name, i.reason, i.session_id]),
      [['SessionEnd', 'other', session.id]],
    );
    await openWith(f, { hooks }, { sessionId: session.id });
    assert.deepEqual(
      hookInputs(f.root, 'start').map((i) => i.source),
      ['startup', 'resume'],
    );
    assert.equal(hookInputs(f.root, 'start')[0]!.transcript_path, path.join(f.store.locate(session.id), 'agents', 'main', 'wire.jsonl'));
  } finally {
    await f.cleanup();
  }
});

test('UserPromptSubmit: exit 2 blocks the prompt with its reason for the user; JSON additionalContext reaches the model', async () => {
  const f = await sessionFixture();
  try {
    const hook = `input=$(cat); if echo "$input" | grep -q secret; then echo "no secrets" >&2; exit 2; fi; echo '{"hookSpecificOutput":{"additionalContext":"branch is main"}}'`;
    const session = await openWith(f, { hooks: { UserPromptSubmit: [{ command: hook }] } });
    const states: string[] = [];
    session.onEvent((e) => e.type === 'prompt' && e.prompt.state === 'blocked' && states.push(e.prompt.reason ?? ''));
    await session.submit('tell me the secret');
    await session.waitForIdle();
    assert.deepEqual(states, ['no secrets']);
    f.faux.setResponses([fauxAssistantMessage('ok')]);
    await session.submit('fine prompt');
    await session.waitForIdle();
    assert.match(userTexts(f.records(session.id))[0]!, /branch is main[\s\S]*fine prompt$/);
  } finally {
    await f.cleanup();
  }
});

test('PreToolUse: exit 2 blocks the call (the command never runs, the model reads why); the input names the tool as Claude Code does', async () => {
  const f = await sessionFixture();
  try {
    const mark = path.join(f.root, 'ran');
    const session = await openWith(f, {
      hooks: { PreToolUse: [{ matcher: 'Bash', command: recordingHook(f.root, 'pre', { code: 2, stderr: 'no shell today' }) }] },
    });
    f.faux.setResponses([bash(`touch ${mark}`), fauxAssistantMessage('ok')]);
    await session.submit('run it');
    await session.waitForIdle();
    assert.equal(fs.existsSync(mark), false);
    assert.match(toolResults(f.records(session.id))[0]!, /A PreToolUse hook blocked this call: no shell today/);
    const [input] = hookInputs(f.root, 'pre');
    assert.equal(input!.tool_name, 'Bash');
    assert.deepEqual(input!.tool_input, { command: `touch ${mark}` });
  } finally {
    await f.cleanup();
  }
});

test('PreToolUse permissionDecision allow skips the approval prompt; ask asks even when the policy allows', async () => {
  const f = await sessionFixture();
  try {
    const decide = (d: string) => `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"${d}"}}'`;
    const session = await openWith(f, {
      hooks: {
        PreToolUse: [
          { matcher: 'Write', command: decide('allow') },
          { matcher: 'Bash', command: decide('ask') },
        ],
      },
    });
    f.faux.setResponses([
      fauxAssistantMessage([fauxToolCall('write_file', { path: 'a.txt', content: 'x' }, { id: 'w' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('ok'),
    ]);
    await session.submit('write');
    await session.waitForIdle();
    assert.equal(fs.readFileSync(path.join(f.workspace, 'a.txt'), 'utf8'), 'x');
    assert.equal(f.approvals.length, 0, 'the hook allowed it');
    await session.close();
    const allowing = await f.open({
      setup: readSetupSources({ workspaceDir: f.workspace, trusted: true, env: { HOME: f.root, XDG_CONFIG_HOME: path.join(f.root, 'config') } }),
      approvalPolicy: { writes: 'allow', shell: 'allow' },
    });
    f.faux.setResponses([bash('echo hi'), fauxAssistantMessage('ok')]);
    await allowing.submit('run');
    await allowing.waitForIdle();
    assert.deepEqual(
      f.approvals.map((a) => a.summary),
      ['echo hi'],
      'the hook asked',
    );
  } finally {
    await f.cleanup();
  }
});

test('PostToolUse gets the response; its block reason and additionalContext go to the model with the result', async () => {
  const f = await sessionFixture();
  try {
    const post = `${recordingHook(f.root, 'post')}; echo '{"decision":"block","reason":"fix the lint","hookSpecificOutput":{"additionalContext":"3 warnings"}}'`;
    const session = await openWith(f, { hooks: { PostToolUse: [{ matcher: 'Bash', command: post }] } });
    f.faux.setResponses([bash('echo out'), fauxAssistantMessage('ok')]);
    await session.submit('run');
    await session.waitForIdle();
    assert.match(toolResults(f.records(session.id))[0]!, /out[\s\S]*PostToolUse hook: fix the lint\n3 warnings$/);
    const [input] = hookInputs(f.root, 'post');
    assert.match((input!.tool_response as { content: string }).content, /Exit code 0\.\nout/);
  } finally {
    await f.cleanup();
  }
});

test('Stop: a block sends the agent back with the reason, once per block, stop_hook_active true the second time', async () => {
  const f = await sessionFixture();
  try {
    const stop = `input=$(cat); printf '%s\\n' "$input" >> ${f.root}/stop.json; if echo "$input" | grep -q '"stop_hook_active":false'; then echo "run the tests first" >&2; exit 2; fi`;
    const session = await openWith(f, { hooks: { Stop: [{ command: stop }] } });
    f.faux.setResponses([fauxAssistantMessage('done'), fauxAssistantMessage('tests pass, done')]);
    await session.submit('work');
    await session.waitForIdle();
    assert.deepEqual(
      hookInputs(f.root, 'stop').map((i) => i.stop_hook_active),
      [false, true],
    );
    const texts = userTexts(f.records(session.id));
    assert.equal(texts.length, 2);
    assert.match(texts[1]!, /A Stop hook asks you to go on: run the tests first/);
    assert.equal(f.store.get(session.id).status, 'idle');
  } finally {
    await f.cleanup();
  }
});

test('a Stop hook that always blocks sends the agent back a bounded number of times', async () => {
  const f = await sessionFixture();
  try {
    const session = await openWith(f, { hooks: { Stop: [{ command: 'cat >/dev/null; echo never >&2; exit 2' }] } });
    f.faux.setResponses(Array.from({ length: 10 }, (_, i) => fauxAssistantMessage(`answer ${i}`)));
    await session.submit('work');
    await session.waitForIdle();
    assert.equal(userTexts(f.records(session.id)).length, 4, 'the prompt and three continuations');
  } finally {
    await f.cleanup();
  }
});

test('SubagentStop: a block sends the subagent back once; PreCompact runs before a compaction with its trigger', async () => {
  const f = await sessionFixture();
  try {
    const sub = `input=$(cat); printf '%s\\n' "$input" >> ${f.root}/sub.json; if echo "$input" | grep -q '"stop_hook_active":false'; then echo "look deeper" >&2; exit 2; fi`;
    const session = await openWith(f, {
      hooks: { SubagentStop: [{ command: sub }], PreCompact: [{ matcher: 'manual', command: recordingHook(f.root, 'compact') }] },
    });
    f.faux.setResponses([
      fauxAssistantMessage([fauxToolCall('task', { description: 'look around', prompt: 'look' }, { id: 't' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('first look'),
      fauxAssistantMessage('deeper look'),
      fauxAssistantMessage('done'),
    ]);
    await session.submit('delegate');
    await session.waitForIdle();
    assert.deepEqual(
      hookInputs(f.root, 'sub').map((i) => [i.hook_event_name, i.stop_hook_active]),
      [
        ['SubagentStop', false],
        ['SubagentStop', true],
      ],
    );
    assert.match(toolResults(f.records(session.id))[0]!, /deeper look/);
    f.faux.setResponses([fauxAssistantMessage('second'), fauxAssistantMessage('Summary.')]);
    await session.submit('more');
    await session.waitForIdle();
    assert.equal(await session.compact('the plan'), true);
    assert.deepEqual(
      hookInputs(f.root, 'compact').map((i) => [i.trigger, i.custom_instructions]),
      [['manual', 'the plan']],
    );
  } finally {
    await f.cleanup();
  }
});

test('Notification runs when the session asks for approval', async () => {
  const f = await sessionFixture();
  try {
    const session = await openWith(f, { hooks: { Notification: [{ command: recordingHook(f.root, 'note') }] } });
    f.faux.setResponses([bash('echo hi'), fauxAssistantMessage('ok')]);
    await session.submit('run');
    await session.waitForIdle();
    for (let i = 0; i < 50 && hookInputs(f.root, 'note').length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(
      hookInputs(f.root, 'note').map((i) => i.message),
      ['Braid needs your permission to use Bash'],
    );
  } finally {
    await f.cleanup();
  }
});

test('rules: deny blocks even an allowed call (reason to the model), allow skips the prompt, ask asks under an allowing policy', async () => {
  const f = await sessionFixture({ 'secrets/key.txt': 'hunter2', 'public/a.txt': 'hunter2' });
  try {
    const permissions = { allow: ['Bash(echo:*)'], ask: ['Edit(./notes/**)'], deny: ['Bash(rm:*)', 'Read(./secrets/**)'] };
    const session = await openWith(f, { permissions });
    f.faux.setResponses([
      bash('rm -rf public', 'b1'),
      bash('echo fine', 'b2'),
      fauxAssistantMessage([fauxToolCall('read_file', { path: 'secrets/key.txt' }, { id: 'r' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage([fauxToolCall('grep', { pattern: 'hunter2' }, { id: 'g' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('ok'),
    ]);
    await session.submit('go');
    await session.waitForIdle();
    const results = toolResults(f.records(session.id));
    assert.match(results[0]!, /The permission rule deny Bash\(rm:\*\) \(.*settings\.json\) forbids this call/);
    assert.ok(fs.existsSync(path.join(f.workspace, 'public')), 'rm never ran');
    assert.match(results[1]!, /fine/);
    assert.match(results[2]!, /deny Read\(\.\/secrets\/\*\*\)/);
    assert.match(results[3]!, /public\/a\.txt:1: hunter2/);
    assert.doesNotMatch(results[3]!, /secrets/);
    assert.match(results[3]!, /\[1 result hidden by a permission rule\]/);
    assert.equal(f.approvals.length, 0, 'echo was allowed by its rule; rm and the read were denied without asking');
    await session.close();
    const allowing = await f.open({
      setup: readSetupSources({ workspaceDir: f.workspace, trusted: true, env: { HOME: f.root, XDG_CONFIG_HOME: path.join(f.root, 'config') } }),
      approvalPolicy: { writes: 'allow', shell: 'allow' },
    });
    f.faux.setResponses([
      fauxAssistantMessage([fauxToolCall('write_file', { path: 'notes/a.md', content: 'x' }, { id: 'w' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('ok'),
    ]);
    await allowing.submit('note');
    await allowing.waitForIdle();
    assert.equal(f.approvals.length, 1, 'the ask rule asked');
    assert.match(f.approvals[0]!.summary, /notes\/a\.md/);
  } finally {
    await f.cleanup();
  }
});

test('"Always allow" writes the rule into the user settings file and applies at once; "Allow for this session" is a session rule', async () => {
  const f = await sessionFixture();
  try {
    const session = await openWith(f, {});
    f.decide = 'allow-always';
    f.faux.setResponses([bash('npm test', 'b1'), bash('npm test -- --watch', 'b2'), fauxAssistantMessage('ok')]);
    await session.submit('test');
    await session.waitForIdle();
    assert.equal(f.approvals.length, 1, 'asked once');
    assert.equal(f.approvals[0]!.alwaysRule, 'Bash(npm test:*)');
    const file = path.join(f.root, 'config', 'braid', 'settings.json');
    assert.deepEqual((JSON.parse(fs.readFileSync(file, 'utf8')) as { permissions: unknown }).permissions, { allow: ['Bash(npm test:*)'] });
    f.decide = 'allow-session';
    f.faux.setResponses([
      fauxAssistantMessage([fauxToolCall('write_file', { path: 'a.txt', content: 'x' }, { id: 'w' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('ok'),
    ]);
    await session.submit('write');
    await session.waitForIdle();
    assert.deepEqual(
      session.permissionRules.rules.filter((r) => r.origin !== 'user').map((r) => [r.kind, r.rule.text, r.origin]),
      [['allow', 'Edit', 'session']],
    );
  } finally {
    await f.cleanup();
  }
});

test("a project's hooks run only in a trusted workspace and once its settings file is approved; the user's always run", async () => {
  const f = await sessionFixture();
  try {
    fs.mkdirSync(path.join(f.workspace, '.claude'));
    const projectHook = { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `touch ${f.root}/project-ran` }] }] };
    fs.writeFileSync(path.join(f.workspace, '.claude', 'settings.json'), JSON.stringify({ hooks: projectHook }));
    const env = { HOME: f.root, XDG_CONFIG_HOME: path.join(f.root, 'config') };
    const hooks = { UserPromptSubmit: [{ command: `touch ${f.root}/user-ran` }] };
    const run = async (trusted: boolean) => {
      fs.rmSync(path.join(f.root, 'project-ran'), { force: true });
      fs.rmSync(path.join(f.root, 'user-ran'), { force: true });
      const session = await openWith(f, { hooks }, { trusted });
      f.faux.setResponses([fauxAssistantMessage('ok')]);
      await session.submit('hi');
      await session.waitForIdle();
      await session.close();
      return [fs.existsSync(path.join(f.root, 'user-ran')), fs.existsSync(path.join(f.root, 'project-ran'))];
    };
    assert.deepEqual(await run(true), [true, false], 'trusted, not approved');
    await approveProjectSettings(readSetupSources({ workspaceDir: f.workspace, trusted: true, env }));
    assert.deepEqual(await run(false), [true, false], 'approved, untrusted');
    assert.deepEqual(await run(true), [true, true], 'approved and trusted');
  } finally {
    await f.cleanup();
  }
});

test('an open session follows its setup read again: a deny rule added, a hook removed; rules made for the session stay', async () => {
  const f = await sessionFixture();
  try {
    const config = path.join(f.root, 'config');
    const env = { HOME: f.root, XDG_CONFIG_HOME: config };
    const file = path.join(config, 'braid', 'settings.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const hook = { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `echo ran >> ${f.root}/hook-ran` }] }] };
    fs.writeFileSync(file, JSON.stringify({ hooks: hook }));
    // The host reads the setup again when its files change, as VS Code's watcher does.
    let setup = readSetupSources({ workspaceDir: f.workspace, trusted: true, env });
    const session = await f.open({ setup: () => setup });
    f.decide = 'allow-session';
    f.faux.setResponses([
      fauxAssistantMessage([fauxToolCall('write_file', { path: 'a.txt', content: 'x' }, { id: 'w' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('ok'),
    ]);
    await session.submit('first');
    await session.waitForIdle();
    assert.equal(fs.readFileSync(path.join(f.root, 'hook-ran'), 'utf8'), 'ran\n');

    fs.writeFileSync(file, JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] } }));
    setup = readSetupSources({ workspaceDir: f.workspace, trusted: true, env });
    fs.writeFileSync(path.join(f.workspace, 'keep.txt'), 'keep');
    f.faux.setResponses([
      bash('rm keep.txt', 'b1'),
      fauxAssistantMessage([fauxToolCall('write_file', { path: 'b.txt', content: 'y' }, { id: 'w2' })], { stopReason: 'toolUse' }),
      fauxAssistantMessage('ok'),
    ]);
    await session.submit('second');
    await session.waitForIdle();
    assert.match(toolResults(f.records(session.id)).at(-2)!, /deny Bash\(rm:\*\)/, 'the new deny rule applied without reopening');
    assert.ok(fs.existsSync(path.join(f.workspace, 'keep.txt')));
    assert.equal(fs.readFileSync(path.join(f.root, 'hook-ran'), 'utf8'), 'ran\n', 'the removed hook ran no more');
    assert.equal(f.approvals.length, 1, 'the second write was allowed by the session rule made before the setup changed');
    assert.deepEqual(
      session.permissionRules.rules.map((r) => [r.kind, r.rule.text, r.origin]),
      [
        ['deny', 'Bash(rm:*)', 'user'],
        ['allow', 'Edit', 'session'],
      ],
    );
    await session.close();
  } finally {
    await f.cleanup();
  }
});
