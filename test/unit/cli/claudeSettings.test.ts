import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { MessageRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { braidIn, cliWithScriptedModel, execSessionId } from '../../support/cli';

// A Claude Code user's project settings (.claude/settings.json with hooks and permissions, hook
// scripts in .claude/hooks reading $CLAUDE_PROJECT_DIR) work unchanged through braid exec: listed
// by braid hooks and braid permissions, approved by braid hooks trust, then at work.
const { root, workspace, server, env } = cliWithScriptedModel('braid-claude-settings-');
const store = () => path.join(root, 'store');
const braid = (args: string[]) =>
  braidIn(['--data-dir', store(), '--workspace', workspace, ...args], { env: { ...env(), HOME: root, XDG_CONFIG_HOME: path.join(root, 'config') } });

function writeProject(): void {
  fs.mkdirSync(path.join(workspace, '.claude', 'hooks'), { recursive: true });
  // Claude Code's documented hook shapes: a guard that blocks with exit 2, a logger reading tool_input.file_path.
  fs.writeFileSync(
    path.join(workspace, '.claude', 'hooks', 'guard.js'),
    `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const i=JSON.parse(s);if(/rm -rf/.test(i.tool_input.command)){console.error('Blocked: rm -rf is not allowed here');process.exit(2)}});`,
  );
  fs.writeFileSync(
    path.join(workspace, '.claude', 'hooks', 'log-edits.js'),
    `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const i=JSON.parse(s);require('fs').appendFileSync(process.env.CLAUDE_PROJECT_DIR+'/edits.log',i.tool_name+' '+i.tool_input.file_path+'\\n')});`,
  );
  const settings = {
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.js"' }] }],
      PostToolUse: [
        { matcher: 'Write|Edit|MultiEdit', hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR/.claude/hooks/log-edits.js"', timeout: 30 }] },
      ],
    },
    permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(./.env)', 'Bash(curl:*)'] },
  };
  fs.writeFileSync(path.join(workspace, '.claude', 'settings.json'), JSON.stringify(settings, null, 2));
  fs.writeFileSync(path.join(workspace, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { test: 'echo the tests ran' } }));
  fs.writeFileSync(path.join(workspace, '.env'), 'TOKEN=hunter2\n');
}

function toolResults(err: string): string[] {
  const id = execSessionId(err, store());
  const log = path.join(store(), 'sessions', workspaceKey(workspace), id, 'agents', 'main', 'wire.jsonl');
  return readWireLog(log)
    .records.filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'toolResult')
    .map((r) => (r.message.content as { text?: string }[]).map((b) => b.text ?? '').join('\n'));
}

const call = (id: string, name: string, args: unknown) => ({ kind: 'toolCalls' as const, calls: [{ id, name, arguments: JSON.stringify(args) }] });

test("a Claude Code project's hooks and rules: listed, not run until approved (its deny rules apply at once), then at work", async () => {
  writeProject();
  const listed = await braid(['hooks']);
  assert.equal(listed.code, 0, listed.err);
  assert.match(
    listed.out,
    /^PreToolUse +Bash +node "\$CLAUDE_PROJECT_DIR\/\.claude\/hooks\/guard\.js" +\(project: \.claude\/settings\.json, timeout 60s\) +\[not approved: braid hooks trust\]$/m,
  );
  assert.match(listed.out, /^PostToolUse +Write\|Edit\|MultiEdit .*timeout 30s\) +\[not approved/m);
  const rules = await braid(['permissions']);
  assert.match(rules.out, /^deny +Read\(\.\/\.env\) +\(project: \.claude\/settings\.json\)$/m);
  assert.match(rules.out, /^allow +Bash\(npm test:\*\) +\(project: \.claude\/settings\.json\) +\[ignored/m);

  // Not approved: the hooks do not run, the allow rule does not allow, the deny rules deny even with --yes.
  server.enqueue(
    call('w1', 'write_file', { path: 'a.md', content: 'x' }),
    call('r1', 'read_file', { path: '.env' }),
    call('c1', 'bash', { command: 'curl example.com' }),
    { kind: 'text', chunks: ['Done.'] },
  );
  const before = await braid(['exec', '--yes', 'work']);
  assert.equal(before.code, 0, before.err);
  assert.equal(fs.existsSync(path.join(workspace, 'edits.log')), false, 'the PostToolUse hook did not run');
  const [, read, curl] = toolResults(before.err);
  assert.match(read!, /deny Read\(\.\/\.env\)/);
  assert.doesNotMatch(read!, /hunter2/);
  assert.match(curl!, /deny Bash\(curl:\*\)/);

  const trusted = await braid(['hooks', 'trust']);
  assert.equal(trusted.code, 0, trusted.err);
  assert.match(trusted.out, /^Approved \.claude\/settings\.json as it is now:$/m);
  assert.match(trusted.out, /^ {2}allow Bash\(npm test:\*\)$/m);
  assert.match((await braid(['hooks'])).out, /guard\.js.*\[approved\]$/m);

  // Approved, without --yes: npm test is allowed by its rule, rm -rf is blocked by the hook, writes are denied (no --yes).
  server.enqueue(call('b1', 'bash', { command: 'npm test' }), call('b2', 'bash', { command: 'rm -rf src' }), { kind: 'text', chunks: ['Done.'] });
  const after = await braid(['exec', 'test it']);
  assert.equal(after.code, 0, after.err);
  const [npm, rm] = toolResults(after.err);
  assert.match(npm!, /the tests ran/);
  assert.match(rm!, /A PreToolUse hook blocked this call: Blocked: rm -rf is not allowed here/);

  server.enqueue(call('w2', 'write_file', { path: 'b.md', content: 'y' }), { kind: 'text', chunks: ['Done.'] });
  assert.equal((await braid(['exec', '--yes', 'write'])).code, 0);
  assert.equal(fs.readFileSync(path.join(workspace, 'edits.log'), 'utf8'), `Write ${fs.realpathSync(workspace)}/b.md\n`);
});
