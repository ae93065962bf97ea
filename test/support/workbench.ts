import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, selectors, type Browser, type FrameLocator, type Locator, type Page } from 'playwright-core';
import { ensureToolchain } from '../../scripts/toolchain.mjs';
import type { WireRecord } from '../../src/core/wire/records';
import { readWireLog } from '../../src/core/wire/wireReader';
import { initRepo } from './gitRepo';
import { openStore } from './store';
import { PUBLISHER_ID, freePort, installExtension, prepareProfile, startCodeServer, type Profile } from './codeServer';

const repoRoot = process.env.BRAID_REPO_ROOT ?? process.cwd();

/**
 * A selector engine (`braidChat=view`, `braidChat=editor`) for the outer iframe of a Chat page by
 * where it sits: over the side bar, or elsewhere (an editor tab). VS Code gives the two nothing
 * else that tells them apart (a view's webview re-created after hiding loses its `purpose`).
 * Evaluated in the workbench page, so it refers to nothing outside itself.
 */
function chatPageFrames() {
  // The DOM as far as this engine uses it (the e2e build has no DOM types).
  type Box = { left: number; right: number; width: number; height: number };
  type Found = { getBoundingClientRect(): Box };
  type Root = { ownerDocument?: Root | null; querySelector(s: string): Found | null; querySelectorAll(s: string): ArrayLike<Found> };
  const find = (root: Root, place: string): Found[] => {
    const doc = root.ownerDocument ?? root;
    const sideBar = doc.querySelector('.part.sidebar')?.getBoundingClientRect();
    return Array.from(root.querySelectorAll('iframe.webview.ready')).filter((frame) => {
      const r = frame.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return false;
      const overSideBar = sideBar !== undefined && sideBar.width > 0 && r.left >= sideBar.left - 1 && r.right <= sideBar.right + 1;
      return (place === 'view') === overSideBar;
    });
  };
  return { query: (root: Root, place: string) => find(root, place)[0] ?? null, queryAll: find };
}
let chatPagesEngine: Promise<void> | undefined;

/** Options of one real-VS-Code run. */
export interface WorkbenchOptions {
  /** Name of the scenario: screenshots and logs go to test-output/<name>/. */
  readonly name: string;
  /** User settings merged over the defaults (braid.* among them; `braid.suggestions` is `off` unless set here). */
  readonly settings?: Record<string, unknown>;
  /** Files to create in the fresh workspace folder. */
  readonly files?: Record<string, string>;
  /** Extension folders (with a package.json) to package and install beside Braid, such as test fixtures. */
  readonly extraExtensions?: readonly string[];
  /** Open the folder untrusted (Workspace Trust on, no startup prompt): Restricted Mode. */
  readonly untrusted?: boolean;
  /** Variables set for code-server (and so the extension host) over the profile's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** Make the workspace a git repository with `files` committed on branch main (and a user identity in its config). */
  readonly repository?: boolean;
}

