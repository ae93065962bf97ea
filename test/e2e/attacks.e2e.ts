import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { chunked, htmlAttacks, pwn } from '../support/attackPayloads';
import { LeakServer, inspectPage, readsLeftToRight, watchViolations } from '../support/attacks';
import { ScriptedModelServer } from '../support/modelServer';
import { Workbench } from '../support/workbench';

// Model output is hostile input. In the real Chat webview, answers and tool cards full of
// scripts, event handlers, foreign URL schemes, tracking URLs, layout-breaking CSS, huge lines
// and bidi tricks render as inert text: nothing runs, nothing is fetched, nothing is drawn
// outside its box, the composer stays usable, and links show where they really go.
const model = new ScriptedModelServer();
const leak = new LeakServer();
let leakUrl: string;
let workbench: Workbench;
/** Requests the browser itself made to the leak server, seen by Playwright. */
const browserLeaks: string[] = [];
/** Console lines of the browser saying something was refused (CSP). */
const refused: string[] = [];
/** Paths on the leak server of links the test clicked: opening those is what a click is for. */
const clickedPaths = new Set<string>();

before(async () => {
  await model.start();
  leakUrl = await leak.start();
  workbench = await Workbench.launch({
    name: 'attacks',
    settings: model.vscodeSettings(),
    files: { 'attack.md': htmlAttacks(`${leakUrl}/leak-file`) },
  });
  workbench.page.on('request', (r) => r.url().startsWith(leakUrl) && browserLeaks.push(r.url()));
  workbench.page.on('console', (m) => /Refused to/i.test(m.text()) && refused.push(m.text()));
  await workbench.openBraid();
  await chat().locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
});

after(async () => {
  await workbench?.close();
  await model.close();
  await leak.close();
});

const chat = () => workbench.chatFrame();
const body = () => chat().locator('body');

/** Everything the page and the leak server say after an attack is clean. */
async function assertInert(label: string): Promise<void> {
  const report = await inspectPage(body());
  assert.equal(report.pwned, null, `${label}: a payload ran (${report.pwned})`);
  assert.equal(await workbench.page.evaluate(() => document.body.dataset.pwned ?? null), null, `${label}: a payload reached the workbench`);
  assert.deepEqual(report.forbidden, [], `${label}: unsafe markup in the transcript`);
  assert.deepEqual(report.violations, [], `${label}: something tried to load or run (CSP violations)`);
  assert.deepEqual(refused, [], `${label}: the browser refused something`);
  assert.deepEqual(
    leak.requests.filter((r) => !clickedPaths.has(r.split(' ')[1]!)),
    [],
    `${label}: the leak server was reached`,
  );
  assert.deepEqual(browserLeaks, [], `${label}: the browser requested a leak URL`);
  assert.deepEqual(report.outside, [], `${label}: drawn outside its box`);
  assert.ok(report.overflowX.page <= 0, `${label}: the page scrolls sideways by ${report.overflowX.page} px`);
  assert.ok(report.overflowX.transcript <= 0, `${label}: the transcript scrolls sideways by ${report.overflowX.transcript} px`);
  assert.deepEqual(report.chromeOnTop, { input: true, picker: true }, `${label}: the composer or the header is covered`);
  assert.equal(
    await chat().locator('[data-role="model"]').textContent(),
    'openai-compatible · scripted-model · 128k context · 8k out',
    `${label}: the header changed`,
  );
}

/**
 * Hovers every element of `root` and clicks each one. A click on a link may open its address
 * (VS Code opens it in a new tab, through code-server's proxy for 127.0.0.1): the test closes the
 * tab, returns to the window and returns what opened; a confirmation VS Code asks for is cancelled.
 */
