// A long session in the real Chat view: generated into the workbench's store, opened from the
// palette, and paged back to its first message by a user who keeps the view at the top. Shared by
// test/e2e/chatPaging.e2e.ts (what the user sees) and bench/chatPaging.ts (how fast it is).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { generateSessions } from '../../bench/generate';
import { sessionFolderLayout } from '../../src/core/format/layout';
import { repoRoot } from './store';
import type { Workbench } from './workbench';

/** Messages in one generated turn (prompt, tool call, tool result, answer). */
const MESSAGES_PER_TURN = 4;

/** A generated session: its id and the id of its first message (the first prompt). */
export interface LongSession {
  readonly id: string;
  readonly firstMessageId: string;
}

/**
 * Writes `count` sessions of `messages` messages each into the workbench's store (in its
 * workspace) and rebuilds the index with the CLI, so the palette finds them.
 */
export function addLongSessions(workbench: Workbench, count: number, messages: number): LongSession[] {
  const dirs = generateSessions(workbench.globalStorage, {
    count,
    workspaces: 1,
    turns: Math.ceil(messages / MESSAGES_PER_TURN),
    shape: 'compact',
    workspaceOf: () => workbench.workspace,
  });
  const cli = spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), '--data-dir', workbench.globalStorage, 'rebuild-index'], {
    encoding: 'utf8',
  });
  if (cli.status !== 0) throw new Error(`braid rebuild-index failed: ${cli.stderr}`);
  return dirs.map((dir) => ({ id: path.basename(dir), firstMessageId: firstMessageId(sessionFolderLayout.agentLog(dir)) }));
}

/** The id of the first message record of a log. */
function firstMessageId(log: string): string {
  for (const line of fs.readFileSync(log, 'utf8').split('\n')) {
    const record = JSON.parse(line) as { t: string; id?: string };
    if (record.t === 'message' && record.id) return record.id;
  }
  throw new Error(`${log} has no message`);
}

/** Opens session `id` from the palette; resolves once its newest page is painted, with the time it took. */
export async function openFromPalette(workbench: Workbench, id: string): Promise<{ openedMs: number; renderMs: number }> {
  const started = Date.now();
  await workbench.runCommand('Braid: Open Session...');
  await workbench.page.locator('.quick-input-widget input').fill(id);
  await workbench.page.locator('.quick-input-widget input').press('Enter');
  const body = workbench.chatFrame().locator(`body[data-session="${id}"][data-render-ms]`);
  await body.waitFor({ timeout: 60_000 });
  return { openedMs: Date.now() - started, renderMs: Number(await body.getAttribute('data-render-ms')) };
}

/** What paging back to the first message took, measured inside the page. */
export interface PagingRun {
  /** From the first scroll to the top until the first message is on screen. */
  readonly ms: number;
  /** Older pages that arrived (each moved the view down from the top). */
  readonly pages: number;
  /** The page's entry count at the end (its `data-entries`). */
  readonly entries: number;
  /** The most rows the transcript held in the DOM at once. */
  readonly maxRows: number;
  /** False when the time ran out before the first message was in the DOM. */
  readonly reachedStart: boolean;
}

/**
 * Scrolls the Chat view's transcript to the top and keeps it there, as a user holding the
 * scroll bar at the top would: each time an older page arrives (the page keeps the row that was
 * at the top in place, so the view moves down) it goes back to the top, until the page says no
 * older page exists and the row of message `firstMessageId` is in the DOM.
 */
export function pageToStart(chat: FrameLocator, firstMessageId: string, timeoutMs = 120_000): Promise<PagingRun> {
  return chat.locator('body').evaluate(holdAtTop, { firstKey: firstMessageId, timeoutMs });
}

/**
 * Runs in the Chat page (so it refers to nothing outside itself): checks once per frame, which
 * is as often as the page can show anything new. Types of the DOM are its own, as this file
 * builds without the DOM library.
 */
async function holdAtTop(body: unknown, args: { firstKey: string; timeoutMs: number }): Promise<PagingRun> {
  interface Element {
    scrollTop: number;
  }
  interface Page {
    querySelector(selector: string): Element | null;
    querySelectorAll(selector: string): ArrayLike<Element>;
  }
  const page = (body as { ownerDocument: Page }).ownerDocument;
  const data = (body as { dataset: Record<string, string | undefined> }).dataset;
  const nextFrame = () =>
    new Promise((resolve) => (globalThis as unknown as { requestAnimationFrame(f: () => void): void }).requestAnimationFrame(() => resolve(undefined)));
  const transcript = page.querySelector('[data-role="transcript"]')!;
  const shown = () => page.querySelector(`.row[data-key="${args.firstKey}"]`) !== null;
  const started = performance.now();
  let pages = 0;
  let maxRows = 0;
  let reachedStart = false;
  let held = false;
  while (performance.now() - started < args.timeoutMs) {
    maxRows = Math.max(maxRows, page.querySelectorAll('.row').length);
    if (data.hasOlder === 'false' && shown()) {
      reachedStart = true;
      break;
    }
    if (transcript.scrollTop !== 0) {
      // Only a page put before the rows moves the view once held at the top.
      if (held) pages++;
      transcript.scrollTop = 0;
      held = true;
    }
    await nextFrame();
  }
  return { ms: performance.now() - started, pages, entries: Number(data.entries ?? NaN), maxRows, reachedStart };
}