/** Packages an extension folder into a .vsix under out/test/ with vsce. */
export function packageExtension(dir: string): string {
  const out = path.join(repoRoot, 'out', 'test', `${path.basename(dir)}.vsix`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const vsce = path.join(repoRoot, 'node_modules', '.bin', 'vsce');
  const result = spawnSync(vsce, ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`packaging ${dir} failed: ${result.stderr || result.stdout}`);
  return out;
}

/**
 * A real VS Code (code-server) with the packaged Braid installed, in a fresh profile and a fresh
 * workspace folder, driven in Debian's Chromium. `close()` ends Chromium and code-server's
 * whole process group, and must run even when the test fails.
 */
export class Workbench {
  private shots = 0;

  private constructor(
    readonly page: Page,
    readonly outputDir: string,
    readonly workspace: string,
    readonly profile: Profile | undefined,
    private readonly browser: Browser,
    private readonly cleanup: () => Promise<void>,
    /** A window of another's browser (newWindow): closing it closes this page only. */
    private readonly ownPage?: Page,
  ) {}

  static async launch(options: WorkbenchOptions): Promise<Workbench> {
    const vsix = path.join(repoRoot, 'braid.vsix');
    if (!fs.existsSync(vsix)) throw new Error('braid.vsix is missing: run `npm run package` first (npm run test:e2e does).');
    const outputDir = Workbench.outputFolder(options.name);
    // Chromium starts while the workspace, the profile and code-server are made ready.
    const browser = launchBrowser();
    browser.catch(() => undefined); // a failure to start is open()'s to report, later
    let served: Served;
    try {
      served = await serve(options, vsix, outputDir);
    } catch (err) {
      await browser.then((b) => b.close()).catch(() => undefined);
      throw err;
    }
    return Workbench.open(served.url, outputDir, served.workspace, served.profile, served.cleanup, browser);
  }

  /**
   * Opens a workbench URL served by someone else (for example `npm start`) in Chromium, or in
   * `launching`, a Chromium started already. `cleanup` runs after the browser closes, also when
   * opening fails.
   */
  static async open(
    url: string,
    outputDir: string,
    workspace: string,
    profile: Profile | undefined,
    cleanup: () => Promise<void> = async () => {},
    launching: Promise<Browser> = launchBrowser(),
  ): Promise<Workbench> {
    let browser: Browser | undefined;
    try {
      browser = await launching;
      chatPagesEngine ??= selectors.register('braidChat', chatPageFrames);
      await chatPagesEngine;
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const consoleLog = fs.createWriteStream(path.join(outputDir, 'browser-console.log'));
      page.on('console', (m) => consoleLog.write(`[${m.type()}] ${m.text()}\n`));
      await page.goto(url);
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      return new Workbench(page, outputDir, workspace, profile, browser, cleanup);
    } catch (err) {
      await browser?.close().catch(() => {});
      await cleanup();
      throw err;
    }
  }

  /**
   * The window that `open` makes VS Code open (Open Folder in a new window: a new browser page),
   * as a Workbench of its own on `workspace`; its screenshots go to a subfolder `name`. Closing it
   * closes only its page.
   */
  async newWindow(name: string, workspace: string, open: () => Promise<void>): Promise<Workbench> {
    const [page] = await Promise.all([this.page.context().waitForEvent('page', { timeout: 30_000 }), open()]);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    const outputDir = path.join(this.outputDir, name);
    fs.mkdirSync(outputDir, { recursive: true });
    return new Workbench(page, outputDir, workspace, this.profile, this.browser, async () => undefined, page);
  }

  /** A fresh, empty output folder test-output/<name>/. */
  static outputFolder(name: string): string {
    const outputDir = path.join(repoRoot, 'test-output', name);
    fs.rmSync(outputDir, { recursive: true, force: true });
    fs.mkdirSync(outputDir, { recursive: true });
    return outputDir;
  }

  /** The extension's globalStorage folder in this profile. */
  get globalStorage(): string {
    if (!this.profile) throw new Error('this workbench was opened by URL; its profile is not known');
    return path.join(this.profile.userData, 'User', 'globalStorage', PUBLISHER_ID);
  }

  /**
   * Saves a numbered screenshot of the whole window into the output folder; with `readmeName` and
   * BRAID_README_SCREENSHOTS=1, also as the README's picture docs/images/<readmeName>.png.
   */
  async screenshot(step: string, readmeName?: string): Promise<string> {
    const file = path.join(this.outputDir, `${String(++this.shots).padStart(2, '0')}-${step}.png`);
    await this.page.screenshot({ path: file });
    if (readmeName && process.env.BRAID_README_SCREENSHOTS === '1') {
      fs.mkdirSync(path.join(repoRoot, 'docs', 'images'), { recursive: true });
      fs.copyFileSync(file, path.join(repoRoot, 'docs', 'images', `${readmeName}.png`));
    }
    return file;
  }

  /**
   * Braid: New Session, then waits for the Chat view to show it (its page no longer names the
   * session before): a prompt typed before the page re-renders would be cleared with the input.
   */
  async newSession(): Promise<void> {
    const before = await this.chatFrame().locator('body').getAttribute('data-session');
    await this.runFromPalette('Braid: New Session');
    await this.chatFrame()
      .locator(`body:not([data-session="${before ?? ''}"])`)
      .waitFor({ timeout: 10_000 });
  }

  /** Opens the Braid container and waits until the Chat view's page has had its first snapshot. */
  async openChat(): Promise<void> {
    await this.openBraid();
    await this.chatFrame().locator('body[data-handshake="complete"]').waitFor({ timeout: 30_000 });
  }

  /** The records of the main log of the session the Chat view shows, read from the profile's store. */
  async shownSessionRecords(): Promise<WireRecord[]> {
    const id = await this.chatFrame().locator('body').getAttribute('data-session');
    if (!id) throw new Error('the Chat view shows no session');
    const store = await openStore(this.globalStorage);
    try {
      return readWireLog(store.layout.agentLog(store.locate(id))).records;
    } finally {
      await store.close();
    }
  }

  /** Trusts the workspace folder through VS Code's trust editor, closes it, and waits for the chat to say so. */
  async trustWorkspace(): Promise<void> {
    await this.runCommand('Workspaces: Manage Workspace Trust');
    const trustButton = this.page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
    await trustButton.waitFor({ timeout: 15_000 });
    await this.screenshot('trust-editor');
    await trustButton.click();
    await this.page.locator('.workspace-trust-editor', { hasText: 'You trust this folder' }).waitFor({ timeout: 15_000 });
    // The trust editor opens as a modal; it must close before the chat can be used.
    const modal = this.page.locator('.monaco-modal-editor-block');
    await this.page.keyboard.press('Escape');
    const closed = await modal.waitFor({ state: 'hidden', timeout: 3_000 }).then(
      () => true,
      () => false,
    );
    if (!closed) {
      await modal.locator('[aria-label^="Close"]').first().click();
      await modal.waitFor({ state: 'hidden', timeout: 5_000 });
    }
    await this.openBraid();
    await this.chatFrame().locator('body[data-trusted="true"]').waitFor({ timeout: 15_000 });
  }

  /** Clicks the Braid container in the activity bar. */
  async openBraid(): Promise<void> {
    // Clicking the icon of the container already shown would close the side bar.
    const sessions = this.page.locator('.pane-header[aria-label^="Sessions"], .pane-header:has-text("Sessions")').first();
    if (await sessions.isVisible()) return;
    await this.page.locator('.part.activitybar .action-item a[aria-label^="Braid"], .part.activitybar .action-item[aria-label^="Braid"]').first().click();
    await this.page.locator('.pane-header[aria-label^="Sessions"], .pane-header:has-text("Sessions")').first().waitFor();
  }

  /**
   * Right-clicks `target` and returns the context menu's `item`, shown. A context menu closes
   * when focus moves (a webview finishing its load takes it), so a menu that closed before its
   * item showed is opened again, up to three times.
   */
  async contextMenuItem(target: Locator, item: string): Promise<Locator> {
    const action = this.page.locator('.context-view .action-item', { hasText: new RegExp(`^${item}$`) }).first();
    for (let attempt = 1; ; attempt++) {
      await target.click({ button: 'right' });
      const shown = await action.waitFor({ timeout: 3_000 }).then(
        () => true,
        () => false,
      );
      if (shown) return action;
      if (attempt === 3) throw new Error(`the context menu never showed "${item}"`);
      await this.page.keyboard.press('Escape');
    }
  }

  /**
   * Right-clicks `target` and runs its context-menu item `item`. A menu sometimes ignores a click
   * that comes right as it opens; when it is still shown after the click, a second click runs it.
   */
  async pickContextMenuItem(target: Locator, item: string, shot?: string): Promise<void> {
    const action = await this.contextMenuItem(target, item);
    if (shot) await this.screenshot(shot);
    await action.click();
    const menu = this.page.locator('.context-view .monaco-menu');
    const closed = await menu.waitFor({ state: 'hidden', timeout: 1_500 }).then(
      () => true,
      () => false,
    );
    if (!closed) await action.click();
  }

  /** Reloads the window and waits until the Chat view shows `sessionId` again. */
  async reloadTo(sessionId: string): Promise<void> {
    await this.page.reload();
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // The window restores the Braid container it showed; open it only if it does not come back.
    await this.page
      .locator('.pane-header', { hasText: 'Sessions' })
      .first()
      .waitFor({ timeout: 10_000 })
      .catch(() => undefined);
    await this.openBraid();
    await this.chatFrame().locator(`body[data-session="${sessionId}"]`).waitFor({ timeout: 30_000 });
  }

  /** The side bar's Chat view's document (nested iframes). */
  chatFrame(): FrameLocator {
    return this.page.frameLocator('braidChat=view').frameLocator('#active-frame');
  }

  /** The document of the chat in an editor tab (Braid: Open Chat in Editor). */
  editorChatFrame(): FrameLocator {
    return this.page.frameLocator('braidChat=editor').frameLocator('#active-frame');
  }

  /** Drags the side bar's edge until the side bar is `width` px wide; returns the width it got. */
  async setSideBarWidth(width: number): Promise<number> {
    const sideBar = this.page.locator('.part.sidebar');
    for (let attempt = 0; attempt < 3; attempt++) {
      const box = await sideBar.boundingBox();
      if (!box) throw new Error('the side bar is not shown');
      if (Math.abs(box.width - width) <= 1) return box.width;
      // The sash sits on the side bar's right edge; drag it by the difference.
      const y = box.y + box.height / 2;
      await this.page.mouse.move(box.x + box.width - 1, y);
      await this.page.mouse.down();
      await this.page.mouse.move(box.x + width - 1, y, { steps: 5 });
      await this.page.mouse.up();
    }
    return (await sideBar.boundingBox())!.width;
  }

  /**
   * The Usage view's document, opened after the Chat view: VS Code adds each webview's frame
   * after those it made before, and marks neither (so while both are open, the chat is driven
   * from outside, by the CLI).
   */
  usageFrame(): FrameLocator {
    return this.page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
  }

  /**
   * Sends a prompt from the Chat view and waits for its turn to end; returns the turn's status
   * line (usage, "Stopped." or the error).
   */
  async send(text: string, expected: 'completed' | 'failed' | 'cancelled' = 'completed', timeout = 15_000): Promise<string> {
    const chat = this.chatFrame();
    await chat.locator('[data-role="input"]').fill(text);
    await chat.locator('[data-role="input"]').press('Enter');
    await chat.locator('body[data-turn="idle"]').waitFor({ timeout });
    const status = chat.locator('.turn-status').last();
    assert.equal(await status.getAttribute('data-outcome'), expected, `the turn of "${text}" ended ${await status.textContent()}`);
    return (await status.textContent()) ?? '';
  }

  /**
   * A notice of this window: its toast, or, when VS Code did not show one (it shows at most three,
   * and not always a notice that came with another), its row in the notification center, which
   * lists every notice with its buttons.
   */
  async notice(text: string | RegExp): Promise<Locator> {
    const shown = this.page.locator('.notification-toast', { hasText: text }).last();
    if (
      await shown.waitFor({ timeout: 10_000 }).then(
        () => true,
        () => false,
      )
    )
      return shown;
    const listed = this.page.locator('.notifications-center .notification-list-item', { hasText: text }).last();
    if (!(await listed.isVisible())) await this.runCommand('Notifications: Show Notifications');
    await listed.waitFor({ timeout: 10_000 });
    return listed;
  }

  /** Runs a command from the palette by its full title, e.g. "Braid: Show Log". */
  async runCommand(title: string): Promise<void> {
    if (title === 'Braid: New Session') throw new Error('use newSession(): it waits for the Chat view to show the new session');
    await this.runFromPalette(title);
  }

  private async runFromPalette(title: string): Promise<void> {
    await this.openPalette();
    const input = this.page.locator('.quick-input-widget input');
    await input.fill(`>${title}`);
    await this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
    await input.press('Enter');
  }

  /**
   * Opens the command palette. F1 pressed while the focus is in a webview (the Chat view after a
   * session opened) reaches the workbench only through the webview's key forwarding, which can
   * drop it; so when the palette does not show, the focus goes to the editor area and F1 again.
   * A quick pick still showing (or still closing) is not the palette: it is closed first, and
   * the palette counts as open only when its input says `>`, as the palette's does.
   */
  async openPalette(): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    const input = widget.locator('input').first();
    await this.closeQuickInput();
    for (let attempt = 0; attempt < 3; attempt++) {
      await this.page.keyboard.press('F1');
      const shown = await widget.waitFor({ state: 'visible', timeout: 2_000 }).then(
        () => true,
        () => false,
      );
      if (shown && (await input.inputValue({ timeout: 2_000 }).catch(() => '')).startsWith('>')) return;
      if (shown) await this.closeQuickInput();
      await this.page
        .locator('.part.editor')
        .click({ position: { x: 20, y: 20 } })
        .catch(() => undefined);
    }
    await this.screenshot('palette-did-not-open').catch(() => undefined);
    throw new Error('the command palette did not open');
  }

  /** Closes the quick input showing, if one is, and waits until it has gone. */
  private async closeQuickInput(): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    for (let attempt = 0; attempt < 3 && (await widget.isVisible()); attempt++) {
      await this.page.keyboard.press('Escape');
      await widget.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    if (this.ownPage) return this.ownPage.close().catch(() => {});
    await this.browser.close().catch(() => {});
    await this.cleanup();
  }
}

