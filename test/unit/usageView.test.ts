import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  byTokens,
  chartDays,
  chartLayout,
  CHART_DAYS,
  formatCompact,
  formatCost,
  formatCount,
  newestFirst,
  niceCeiling,
  sessionNote,
} from '../../media/src/usage/usageModel';
import { forkSession } from '../../src/core/store/fork';
import { workspaceKey } from '../../src/core/workspace/workspaceKey';
import { parseUsagePageMessage, type UsageLineView } from '../../src/protocol/usage';
import { usageViewData } from '../../src/vscode/usage/usageViewData';
import { webviewHtml } from '../../src/vscode/webviewHtml';
import { addTurn, openStore, tempRoots } from '../support/store';

const { root, cleanup } = tempRoots();
after(cleanup);

const line = (key: string, input: number, output = 0, cacheRead = 0): UsageLineView => ({ key, calls: 1, input, cacheRead, cacheWrite: 0, output, cost: 0 });

test('the page data: sessions by their own calls, a fork naming its source and turn, a deleted source said so, the same totals as the report', async () => {
  const store = await openStore(root());
  try {
    const source = await store.create({ workspaceDir: '/work/alpha' });
    let w = await store.openWriter(source.id);
    await addTurn(w, 'Plan the trip to the mountains with a list of everything to pack', 'ok');
    await addTurn(w, 'second', 'ok');
    await w.close();
    const fork = await forkSession(store, source.id, { turn: 1 });
    w = await store.openWriter(fork.id);
    await addTurn(w, 'and the food', 'ok');
    await w.close();
    const report = store.index.usageReport(workspaceKey('/work/alpha'));
    const data = usageViewData(report, (id) => store.index.get(id), { scope: 'workspace', workspaceName: 'alpha', now: Date.UTC(2026, 4, 2, 23, 59) });
    assert.equal(data.today, '2026-05-02', 'today in UTC, as days are counted');
    assert.deepEqual(data.total, { calls: 3, input: 30, cacheRead: 6, cacheWrite: 0, output: 15, cost: report.total.cost });
    const bySession = Object.fromEntries(data.sessions.map((s) => [s.id, s]));
    assert.equal(bySession[source.id]!.title, 'Plan the trip to the mountains with a list of…', 'titles cut as everywhere');
    assert.equal(bySession[source.id]!.calls, 2);
    assert.equal(bySession[source.id]!.fork, null);
    assert.equal(bySession[fork.id]!.calls, 1, 'a fork counts its own calls only');
    assert.deepEqual(bySession[fork.id]!.fork, { sourceTitle: 'Plan the trip to the mountains with a list of…', turn: 1 });
    assert.equal(
      sessionNote(bySession[fork.id]!),
      'Its own calls only: the history it inherited from "Plan the trip to the mountains with a list of…" (up to turn 1) is counted under that session.',
    );
    assert.equal(sessionNote(bySession[source.id]!), undefined);

    // The source deleted: its calls are still counted (its fork holds them), under a line that says so.
    await store.delete(source.id);
    const after = usageViewData(store.index.usageReport(workspaceKey('/work/alpha')), (id) => store.index.get(id), {
      scope: 'workspace',
      workspaceName: 'alpha',
      now: Date.now(),
    });
    const gone = after.sessions.find((s) => s.id === source.id)!;
    assert.equal(gone.deleted, true);
    assert.equal(gone.title, `Deleted session ${source.id}`);
    assert.match(sessionNote(gone)!, /forks still hold these calls/);
    assert.deepEqual(after.sessions.find((s) => s.id === fork.id)!.fork, { sourceTitle: 'a deleted session', turn: 1 });
  } finally {
    await store.close();
  }
});

test('the chart covers every day from the first with usage to today, empty days as zero, at most CHART_DAYS', () => {
  const days = chartDays([line('2026-05-01', 100, 50, 20), line('2026-04-28', 10), line('unknown', 999)], '2026-05-03');
  assert.equal(days.at(-1)!.day, '2026-05-03', 'ends today');
  assert.equal(days.length, 14, 'at least two weeks, so one day is not the whole width');
  assert.deepEqual(days.find((d) => d.day === '2026-05-01')!.tokens, { input: 100, cached: 20, output: 50 });
  assert.equal(days.find((d) => d.day === '2026-04-29')!.total, 0);
  assert.ok(!days.some((d) => d.day === 'unknown'), 'a day no clock gives stays in the table only');
  const long = chartDays([line('2025-01-01', 1), line('2026-05-01', 1)], '2026-05-01');
  assert.equal(long.length, CHART_DAYS);
  assert.equal(long[0]!.day, '2026-03-03');
  assert.deepEqual(
    chartDays([], '2026-05-01')
      .map((d) => d.total)
      .filter(Boolean),
    [],
    'no usage: an empty chart',
  );
});

