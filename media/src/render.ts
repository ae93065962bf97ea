import type { AttachmentChip, ToolEntry } from '../../src/protocol/frames';
import { attachmentRow } from './attachmentChips';
import type { ApprovalChange, ApprovalChoice } from '../../src/protocol/frames';
import type { ViewEntry } from './chatModel';
import { revealInvisible } from './invisible';
import { breakLongWords } from './longWords';
import { renderMarkdown } from './markdown';
import { modeLabel, type TurnMode } from '../../src/protocol/modes';
import type { MessageAction } from '../../src/protocol/messages';
import { MODE_ICONS } from './turnModes';
import type { ListedEntry } from './requests';
import { turnsToggle } from './turnsToggle';

/** What a rendered entry can ask the page to do. */
export interface EntryActions {
  message(action: MessageAction, ids: { messageId?: string; requestId?: string }): void;
  approve(approvalId: string, decision: ApprovalChoice): void;
  /** Opens a write or edit call's change in VS Code's diff editor. */
  openDiff(toolCallId: string): void;
  /** Sets the composer's mode (editing or rewinding to a prompt takes the mode it ran in). */
  useMode(mode: TurnMode): void;
  /** Shows or hides the later turns of a request (its toggle's key, and whether they show now). */
  toggleTurns(key: string, open: boolean): void;
  /** Cards the user opened or closed keep that state when re-rendered. */
  readonly expanded: Map<string, boolean>;
  readonly readOnly: () => boolean;
}

function el(tag: string, className: string, text = ''): HTMLElement {
  const e = document.createElement(tag);
  e.className = className;
  if (text) {
    e.textContent = text;
    breakLongWords(e);
  }
  return e;
}

/** An element showing model-chosen text with its invisible characters made visible. */
function revealed(tag: string, className: string, text: string): HTMLElement {
  const e = el(tag, className);
  e.append(revealInvisible(text));
  breakLongWords(e);
  return e;
}

function icon(name: string): HTMLElement {
  const i = el('span', `codicon codicon-${name}`);
  i.setAttribute('aria-hidden', 'true');
  return i;
}

function button(label: string, title: string, codicon: string, run: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.title = title;
  b.setAttribute('aria-label', title);
  if (codicon) b.append(icon(codicon));
  b.append(document.createTextNode(label));
  b.addEventListener('click', run);
  return b;
}

/** A collapsible section whose open state survives re-rendering. */
function details(key: string, className: string, summary: HTMLElement[], defaultOpen: boolean, actions: EntryActions): HTMLDetailsElement {
  const d = document.createElement('details');
  d.className = className;
  d.open = actions.expanded.get(key) ?? defaultOpen;
  const s = document.createElement('summary');
  s.append(...summary);
  d.append(s);
  d.addEventListener('toggle', () => actions.expanded.set(key, d.open));
  return d;
}

function userMessage(
  text: string,
  ids: { messageId?: string; requestId?: string },
  actions: EntryActions,
  mode?: TurnMode,
  attachments: readonly AttachmentChip[] = [],
): HTMLElement {
  const box = el('div', 'message user');
  box.setAttribute('aria-label', mode ? `Your prompt, in ${modeLabel(mode)} mode` : 'Your prompt');
  // Agent is the usual mode; the others are said on their prompts.
  if (mode && mode !== 'agent') {
    const badge = el('span', 'mode-badge');
    badge.dataset.mode = mode;
    badge.title = `This turn ran in ${modeLabel(mode)} mode`;
    badge.append(icon(MODE_ICONS[mode]), el('span', '', modeLabel(mode)));
    box.append(badge);
  }
  box.append(el('div', 'prompt-text', text));
  if (attachments.length > 0) box.append(attachmentRow(attachments));
  const bar = el('div', 'message-actions');
  const again = (action: 'rewind' | 'edit') => () => {
    actions.useMode(mode ?? 'agent');
    actions.message(action, ids);
  };
  // A read-only session (another window writes it, another folder's, one pulled from a git remote) can be forked, not changed.
  const writable = !actions.readOnly();
  if (writable) bar.append(button('Rewind', 'Rewind to here: drop this prompt and what followed', 'discard', again('rewind')));
  bar.append(
    button('Fork', 'Fork from here: a new session with the conversation up to this turn', 'repo-forked', () => actions.message('fork', ids)),
    // Its icon alone: a fifth label would not fit the side bar's width.
    button('', 'Fork into a git worktree from here: the conversation up to this turn, on a new branch in a folder of its own', 'git-branch', () =>
      actions.message('forkWorktree', ids),
    ),
  );
  if (writable) bar.append(button('Edit', 'Edit & resend this prompt', 'edit', again('edit')));
  bar.append(button('Copy', 'Copy this prompt', 'copy', () => void navigator.clipboard.writeText(text)));
  box.append(bar);
  return box;
}

