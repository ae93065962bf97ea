import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { DEMO_EXAMPLES } from '../../src/demo/demoExamples';
import { freePort } from '../support/codeServer';
import { Workbench, launchBrowser } from '../support/workbench';

// The README's first quick-start command: `npm start` serves a workbench with Braid's container,
// and with no BRAID_* variables a labelled demo agent answers.
const repoRoot = process.env.BRAID_REPO_ROOT ?? process.cwd();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-start-'));
let start: ChildProcess | undefined;
let browser: ReturnType<typeof launchBrowser> | undefined;
let workbench: Workbench | undefined;

after(async () => {
  await workbench?.close();
  await browser?.then((b) => b.close()).catch(() => undefined);
  if (start?.pid && start.exitCode === null) process.kill(start.pid, 'SIGKILL');
  fs.rmSync(scratch, { recursive: true, force: true });
});

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number, transcript: string[]): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start printed no ${pattern} within ${timeoutMs / 1000} s:\n${transcript.join('')}`)), timeoutMs);
    timer.unref();
    const onData = (chunk: Buffer) => {
      transcript.push(chunk.toString());
      const match = pattern.exec(transcript.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => transcript.push(c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${transcript.join('')}`));
    });
  });
}

test('npm start serves Braid in a real VS Code with the demo model, and Ctrl+C ends it', async () => {
  const folder = path.join(scratch, 'project');
  fs.mkdirSync(folder);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, BRAID_START_PROFILE: path.join(scratch, 'profile') };
  for (const key of ['BRAID_PROVIDER', 'BRAID_MODEL', 'BRAID_BASE_URL', 'BRAID_API_KEY']) delete env[key];
  start = spawn(process.execPath, ['scripts/run-ts.mjs', 'scripts/start.ts', folder, '--port', String(port)], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Chromium starts while npm start builds and serves.
  browser = launchBrowser();
  browser.catch(() => undefined); // a failure to start is open()'s to report
  const transcript: string[] = [];
  const [, url] = await waitForLine(start, /Braid is running in VS Code at (\S+)\n[\s\S]*Press Ctrl\+C/, 180_000, transcript);
  assert.ok(url!.startsWith(`http://127.0.0.1:${port}/`), url);
  assert.match(transcript.join(''), /scripted demo model/);

  const outputDir = Workbench.outputFolder('npm-start');
  workbench = await Workbench.open(url!, outputDir, folder, undefined, undefined, browser);
  await workbench.openBraid();
  const chat = workbench.chatFrame();
  await chat.locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  assert.equal(await chat.locator('[data-role="demo"]').isVisible(), true);
  await chat.locator('[data-role="input"]').fill('How do I fork a session?');
  await chat.locator('[data-role="input"]').press('Enter');
  // The demo answers the question asked (Braid's hidden reminders are never quoted).
  const answer = chat.locator('.message.assistant', { hasText: 'A fork copies a session' });
  await answer.waitFor({ timeout: 20_000 });
  assert.doesNotMatch((await answer.textContent()) ?? '', /system-reminder|Git context/);
  await chat.locator('.turn-status', { hasText: 'out' }).waitFor();
  // braid.suggestions is `auto`, and the demo's server is on 127.0.0.1: it suggests its first example prompt.
  await chat.locator(`[data-role="input"][data-suggestion="${DEMO_EXAMPLES[0]}"]`).waitFor({ timeout: 15_000 });
  await workbench.screenshot('demo-answer');
  await workbench.close();
  workbench = undefined;

  const exited = new Promise<number | null>((resolve) => start!.once('exit', (code) => resolve(code)));
  start.kill('SIGINT');
  assert.equal(await exited, 0);
  const stillServing = await fetch(`http://127.0.0.1:${port}/healthz`).then(
    () => true,
    () => false,
  );
  assert.equal(stillServing, false, 'code-server is gone after Ctrl+C');
});