/** A code-server of a fresh profile and workspace folder, ready for a browser. */
interface Served {
  readonly url: string;
  readonly workspace: string;
  readonly profile: Profile;
  /** Stops code-server, keeps Braid's logs and removes the run's folder. */
  readonly cleanup: () => Promise<void>;
}

/** Makes the workspace folder and the profile of `options`, installs Braid, and starts code-server on them. */
async function serve(options: WorkbenchOptions, vsix: string, outputDir: string): Promise<Served> {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-e2e-'));
  const workspace = path.join(runDir, 'workspace');
  writeFiles(workspace, options.files ?? {});
  if (options.repository) initRepo(workspace, {});
  const trustSettings = options.untrusted
    ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.emptyWindow': false }
    : {};
  // Suggestions off unless a spec asks: with `auto` every turn against the scripted server on
  // 127.0.0.1 would be followed by a suggestion request taking the spec's next scripted reply.
  const profile = prepareProfile(path.join(runDir, 'profile'), { 'braid.suggestions': 'off', ...trustSettings, ...options.settings });
  installExtension(profile, vsix);
  for (const extra of options.extraExtensions ?? []) installExtension(profile, packageExtension(extra));
  const server = await startCodeServer({
    profile,
    port: await freePort(),
    folder: workspace,
    logFile: path.join(outputDir, 'code-server.log'),
    workspaceTrust: options.untrusted === true,
    ...(options.env ? { env: options.env } : {}),
  });
  const cleanup = async () => {
    await server.stop();
    keepBraidLogs(path.join(profile.userData, 'logs'), outputDir);
    fs.rmSync(runDir, { recursive: true, force: true });
  };
  return { url: `${server.url}/?folder=${encodeURIComponent(workspace)}`, workspace, profile, cleanup };
}

/** Writes `files` (relative path: content) under `dir`, making each folder once. */
function writeFiles(dir: string, files: Record<string, string>): void {
  const made = new Set<string>([dir]);
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    const folder = path.dirname(file);
    if (!made.has(folder)) fs.mkdirSync(folder, { recursive: true });
    made.add(folder);
    fs.writeFileSync(file, content);
  }
}

/** Debian's Chromium, headless, driven by Playwright. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: ensureToolchain().chromium,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** Copies Braid's Output channel log(s) of a run into its test-output folder, for reading after the run folder is gone. */
function keepBraidLogs(logsDir: string, outputDir: string): void {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  if (!fs.existsSync(logsDir)) return;
  walk(logsDir)
    .filter((f) => /braid/i.test(path.basename(f)))
    .forEach((f, i) => fs.copyFileSync(f, path.join(outputDir, `braid-output-${i + 1}.log`)));
}