function answer(key: string, text: string, thinking: string, streaming: boolean, actions: EntryActions): HTMLElement {
  const box = el('div', streaming ? 'message assistant streaming' : 'message assistant');
  box.setAttribute('aria-label', 'Answer');
  if (streaming) box.setAttribute('aria-busy', 'true');
  if (thinking.trim()) {
    const d = details(`${key}:thinking`, 'thinking', [icon('lightbulb'), el('span', '', 'Thinking')], false, actions);
    d.append(el('div', 'thinking-text', thinking));
    box.append(d);
  }
  const body = el('div', 'markdown');
  renderMarkdown(body, text);
  box.append(body);
  return box;
}

const TOOL_ICON: Record<string, string> = {
  read_file: 'file',
  list_dir: 'folder',
  glob: 'search',
  grep: 'search',
  write_file: 'new-file',
  edit_file: 'edit',
  bash: 'terminal',
  task: 'hubot',
};
const STATUS_ICON: Record<ToolEntry['status'], string> = { running: 'loading codicon-modifier-spin', done: 'check', error: 'error' };

function diffView(diff: string, className = ''): HTMLElement {
  const pre = el('pre', className ? `diff ${className}` : 'diff');
  for (const line of diff.split('\n')) {
    const kind = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : 'ctx';
    // Model-chosen text: its invisible characters shown, as in every other part of a card.
    const span = revealed('span', `diff-${kind}`, `${line}\n`);
    pre.append(span);
  }
  return pre;
}

function toolCard(entry: ToolEntry, actions: EntryActions): HTMLElement {
  const summary = [icon(TOOL_ICON[entry.name] ?? 'tools'), revealed('span', 'tool-summary', entry.summary), icon(STATUS_ICON[entry.status])];
  const card = details(entry.key, 'tool card', summary, entry.diff !== '', actions);
  card.dataset.status = entry.status;
  if (entry.status === 'error') card.dataset.error = 'true';
  card.setAttribute('aria-label', `Tool call ${entry.summary}: ${entry.status}`);
  if (entry.diff) {
    const label = el('div', 'card-label', 'Changes');
    // Once the call ended its change is in the log's checkpoints, which the diff editor reads.
    if (entry.status === 'done') label.append(button('Open Diff', 'Open this change in the diff editor', 'diff', () => actions.openDiff(entry.key)));
    card.append(label, diffView(entry.diff));
  }
  card.append(argumentsDisclosure(`${entry.key}:args`, 'tool-card-args', entry.args, actions));
  if (entry.result) card.append(el('div', 'card-label', entry.status === 'error' ? 'Error' : 'Result'), revealed('pre', 'tool-result', entry.result));
  return card;
}

/** A call's JSON arguments, closed until asked for: the card's summary and diff say what it does. */
function argumentsDisclosure(key: string, className: string, args: string, actions: EntryActions): HTMLElement {
  const d = details(key, `${className} args-disclosure`, [el('span', 'card-label', 'Arguments')], false, actions);
  d.append(revealed('pre', 'tool-args', args));
  return d;
}