async function poke(root: Locator): Promise<{ clicked: number; asked: string[] }> {
  const asked: string[] = [];
  const elements = await root.locator('*').all();
  let clicked = 0;
  for (const element of elements) {
    if (!(await element.isVisible().catch(() => false))) continue;
    await element.hover({ timeout: 2_000, force: true }).catch(() => undefined);
    const href = await element.getAttribute('href').catch(() => null);
    if (href?.startsWith(leakUrl)) clickedPaths.add(new URL(href).pathname);
    const opened = workbench.page
      .context()
      .waitForEvent('page', { timeout: 3_000 })
      .catch(() => undefined);
    const dialog = workbench.page.locator('.monaco-dialog-box');
    await element.click({ timeout: 2_000, force: true }).then(
      () => clicked++,
      () => undefined,
    );
    if (!href) continue;
    const shown = await Promise.race([
      dialog.waitFor({ timeout: 3_000 }).then(
        () => 'dialog',
        () => 'nothing',
      ),
      opened.then((p) => (p ? 'page' : 'nothing')),
    ]);
    if (shown === 'dialog') {
      asked.push((await dialog.textContent()) ?? '');
      await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    }
    const popup = await opened;
    if (popup) {
      asked.push(`opened ${popup.url()}`);
      await popup.close();
      // The tab left the window in the background, where Chromium throttles it: each hover
      // after took about a second. The user goes back to the window.
      await workbench.page.bringToFront();
    }
  }
  return { clicked, asked };
}

async function newSession(): Promise<void> {
  await workbench.newSession();
}

/** The composer still takes a prompt and the answer arrives: nothing from the attack broke the page. */
async function stillUsable(label: string): Promise<void> {
  model.enqueue({ kind: 'text', chunks: [`Still here after ${label}.`] });
  await workbench.send(`Are you still there after ${label}?`);
  await chat()
    .locator('.message.assistant', { hasText: `Still here after ${label}.` })
    .waitFor();
}

test('an answer of scripts, event handlers, foreign URL schemes, tracking URLs and escaping CSS renders inert, streamed', async () => {
  await watchViolations(body());
  model.enqueue({ kind: 'text', chunks: chunked(htmlAttacks(`${leakUrl}/leak`), 97), chunkDelayMs: 5 });
  await workbench.send('Render these attacks', 'completed', 60_000);
  const answer = chat().locator('.message.assistant', { hasText: 'End of the attack answer.' });
  await answer.waitFor();
  await workbench.screenshot('html-attacks');
  await assertInert('streamed html attacks');
  // The text of the markup is kept where markdown says it is text.
  assert.match((await answer.locator('code').first().textContent()) ?? '', /<img src=x onerror=/);
  assert.match((await answer.locator('pre code').textContent()) ?? '', /<script>document\.body\.dataset\.pwned/);
  const { clicked, asked } = await poke(answer);
  assert.ok(clicked > 20, `clicked ${clicked} elements`);
  // What a click opened is a link's own address, which its tooltip shows.
  assert.ok(asked.length > 0, 'no link opened');
  for (const opened of asked) assert.match(opened, /^opened http:\/\/127\.0\.0\.1:\d+\/proxy\/\d+\/leak\/(clicked|md-image|image-in-link)$/);
  await assertInert('html attacks after hovering and clicking everything');
  await workbench.screenshot('html-attacks-poked');
  await stillUsable('the html attacks');
});

test('200 KB lines without a space, in text, code, a table, a prompt and an error, stay inside their boxes', async () => {
  await newSession();
  const long = (c: string, n: number) => c.repeat(n);
  const text = [
    `# ${long('H', 3_000)}`,
    long('A', 200_000),
    `Inline \`${long('D', 5_000)}\` code and a [${long('L', 5_000)}](https://example.com/${long('p', 5_000)}) link.`,
    '```',
    long('B', 200_000),
    '```',
    `| head | ${long('T', 3_000)} |`,
    '| --- | --- |',
    `| ${long('C', 5_000)} | x |`,
    '',
    `> ${long('Q', 5_000)}`,
    '',
    `- ${long('I', 5_000)}`,
    '',
    'End of the long answer.',
  ].join('\n');
  model.enqueue({ kind: 'text', chunks: chunked(text, 40_000) });
  await workbench.send(`Long prompt ${long('P', 3_000)}`, 'completed', 60_000);
  await chat().locator('.message.assistant', { hasText: 'End of the long answer.' }).waitFor();
  await workbench.screenshot('long-lines');
  await assertInert('long lines');

  model.enqueue({ kind: 'httpError', status: 500, message: `${long('E', 20_000)} <img src=x onerror="document.body.dataset.pwned='error'">` });
  await workbench.send('Fail with a long error', 'failed');
  await assertInert('long error');
  await workbench.screenshot('long-error');
  await stillUsable('the long lines');
});