test('chart geometry: stacked bars inside the plot, proportional to their tokens, with an axis that rounds up', () => {
  const days = chartDays([line('2026-05-01', 300, 100, 200), line('2026-05-02', 150)], '2026-05-02');
  const layout = chartLayout(days, 700, 200);
  assert.equal(layout.ticks.at(-1)!.label, '1k', 'the top of the axis (600 tokens) is the next 1, 2 or 5 times a power of ten');
  const full = layout.plot.bottom - layout.plot.top;
  const busy = layout.bars.find((b) => b.day === '2026-05-01')!;
  assert.deepEqual(
    busy.segments.map((s) => s.kind),
    ['input', 'cached', 'output'],
  );
  assert.deepEqual(
    busy.segments.map((s) => Math.round(s.height)),
    [300, 200, 100].map((t) => Math.round((t / 1000) * full)),
  );
  assert.equal(Math.round(busy.segments.at(-1)!.y), Math.round(layout.plot.bottom - 0.6 * full), 'stacked from the bottom');
  for (const bar of layout.bars) {
    assert.ok(bar.x >= layout.plot.left && bar.x + bar.width <= layout.plot.right);
    for (const s of bar.segments) assert.ok(s.y >= layout.plot.top - 1e-9 && s.y + s.height <= layout.plot.bottom + 1e-9);
  }
  assert.match(busy.label, /^2026-05-01: 600 tokens \(300 input, 200 cached input, 100 output\)$/);
  assert.equal(layout.bars.find((b) => b.day === '2026-04-30')!.segments.length, 0, 'an empty day has no bar, only its tooltip');
  assert.equal(layout.dayLabels.at(-1)!.label, '05-02', 'the last day is always labelled');
  assert.ok(layout.dayLabels.length <= 8);
});

test('numbers as the page shows them, and the order of its tables', () => {
  assert.equal(formatCount(1234567), '1,234,567');
  assert.deepEqual([0, 950, 12_345, 4_560_000, 2e9].map(formatCompact), ['0', '950', '12.3k', '4.6M', '2G']);
  assert.equal(formatCost(0.00123), '$0.0012');
  assert.deepEqual([0, 1, 7, 10, 11, 1999, 2001].map(niceCeiling), [1, 1, 10, 10, 20, 2000, 5000]);
  assert.deepEqual(
    byTokens([line('small', 1), line('big', 100), line('mid', 10)]).map((l) => l.key),
    ['big', 'mid', 'small'],
  );
  assert.deepEqual(
    newestFirst([line('2026-01-02', 1), line('2026-03-01', 1), line('unknown', 1)]).map((l) => l.key),
    ['unknown', '2026-03-01', '2026-01-02'],
  );
});

test('the page may ask for a scope or to open a session, nothing else', () => {
  assert.deepEqual(parseUsagePageMessage({ type: 'scope', scope: 'all', extra: 1 }), { type: 'scope', scope: 'all' });
  assert.equal(parseUsagePageMessage({ type: 'scope', scope: 'everything' }), undefined);
  assert.deepEqual(parseUsagePageMessage({ type: 'openSession', id: 'ses_01ARZ3NDEKTSV4RRFFQ69G5FAV' }), {
    type: 'openSession',
    id: 'ses_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  });
  assert.equal(parseUsagePageMessage({ type: 'openSession', id: '../../etc' }), undefined);
  assert.equal(parseUsagePageMessage({ type: 'runCommand', command: 'x' }), undefined);
  assert.equal(parseUsagePageMessage('ready'), undefined);
});

test("the Usage page has the Chat page's strict CSP and runs only its own script, by nonce", () => {
  const fakeUri = (p: string) => ({ path: p, toString: () => `https://webview.test${p}` }) as unknown as import('vscode').Uri;
  const webview = { cspSource: 'https://webview.test', asWebviewUri: (u: unknown) => u } as unknown as import('vscode').Webview;
  const join = (base: import('vscode').Uri, ...parts: string[]) => fakeUri([(base as unknown as { path: string }).path, ...parts].join('/'));
  const html = webviewHtml(webview, fakeUri('/ext'), { script: 'usage.js', style: 'usage-style.css', title: 'Braid Usage', initial: {} }, join);
  const csp = /content="([^"]+)"/.exec(html)?.[1] ?? '';
  assert.match(csp, /^default-src 'none'; /);
  assert.doesNotMatch(csp, /unsafe-(inline|eval)/);
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
  assert.equal(scripts.length, 1);
  assert.ok(scripts[0]!.includes(`nonce="${/script-src 'nonce-([^']+)'/.exec(csp)?.[1]}"`) && scripts[0]!.includes('/ext/dist/usage.js'));
  assert.match(html, /<link rel="stylesheet" href="https:\/\/webview\.test\/ext\/dist\/usage-style\.css">/);
});