/** A write's file, whether it is new, and the lines it adds and removes: "src/a.ts  +3 −1". */
function changeLine(change: ApprovalChange): HTMLElement {
  const line = el('div', 'approval-change');
  line.append(revealed('span', 'approval-path', change.path));
  if (change.created) line.append(el('span', 'approval-new', 'new file'));
  line.append(el('span', 'diff-count-add', `+${change.added}`), el('span', 'diff-count-del', `\u2212${change.removed}`));
  const lines = (n: number) => `${n} line${n === 1 ? '' : 's'}`;
  line.setAttribute('aria-label', `${change.path}${change.created ? ', a new file' : ''}: ${lines(change.added)} added, ${lines(change.removed)} removed`);
  return line;
}

const DECISION_TEXT: Record<ApprovalChoice, string> = {
  allow: 'Allowed once.',
  'allow-session': 'Allowed for this session.',
  'allow-always': 'Always allowed: the rule is in your settings.',
  deny: 'Denied.',
};

function approvalCard(entry: Extract<ViewEntry, { kind: 'approval' }>, actions: EntryActions): HTMLElement {
  const card = el('div', 'approval card');
  card.setAttribute('role', 'group');
  const what = entry.tool === 'bash' ? 'run a command' : entry.tool === 'write_file' || entry.tool === 'edit_file' ? 'change a file' : 'call a tool';
  card.setAttribute('aria-label', `Braid wants to ${what}`);
  card.append(el('div', 'approval-title', `Braid wants to ${what}: `));
  card.lastElementChild!.append(revealInvisible(entry.summary));
  breakLongWords(card);
  if (entry.commandRisk) {
    // A write that can make programs run later asks like a command does, and says why.
    card.dataset.risk = 'command';
    card.append(el('div', 'approval-risk', `This change can make programs run later: ${entry.commandRisk}. It needs the approval a command needs.`));
  }
  if (entry.change) card.append(changeLine(entry.change));
  if (entry.tool !== 'write_file' && entry.tool !== 'edit_file') {
    if (entry.detail) card.append(revealed('div', 'approval-cwd', entry.detail));
  } else if (entry.detail && (entry.decision === undefined || entry.decision === 'deny')) {
    // A write's detail is its diff; once allowed, the tool card shows it (the diff is shown once).
    card.append(diffView(entry.detail, 'approval-detail'));
  }
  if (entry.args) card.append(argumentsDisclosure(`${entry.key}:args`, 'approval-args', entry.args, actions));
  if (entry.decision) {
    card.dataset.decision = entry.decision;
    card.append(el('div', 'approval-decision', DECISION_TEXT[entry.decision]));
  } else {
    const bar = el('div', 'approval-actions');
    bar.append(
      button('Allow', 'Allow this once', 'check', () => actions.approve(entry.key, 'allow')),
      button(
        'Allow for this session',
        entry.commandRisk
          ? 'Allow commands, and changes that can run programs, for the rest of the session'
          : 'Allow this kind of action for the rest of the session',
        'check-all',
        () => actions.approve(entry.key, 'allow-session'),
      ),
      ...(entry.alwaysRule
        ? [
            button(
              'Always allow',
              `Allow from now on: adds the rule ${entry.alwaysRule} to your settings (Braid: Show Permission Rules lists and removes it)`,
              'pass',
              () => actions.approve(entry.key, 'allow-always'),
            ),
          ]
        : []),
      button('Deny', 'Deny: the model is told you refused', 'close', () => actions.approve(entry.key, 'deny')),
    );
    card.append(bar);
  }
  return card;
}

/** A context block shows this much of its text; the log keeps all of it. */
const CONTEXT_SHOWN = 20_000;