test('bidi overrides and zero-width characters cannot reorder the page or disguise where a link goes', async () => {
  await newSession();
  const [RLO, RLI, PDI, ZWSP, BOM] = ['\u202E', '\u2067', '\u2069', '\u200B', '\uFEFF'];
  model.enqueue({
    kind: 'text',
    usage: { prompt: 12, completion: 34 },
    chunks: [
      [
        `A link: [${RLO}gnp.exe](${leakUrl}/link-rlo) AFTERLINK stays in order.`,
        `**${RLO}bold** AFTERBOLD and \`${RLO}code\` AFTERCODE.`,
        `Spoofed: [https://github.com/braid-dev/braid](${leakUrl}/link-spoof) and [git${ZWSP}hub.com](${leakUrl}/link-zw) AFTERZW.`,
        `${RLI}isolate ${RLO}nested${PDI} AFTERISOLATE${BOM}`,
        'שלום עולם, a Hebrew line reads right to left.',
        `Unterminated override at the end ${RLO}`,
      ].join('\n\n'),
    ],
  });
  await workbench.send(`Bidi ${RLO}check`);
  const answer = chat().locator('.message.assistant').last();
  await answer.locator('p', { hasText: 'Unterminated override' }).waitFor();
  await workbench.screenshot('bidi');
  for (const marker of ['AFTERLINK', 'AFTERBOLD', 'AFTERCODE', 'AFTERZW', 'AFTERISOLATE']) {
    assert.equal(await readsLeftToRight(answer, marker), true, `${marker} is drawn reversed`);
  }
  assert.equal(await readsLeftToRight(chat().locator('.turn-status').last(), '34 out'), true, 'the turn status line is drawn reversed');
  // The session's title comes from the prompt: its row in the tree and the status bar read in order.
  const row = workbench.page.locator('.monaco-list-row', { hasText: 'Bidi check' });
  await row.waitFor({ timeout: 5_000 });
  assert.equal(await readsLeftToRight(row, 'scripted-model'), true, "the tree row's description is drawn reversed");
  assert.equal(
    await readsLeftToRight(workbench.page.locator('.statusbar-item', { hasText: 'Bidi check' }), 'scripted-model'),
    true,
    'the status bar is drawn reversed',
  );
  const direction = (text: string) => answer.locator('p', { hasText: text }).evaluate((p) => getComputedStyle(p).direction);
  assert.equal(await direction('Hebrew line'), 'rtl');
  assert.equal(await direction('Spoofed'), 'ltr');
  // Every link's tooltip is its real address; a disguised one shows the real host beside it.
  const links = await answer.locator('a').evaluateAll((as) =>
    as.map((a) => ({
      title: a.getAttribute('title'),
      href: (a as HTMLAnchorElement).href,
      next: a.nextElementSibling?.className === 'link-target' ? a.nextElementSibling.textContent : null,
    })),
  );
  assert.equal(links.length, 3);
  for (const link of links) {
    assert.equal(link.title, link.href);
    assert.equal(link.next, `(${new URL(leakUrl).host})`, `the real host shows beside ${link.href}`);
  }
  await assertInert('bidi');
  await stillUsable('the bidi answer');
});

/**
 * Opens every tool card of the transcript. A click that lands while the list scrolls the card into
 * view and lays it out again can be lost, so each card gets a few tries.
 */
async function openCards(): Promise<void> {
  const closed = chat().locator('details.tool:not([open])');
  for (let left = await closed.count(), tries = 0; left > 0 && tries < 3 * 8; left = await closed.count(), tries++) {
    // The count may be a moment old (the last card opening as it was taken): look again, briefly.
    const key = await closed
      .first()
      .getAttribute('data-key', { timeout: 2_000 })
      .catch(() => undefined);
    if (key === undefined) continue;
    await closed.first().locator(':scope > summary').click({ timeout: 5_000 });
    await chat()
      .locator(`details.tool[data-key="${key}"][open]`)
      .waitFor({ timeout: 5_000 })
      .catch(() => undefined);
  }
  assert.equal(await closed.count(), 0, 'a tool card did not open');
}

