// The Usage page: totals, a chart of tokens per day and tables by session, model and day, from
// the data the host posts. Every text from the host goes in as text (titles are user input).
import {
  cacheHitShare,
  type UsageAgentView,
  type UsageFiguresView,
  type UsageHostMessage,
  type UsageLineView,
  type UsagePageMessage,
  type UsageScope,
  type UsageSessionView,
  type UsageViewData,
} from '../../../src/protocol/usage';
import {
  byTokens,
  chartDays,
  chartLayout,
  formatCost,
  formatCount,
  formatShare,
  newestFirst,
  sessionNote,
  TOKEN_KINDS,
  TOKEN_NAMES,
  type ChartLayout,
} from './usageModel';

declare function acquireVsCodeApi(): { postMessage(message: UsagePageMessage): void };
const host = acquireVsCodeApi();
const SVG = 'http://www.w3.org/2000/svg';

const app = document.getElementById('app') as HTMLElement;
app.innerHTML = `
  <header class="head">
    <h1>Braid usage</h1>
    <div class="scope" role="group" aria-label="Which sessions">
      <button type="button" data-scope="workspace">This workspace</button>
      <button type="button" data-scope="all">All workspaces</button>
    </div>
  </header>
  <p class="note">Each model call is counted once: a fork's copy of its source's history and the turns an undo brings back are not new calls. Sessions in the trash are not counted.</p>
  <p class="note" data-role="shared-note" hidden></p>
  <section class="totals" data-role="totals" aria-label="Totals"></section>
  <section data-role="chart-section">
    <h2>Tokens per day (UTC)</h2>
    <div class="legend" data-role="legend"></div>
    <div data-role="chart"></div>
  </section>
  <section><h2>By session</h2><div data-role="sessions"></div></section>
  <section>
    <h2>Prompt cache breaks</h2>
    <p class="note">A call that read far less of its prompt from the provider's cache than the call before it, with the likely cause and what the tokens not read from the cache cost over their cached price (an estimate).</p>
    <div data-role="breaks"></div>
  </section>
  <section><h2>Beside the turns</h2><div data-role="side-calls"></div></section>
  <section><h2>By agent</h2><div data-role="agents"></div></section>
  <section><h2>By model</h2><div data-role="models"></div></section>
  <section><h2>By day (UTC)</h2><div data-role="days"></div></section>`;

const part = (role: string) => app.querySelector(`[data-role="${role}"]`) as HTMLElement;
const scopeButtons = Array.from(app.querySelectorAll<HTMLButtonElement>('[data-scope]'));
for (const b of scopeButtons) b.addEventListener('click', () => host.postMessage({ type: 'scope', scope: b.dataset.scope as UsageScope }));

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

function svg(tag: string, attributes: Record<string, string | number>): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) e.setAttribute(name, String(value));
  return e;
}

const COLUMNS = ['Calls', 'Input', 'Cached', 'Output', 'Cost', 'Cache hits'];
const cells = (f: UsageFiguresView) => [
  formatCount(f.calls),
  formatCount(f.input + f.cacheWrite),
  formatCount(f.cacheRead),
  formatCount(f.output),
  formatCost(f.cost),
  formatShare(cacheHitShare(f)),
];

/** A table whose first column is `label` (an element, so sessions can be buttons) and then the figures. */
function table<T extends UsageFiguresView>(first: string, rows: readonly T[], label: (row: T) => HTMLElement, empty: string): HTMLElement {
  if (rows.length === 0) return el('p', empty, 'empty');
  const t = el('table');
  const head = t.createTHead().insertRow();
  for (const name of [first, ...COLUMNS]) head.appendChild(el('th', name)).scope = 'col';
  const body = t.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    const th = tr.appendChild(el('th'));
    th.scope = 'row';
    th.appendChild(label(row));
    for (const c of cells(row)) tr.appendChild(el('td', c, 'num'));
  }
  return t;
}

function sessionCell(s: UsageSessionView): HTMLElement {
  const box = el('div', undefined, 'session');
  const title = s.deleted ? el('span', s.title, 'title deleted') : el('button', s.title, 'title link');
  if (!s.deleted) title.addEventListener('click', () => host.postMessage({ type: 'openSession', id: s.id }));
  title.title = s.deleted ? s.id : `Open ${s.title} in the Chat view (${s.id})`;
  box.appendChild(title);
  const note = sessionNote(s);
  if (note) box.appendChild(el('div', note, 'session-note'));
  return box;
}

/** An agent's row: `main` or the subagent's task (with its id), under its session's title (a button that opens it). */
function agentCell(a: UsageAgentView): HTMLElement {
  const box = el('div', undefined, 'session');
  const name = box.appendChild(el('span', a.agentId === 'main' ? 'main' : a.title, 'title'));
  name.title = a.agentId === 'main' ? 'The main agent (its side calls included)' : `Subagent ${a.agentId}`;
  const open = box.appendChild(el('button', a.sessionTitle, 'session-note link'));
  open.title = `Open ${a.sessionTitle} in the Chat view (${a.sessionId})`;
  open.addEventListener('click', () => host.postMessage({ type: 'openSession', id: a.sessionId }));
  return box;
}