/** Context another tool injected into an imported conversation: one faint collapsed line, its text verbatim when opened. */
function injectedContext(entry: Extract<ViewEntry, { kind: 'context' }>, actions: EntryActions): HTMLElement {
  if (entry.by === 'braid' && entry.what === 'goal') return automaticTurn(entry, actions);
  const d = details(entry.key, 'injected-context', [icon('info'), el('span', '', `Context ${toolName(entry.by)} added: ${entry.what}`)], false, actions);
  d.setAttribute('aria-label', `Context ${toolName(entry.by)} added to the conversation (${entry.what}), not a prompt`);
  const more = entry.text.length - CONTEXT_SHOWN;
  const body = el('pre', 'injected-context-text', more > 0 ? `${entry.text.slice(0, CONTEXT_SHOWN)}\n… ${more} more characters` : entry.text);
  d.append(body);
  return d;
}

/** The prompt of an automatic turn of a goal run (/goal): Braid sent it, not the user; collapsed, its text when opened. */
function automaticTurn(entry: Extract<ViewEntry, { kind: 'context' }>, actions: EntryActions): HTMLElement {
  const d = details(entry.key, 'injected-context automatic-turn', [icon('sync'), el('span', '', 'Automatic turn: continue toward the goal')], false, actions);
  d.setAttribute('aria-label', 'Automatic turn of a goal run: Braid asked the model to continue toward the goal, not you');
  d.append(el('pre', 'injected-context-text', entry.text));
  return d;
}

/** The name a person knows an agent tool by. */
function toolName(id: string): string {
  const names: Record<string, string> = { 'claude-code': 'Claude Code', codex: 'Codex', pi: 'pi', opencode: 'opencode' };
  return Object.hasOwn(names, id) ? names[id]! : id;
}

/** The element of one entry. Text from the model goes through the sanitizer or textContent only. */
export function renderEntry(entry: ListedEntry, actions: EntryActions): HTMLElement {
  switch (entry.kind) {
    case 'turns':
      return turnsToggle(entry, (key, open) => actions.toggleTurns(key, open));
    case 'user':
      return userMessage(entry.text, { messageId: entry.messageId }, actions, entry.mode, entry.attachments);
    case 'pending':
      return userMessage(entry.text, { requestId: entry.requestId }, actions, entry.mode, entry.attachments);
    case 'assistant':
      return answer(entry.key, entry.text, entry.thinking, false, actions);
    case 'live':
      return answer(entry.key, entry.text, entry.thinking, true, actions);
    case 'tool':
      return toolCard(entry, actions);
    case 'approval':
      return approvalCard(entry, actions);
    case 'compaction': {
      const summary = [
        icon('fold'),
        el(
          'span',
          '',
          `Context compacted: ${entry.summarized} earlier message${entry.summarized === 1 ? '' : 's'} summarized for the model (the messages stay here and in the log)`,
        ),
      ];
      const d = details(entry.key, 'compaction', summary, false, actions);
      d.setAttribute('aria-label', 'Compaction: the summary the model sees in place of the earlier messages');
      const body = el('div', 'markdown compaction-summary');
      renderMarkdown(body, entry.summary);
      d.append(body);
      return d;
    }
    case 'context':
      return injectedContext(entry, actions);
    case 'cacheBreak': {
      // Subtle: a fact about the bill, not the conversation.
      const c = el('div', 'cache-break');
      c.dataset.cause = entry.cause;
      c.title =
        'The call of the answer above read far less of its prompt from the provider’s cache than the call before it (Braid: Show Usage lists every break).';
      c.append(icon('debug-disconnect'), el('span', '', `Prompt cache broke: ${entry.text}`));
      return c;
    }
    case 'notice': {
      const n = el('div', `notice ${entry.tone}`);
      n.dataset.tone = entry.tone;
      n.setAttribute('role', entry.tone === 'error' ? 'alert' : 'status');
      n.append(icon(entry.tone === 'progress' ? 'loading codicon-modifier-spin' : entry.tone === 'error' ? 'warning' : 'info'), el('span', '', entry.text));
      return n;
    }
    case 'status': {
      const s = el('div', 'turn-status', entry.text);
      s.dataset.outcome = entry.outcome;
      if (entry.outcome === 'failed') s.setAttribute('role', 'alert');
      return s;
    }
  }
}