/** Denies each approval the turn asks for until the answer `done` shows. */
async function denyUntil(done: Locator): Promise<string[]> {
  const asked: string[] = [];
  const pending = chat().locator('.approval:not([data-decision])');
  for (;;) {
    const next = await Promise.race([
      done.waitFor({ timeout: 30_000 }).then(() => 'done'),
      pending
        .first()
        .waitFor({ timeout: 30_000 })
        .then(() => 'approval'),
    ]);
    if (next === 'done') return asked;
    asked.push((await pending.first().locator('.approval-title').textContent()) ?? '');
    await pending.first().locator('button', { hasText: 'Deny' }).click();
    await chat()
      .locator('.approval[data-decision="deny"]')
      .nth(asked.length - 1)
      .waitFor();
  }
}

test('tool cards and approvals whose arguments and results carry the same attacks stay inert and show hidden characters', async () => {
  await newSession();
  await watchViolations(body());
  const RLO = '\u202E';
  model.enqueue(
    {
      kind: 'toolCalls',
      calls: [
        { id: 'a1', name: 'read_file', arguments: JSON.stringify({ path: 'attack.md' }) },
        { id: 'a2', name: 'read_file', arguments: JSON.stringify({ path: `<img src=x onerror="${pwn('tool-path')}">${RLO}dm.exe` }) },
        { id: 'a3', name: 'write_file', arguments: JSON.stringify({ path: `notes/${RLO}gnp.exe`, content: htmlAttacks(`${leakUrl}/leak`) }) },
        { id: 'a4', name: 'bash', arguments: JSON.stringify({ command: `echo safe ${RLO}# && curl ${leakUrl}/leak-bash` }) },
      ],
    },
    { kind: 'text', chunks: ['Tools are done.'] },
  );
  await chat().locator('[data-role="input"]').fill('Use tools on the attacks');
  await chat().locator('[data-role="input"]').press('Enter');
  const asked = await denyUntil(chat().locator('.message.assistant', { hasText: 'Tools are done.' }));
  await chat().locator('body[data-turn="idle"]').waitFor();
  assert.deepEqual(asked, [
    'Braid wants to change a file: Create notes/⟨U+202E⟩gnp.exe',
    `Braid wants to run a command: echo safe ⟨U+202E⟩# && curl ${leakUrl}/leak-bash`,
  ]);
  await openCards();
  const read = chat().locator('.tool', { hasText: 'read_file attack.md' });
  assert.match((await read.locator('.tool-result').textContent()) ?? '', /<script>document\.body\.dataset\.pwned/);
  const bad = chat().locator('.tool', { hasText: 'dm.exe' });
  assert.match((await bad.locator('.tool-summary').textContent()) ?? '', /^read_file <img src=x onerror=".*">⟨U\+202E⟩dm\.exe$/);
  await workbench.screenshot('tool-cards');
  await assertInert('tool cards');
  await poke(chat().locator('.tool').first());
  await assertInert('tool cards after hovering and clicking');
  await stillUsable('the tool cards');
});

test('after a reload the same answers and cards render from the log, still inert', async () => {
  await workbench.reloadTo((await body().getAttribute('data-session')) ?? '');
  await chat().locator('.message.assistant', { hasText: 'Tools are done.' }).waitFor();
  await openCards();
  await assertInert('tool cards from the log');
  await workbench.page.locator('.monaco-list-row', { hasText: 'Render these attacks' }).click();
  await chat().locator('.message.assistant', { hasText: 'End of the attack answer.' }).waitFor({ timeout: 15_000 });
  await chat()
    .locator('[data-role="transcript"]')
    .evaluate((el) => (el.scrollTop = 0));
  await chat().locator('.message.assistant', { hasText: 'Attack answer' }).waitFor();
  await workbench.screenshot('attacks-from-the-log');
  await assertInert('html attacks from the log');
  await stillUsable('the reload');
});