/** The breaks, newest first: the session (a button that opens it), the turn, the cause and what changed. */
function breaksTable(data: UsageViewData): HTMLElement {
  const box = el('div');
  if (data.breaks.length === 0) box.append(el('p', 'No cache breaks.', 'empty'));
  else {
    const t = box.appendChild(el('table'));
    const head = t.createTHead().insertRow();
    for (const name of ['Session', 'Turn', 'Cause', 'What changed', 'Cost']) head.appendChild(el('th', name)).scope = 'col';
    const body = t.createTBody();
    for (const b of data.breaks) {
      const tr = body.insertRow();
      const th = tr.appendChild(el('th'));
      th.scope = 'row';
      const open = th.appendChild(el('button', b.sessionTitle, 'title link'));
      open.addEventListener('click', () => host.postMessage({ type: 'openSession', id: b.sessionId }));
      tr.append(el('td', String(b.turn), 'num'), el('td', b.cause, 'cause'), el('td', b.text), el('td', formatCost(b.cost), 'num'));
    }
  }
  if (data.logsRead.more) box.append(el('p', `From the logs of the ${data.logsRead.sessions} sessions updated last.`, 'note'));
  return box;
}

function renderTotals(data: UsageViewData): void {
  const t = data.total;
  const cards: Array<[string, string]> = [
    ['Calls', formatCount(t.calls)],
    ['Input tokens', formatCount(t.input + t.cacheWrite)],
    ['Cached input', formatCount(t.cacheRead)],
    ['Output tokens', formatCount(t.output)],
    ['Cost', formatCost(t.cost)],
  ];
  part('totals').replaceChildren(
    ...cards.map(([name, value]) => {
      const card = el('div', undefined, 'card');
      card.append(el('div', value, 'value'), el('div', name, 'name'));
      return card;
    }),
  );
}

function chartSvg(layout: ChartLayout, summary: string): SVGElement {
  const root = svg('svg', { viewBox: `0 0 ${layout.width} ${layout.height}`, role: 'img', 'aria-label': summary, class: 'chart' });
  for (const tick of layout.ticks) {
    root.appendChild(svg('line', { x1: layout.plot.left, x2: layout.plot.right, y1: tick.y, y2: tick.y, class: 'grid' }));
    root.appendChild(svg('text', { x: layout.plot.left - 4, y: tick.y + 4, 'text-anchor': 'end', class: 'axis' })).textContent = tick.label;
  }
  for (const bar of layout.bars) {
    const g = root.appendChild(svg('g', { class: 'bar', 'data-day': bar.day }));
    g.appendChild(svg('title', {})).textContent = bar.label;
    // The whole column takes the pointer, so a day without usage has its tooltip too.
    g.appendChild(svg('rect', { x: bar.x, y: layout.plot.top, width: bar.width, height: layout.plot.bottom - layout.plot.top, class: 'hit' }));
    for (const s of bar.segments) g.appendChild(svg('rect', { x: bar.x, y: s.y, width: bar.width, height: s.height, class: `segment ${s.kind}` }));
  }
  for (const label of layout.dayLabels) {
    root.appendChild(svg('text', { x: label.x, y: layout.height - 6, 'text-anchor': 'middle', class: 'axis' })).textContent = label.label;
  }
  return root;
}

function renderChart(data: UsageViewData): void {
  const days = chartDays(data.days, data.today);
  const used = days.filter((d) => d.total > 0).length;
  part('legend').replaceChildren(
    ...TOKEN_KINDS.map((k) => {
      const item = el('span', undefined, 'legend-item');
      item.append(el('span', undefined, `swatch ${k}`), document.createTextNode(TOKEN_NAMES[k]));
      return item;
    }),
  );
  const summary = `Tokens per day from ${days[0]?.day ?? ''} to ${days.at(-1)?.day ?? ''}: usage on ${used} of ${days.length} days. The table By day has the figures.`;
  part('chart').replaceChildren(chartSvg(chartLayout(days), summary));
}

function render(data: UsageViewData): void {
  const here = data.workspaceName;
  for (const b of scopeButtons) {
    b.setAttribute('aria-pressed', String(b.dataset.scope === data.scope));
    if (b.dataset.scope === 'workspace') {
      b.disabled = here === null;
      b.textContent = here === null ? 'This workspace' : `This workspace (${here})`;
    }
  }
  document.body.dataset.scope = data.scope;
  const where = data.scope === 'all' ? 'in any workspace' : 'in this workspace';
  const sharedNote = part('shared-note');
  sharedNote.hidden = data.sharedLeftOut === 0;
  sharedNote.textContent =
    data.sharedLeftOut === 1
      ? "1 session pulled from git remotes not counted: another person's calls."
      : `${data.sharedLeftOut} sessions pulled from git remotes not counted: another person's calls.`;
  renderTotals(data);
  renderChart(data);
  part('sessions').replaceChildren(table('Session', byTokens(data.sessions), sessionCell, `No usage yet ${where}.`));
  part('breaks').replaceChildren(breaksTable(data));
  part('side-calls').replaceChildren(
    table('Calls for', data.sideCalls, (l: UsageLineView) => el('span', l.key), 'No suggestions, side questions or compactions yet.'),
  );
  const agents = part('agents');
  agents.replaceChildren(table('Agent', data.agents, agentCell, 'No calls read yet.'));
  if (data.logsRead.more) agents.append(el('p', `From the logs of the ${data.logsRead.sessions} sessions updated last.`, 'note'));
  part('models').replaceChildren(table('Model', byTokens(data.models), (l: UsageLineView) => el('span', l.key), `No usage yet ${where}.`));
  part('days').replaceChildren(table('Day', newestFirst(data.days), (l: UsageLineView) => el('span', l.key), `No usage yet ${where}.`));
  document.body.dataset.rendered = String(Number(document.body.dataset.rendered ?? 0) + 1);
}

window.addEventListener('message', (event: MessageEvent) => {
  const message = event.data as UsageHostMessage | undefined;
  if (message?.type === 'usage' && typeof message.data === 'object' && message.data !== null) render(message.data);
});
host.postMessage({ type: 'ready' });