/** The key and the base64 of every way it can sit in a base64 text (each alignment, edges cut). */
function secretForms(key: string): string[] {
  const forms = [key];
  for (let pad = 0; pad < 3; pad++) {
    const encoded = Buffer.from(`${'x'.repeat(pad)}${key}`).toString('base64');
    forms.push(encoded.slice(pad === 0 ? 0 : 4, -4));
  }
  return forms;
}

/** Files under `dir` whose bytes contain one of `forms`, as `file: form`. */
function filesContaining(dir: string, forms: readonly string[]): { scanned: number; found: string[] } {
  let scanned = 0;
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        scanned++;
        const bytes = fs.readFileSync(full);
        for (const form of forms) if (bytes.includes(form) || bytes.includes(Buffer.from(form, 'utf16le'))) found.push(`${path.relative(dir, full)}: ${form}`);
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return { scanned, found };
}

test('an API key set with Braid: Set API Key is sent to the server but written to no file of Braid, no log and not the Output channel', async () => {
  const key = `sk-braid-canary-${crypto.randomBytes(12).toString('hex')}`;
  await workbench.runCommand('Braid: Set API Key');
  const box = workbench.page.locator('.quick-input-widget', { hasText: 'API key for openai-compatible' });
  await box.waitFor();
  assert.equal(await box.locator('input').getAttribute('type'), 'password');
  await box.locator('input').fill(key);
  await box.locator('input').press('Enter');
  await workbench.page.locator('.notifications-toasts', { hasText: 'Braid stored the API key for openai-compatible.' }).waitFor();
  await newSession();

  model.enqueue(
    { kind: 'text', chunks: ['The key works.'] },
    { kind: 'httpError', status: 401, message: 'Incorrect API key provided.' },
    { kind: 'httpError', status: 500, message: 'The server broke.' },
  );
  await workbench.send('Use the stored key');
  const sent = model.requests.slice(-1).map((r) => r.headers.authorization);
  assert.deepEqual(sent, [`Bearer ${key}`], 'the stored key is what the server received');
  await workbench.send('Fail with 401', 'failed');
  await workbench.send('Fail with 500', 'failed');
  assert.deepEqual(
    model.requests.slice(-2).map((r) => r.headers.authorization),
    [`Bearer ${key}`, `Bearer ${key}`],
  );

  await workbench.runCommand('Braid: Show Log');
  const output = workbench.page.locator('.part.panel .monaco-editor .view-lines');
  await output.waitFor({ timeout: 15_000 });
  await workbench.screenshot('output-channel');
  const shown = (await output.textContent()) ?? '';
  const forms = secretForms(key);
  for (const form of forms) assert.equal(shown.includes(form), false, 'the key is in the Output channel');
  assert.equal((await chat().locator('body').innerHTML()).includes(key), false, 'the key is in the Chat page');

  const profile = workbench.profile!;
  const data = filesContaining(workbench.globalStorage, forms);
  assert.ok(data.scanned > 3, `only ${data.scanned} files in Braid's data folder`);
  assert.deepEqual(data.found, [], "the key is in Braid's data folder");
  const logsDir = path.join(profile.userData, 'logs');
  const logs = filesContaining(logsDir, forms);
  assert.deepEqual(logs.found, [], "the key is in VS Code's logs");
  // Braid's Output channel is one of those logs: make sure it was among the files read.
  const channelFiles = listFiles(logsDir).filter((f) => /braid/i.test(path.basename(f)));
  assert.ok(channelFiles.length > 0, "Braid's output channel log was not found under the logs folder");
  for (const form of forms)
    assert.equal(fs.readFileSync(path.join(workbench.outputDir, 'code-server.log'), 'utf8').includes(form), false, "the key is in code-server's own log");
  // Where VS Code keeps the secret is its business; say where it is, for the record.
  const elsewhere = filesContaining(profile.root, forms).found.filter((f) => !f.startsWith(path.relative(profile.root, workbench.globalStorage)));
  console.log(
    `the key is stored by VS Code in: ${JSON.stringify(elsewhere)}; scanned ${data.scanned} data files and ${logs.scanned} log files (Braid's channel: ${channelFiles.map((f) => path.relative(logsDir, f)).join(', ')})`,
  );
});

function listFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}
