import {
  IMAGE_TYPES,
  MAX_IMAGE_BYTES,
  MAX_OLDER_PAGE,
  PROTOCOL_VERSION,
  type AttachmentRef,
  type HostToWebview,
  type StreamFrame,
  type ModelInfo,
  type SideAnswerMessage,
} from '../../src/protocol/messages';
import { ChatModel, usageLine } from './chatModel';
import { chipOf, Composer } from './composer';
import { renderMarkdown } from './markdown';
import { ModelMenu, modelLabel } from './modelMenu';
import { OlderPageSize } from './olderPages';
import { PlaceKeeper } from './keepPlace';
import { renderEntry, type EntryActions } from './render';
import { RequestIds } from './requestIds';
import { parseInput } from './slashCommands';
import type { ContextInfo } from '../../src/protocol/frames';
import { contextLevel, contextTooltip } from './contextMeter';
import { ModePicker } from './modePicker';
import { ChangesList } from './changesList';
import { TodoChecklist } from './todoChecklist';
import { lastMode, proposedPlan } from './turnModes';
import { carryOutPlanPrompt, isTurnMode, type TurnMode } from '../../src/protocol/modes';
import { VirtualList } from './virtualList';
import { collapseRequests, type ListedEntry } from './requests';
import { host, onHostMessage, saveState } from './vscodeApi';
import type { MessageHandlers } from '../../src/protocol/handlers';
import { Welcome } from './welcome';
import { parseTurnReveal } from '../../src/protocol/validate';
import { RevealedTurn } from './turnReveal';
import { markWords, uncover } from './highlight';

/** The read-only note when another window writes the shown session. */
const READ_ONLY_NOTE = 'Another window is writing this session; it is shown read-only here and follows along live.';

/** Where this page is hosted (the side bar's view or an editor tab), from the host's initial data. */
const place = (JSON.parse(document.body.dataset.initial ?? '{}') as { place?: string }).place === 'editor' ? 'editor' : 'view';
document.body.dataset.place = place;

const app = document.getElementById('app') as HTMLElement;
app.innerHTML = `
  <header class="toolbar">
    <span class="session-title" data-role="title"></span>
    <span class="model-line">
      <button type="button" class="model-picker" data-role="model-picker"><span class="codicon codicon-sparkle" aria-hidden="true"></span><span class="model-name" data-role="model">…</span><span class="codicon codicon-chevron-down" aria-hidden="true"></span></button>
      <span class="badge demo" data-role="demo" hidden title="Answers come from Braid's scripted demo server, not a real model">Demo<span class="badge-more"> model</span></span>
    </span>
    <span class="context-meter" data-role="context" role="meter" aria-label="Context window" aria-valuemin="0" aria-valuemax="100" hidden><span class="context-bar"><span class="context-fill"></span></span><span class="context-text"></span></span>
    <button type="button" class="context-compact" data-role="compact" title="Compact: summarize the older part of the conversation" aria-label="Compact the conversation" hidden><span class="codicon codicon-fold" aria-hidden="true"></span></button>
    <div class="model-menu" data-role="model-menu" hidden></div>
  </header>
  <div class="usage-line" data-role="usage" aria-label="Session usage"></div>
  <div class="problem" data-role="problem" role="alert" hidden></div>
  <div class="note untrusted" data-role="untrusted" role="status" hidden><span class="codicon codicon-shield" aria-hidden="true"></span> This workspace is not trusted: Braid can chat and read files, but its tools cannot write files or run commands. <button type="button" data-role="trust">Manage Workspace Trust</button></div>
  <div class="note damaged" data-role="damaged" role="status" hidden><span class="codicon codicon-warning" aria-hidden="true"></span> <span data-role="damaged-text"></span><button type="button" class="dismiss" data-role="damaged-dismiss" title="Hide this note for this session" aria-label="Hide this note"><span class="codicon codicon-close" aria-hidden="true"></span></button></div>
  <div class="note" data-role="read-only" role="status" hidden></div>
  <div class="welcome" data-role="welcome" hidden></div>
  <section class="transcript" data-role="transcript" role="log" aria-label="Conversation" tabindex="0"></section>
  <div class="side" data-role="side" role="dialog" aria-label="Side question" hidden>
    <div class="side-head"><span class="codicon codicon-comment" aria-hidden="true"></span> <span data-role="side-question"></span></div>
    <div class="side-answer" data-role="side-answer" aria-live="polite"></div>
    <div class="side-actions">
      <button type="button" data-role="side-keep" title="Keep this side question and its answer as a fork of the session">Keep as fork</button>
      <button type="button" data-role="side-close" title="Close (Escape); nothing is kept">Close</button>
    </div>
  </div>
  <div class="note rewound" data-role="rewound" role="status" hidden><span class="codicon codicon-discard" aria-hidden="true"></span> <span data-role="rewound-text"></span> <button type="button" data-role="undo-rewind" title="Undo this rewind: the turns and files come back">Undo</button></div>
  <div class="queue" data-role="queue" aria-label="Queued prompts" hidden></div>
  <div class="note plan" data-role="plan" role="status" hidden><span class="codicon codicon-checklist" aria-hidden="true"></span> <span>The plan is ready. Carry it out in Agent mode, or reply to change it.</span> <button type="button" data-role="carry-out" title="Send the plan as the next prompt, in Agent mode (changes and commands ask first)">Carry Out Plan</button></div>
  <section class="todos" data-role="todos" aria-label="Todo list" hidden></section>
  <section class="changes" data-role="changes" aria-label="Changes" hidden></section>
  <div class="composer">
    <div class="completions" id="slash-completions" data-role="completions" hidden></div>
    <div class="attachments composer-chips" data-role="chips" aria-label="Attached to the next prompt" hidden></div>
    <textarea data-role="input" rows="3" aria-label="Prompt" placeholder="Ask Braid… (Enter to send, Shift+Enter for a new line, / for commands, @ to attach files)"></textarea>
    <div class="actions">
      <select class="mode-picker" data-role="mode" aria-label="Mode"></select>
      <span class="hint" data-role="hint"></span>
      <span class="buttons">
        <button type="button" data-role="stop" hidden title="Stop the running turn"><span class="codicon codicon-debug-stop" aria-hidden="true"></span>Stop</button>
        <button type="button" data-role="send" title="Send (Enter)"><span class="codicon codicon-send" aria-hidden="true"></span>Send</button>
      </span>
    </div>
  </div>`;

// The page's parts, found once before any transcript exists: nothing a model writes can pose as one.
const parts = new Map(Array.from(app.querySelectorAll<HTMLElement>('[data-role]'), (e) => [e.dataset.role!, e]));
function part<T extends HTMLElement>(role: string): T {
  return parts.get(role) as T;
}

const model = new ChatModel();
/** The session whose damaged-log note the user hid. */
let damageDismissed: string | undefined;
const expanded = new Map<string, boolean>();
const actions: EntryActions = {
  message: (action, ids) => host.postMessage({ type: 'messageAction', action, ...ids }),
  approve: (approvalId, decision) => host.postMessage({ type: 'approval', approvalId, decision }),
  openDiff: (toolCallId) => host.postMessage({ type: 'openDiff', toolCallId }),
  useMode: (mode) => chooseMode(mode),
  toggleTurns: (key, open) => {
    expanded.set(key, !open);
    refresh({ keepAnchor: true });
  },
  expanded,
  readOnly: () => model.readOnly,
};
let loadingOlder = false;
const olderPageSize = new OlderPageSize();
/** The turn a search result opened the session at, while it stands: its rows have the searched words marked. */
let revealed: RevealedTurn | undefined;
/** The reveal the user moved on from (a prompt, a turn started): a snapshot still carrying it does not bring it back. */
let dismissedReveal: string | undefined;
const list = new VirtualList<ListedEntry>(
  part('transcript'),
  (entry) => {
    const element = renderEntry(entry, actions);
    if (revealed?.pattern && revealed.has(entry.key)) markWords(element, revealed.pattern);
    return element;
  },
  () => askOlder(() => olderPageSize.next(performance.now())),
);

/** Asks for the page of messages before the oldest shown, of `size()` messages; one at a time. */
/** The reader's place, loaded again after a fresh snapshot of the same session. */
const readerPlace = new PlaceKeeper();
function keepPlace(): void {
  const step = readerPlace.step((key) => list.has(key), model.entries.length, Boolean(model.before));
  if (step.scrollTo) list.scrollToKey(step.scrollTo);
  if (step.loadOlder) askOlder(() => MAX_OLDER_PAGE);
}

function askOlder(size: () => number): void {
  if (!model.before || loadingOlder || !model.sessionId) return;
  loadingOlder = true;
  host.postMessage({ type: 'loadOlder', sessionId: model.sessionId, before: model.before, limit: size() });
}
const input = part<HTMLTextAreaElement>('input');
/** The newest `@` query asked: an answer to an older one is dropped. */
let mentionQuery = 0;
let mentionTimer: ReturnType<typeof setTimeout> | undefined;
const composer = new Composer(
  input,
  part('completions'),
  (text, steer) => send(text, steer),
  (draft) => {
    saveState({ draft });
    refreshHint();
  },
  part('chips'),
  (query) => {
    // Typing fast asks once, for what was typed last.
    clearTimeout(mentionTimer);
    mentionTimer = setTimeout(() => host.postMessage({ type: 'mentionQuery', id: ++mentionQuery, query }), 40);
  },
);
/** This page's ids: another page (the side bar's view, an editor tab) sends to the same session. */
const ids = new RequestIds();
const modelMenu = new ModelMenu(part('model-picker'), part('model'), part('model-menu'), (message) => host.postMessage(message));
/** What the hint says about the composer's chips until the next prompt (an image refused, chips given back). */
let composerNote: string | undefined;
/** The model line shown last, so a switch is said once in the transcript. */
let shownModel: string | undefined;
/** Time to first token on screen: the request measured, and when it was sent. */
let firstToken: { requestId: string; sentAt: number } | undefined;

composer.value = host.getState()?.draft ?? '';
/** Whether this page asked for the `/` menu's MCP prompts: the servers start when the menu is first opened, not with the page. */
let commandsAsked = false;
input.addEventListener('input', () => {
  if (commandsAsked || !input.value.startsWith('/')) return;
  commandsAsked = true;
  host.postMessage({ type: 'listCommands' });
});
/** What the next prompt may do; kept across reloads, taken from a session's newest prompt when another session is shown. */
const modePicker = new ModePicker(part<HTMLSelectElement>('mode'), (mode) => chooseMode(mode));

/** Sets the composer's mode; it is the session's, so the host tells every page showing it. */
function chooseMode(mode: TurnMode): void {
  showMode(mode);
  host.postMessage({ type: 'chooseMode', mode });
}

/** Shows a mode in the picker, kept across reloads of this page. */
function showMode(mode: TurnMode): void {
  modePicker.value = mode;
  saveState({ mode });
  refreshChrome();
}
const savedScope = host.getState()?.changesScope;
const todos = new TodoChecklist(part('todos'));
const changes = new ChangesList(
  part('changes'),
  (message) => host.postMessage(message),
  savedScope === 'session' ? 'session' : 'turn',
  (scope) => {
    saveState({ changesScope: scope });
    refreshChrome();
  },
);
const savedMode = host.getState()?.mode;
if (isTurnMode(savedMode)) modePicker.value = savedMode;
part('transcript').addEventListener('scroll', () => saveState({ scrollKey: list.topKey() }), { passive: true });

/** The model the page was last told about (the welcome names it). */
let currentModel: ModelInfo | undefined;
const welcome = new Welcome(part('welcome'), (prompt) => {
  composer.value = prompt;
  input.focus();
});

function showModel(info: ModelInfo): void {
  currentModel = info;
  refreshWelcome();
  refreshContext();
  modelMenu.show(info);
  part('demo').hidden = !info.demo;
  part('problem').hidden = !info.problem;
  part('problem').textContent = info.problem ?? '';
}

/** Shows `context` in the meter's elements, or hides them when the session or the model's window is unknown. */
function showContext(meter: HTMLElement, compact: HTMLElement, context: ContextInfo | undefined, contextWindow: number | undefined, canCompact: boolean): void {
  const shown = context !== undefined && contextWindow !== undefined && contextWindow > 0;
  meter.hidden = !shown;
  compact.hidden = !shown || !canCompact;
  if (!shown) return;
  const share = context.used / contextWindow;
  const percent = Math.min(100, Math.round(share * 100));
  meter.dataset.level = contextLevel(share, context.threshold);
  meter.setAttribute('aria-valuenow', String(percent));
  const tooltip = contextTooltip(context, contextWindow);
  meter.title = tooltip;
  meter.setAttribute('aria-valuetext', tooltip.split('\n')[0]!);
  meter.querySelector<HTMLElement>('.context-fill')!.style.width = `${percent}%`;
  meter.querySelector<HTMLElement>('.context-text')!.textContent = `${percent}%`;
}

/** The context meter: the session's count against the model's window. */
function refreshContext(): void {
  showContext(part('context'), part('compact'), model.info?.context, currentModel?.limits?.contextWindow, !model.readOnly && !model.running);
}

/** A new or empty session shows the welcome instead of a blank area. */
function refreshWelcome(): void {
  welcome.show(model.entries.length === 0 && !model.running && !model.readOnly, currentModel);
}

/** Everything but the transcript rows: title, usage, banners, welcome, queue chips, buttons. */
function refreshChrome(): void {
  const info = model.info;
  refreshWelcome();
  document.body.dataset.session = model.sessionId;
  document.body.dataset.readOnly = String(model.readOnly);
  document.body.dataset.turn = model.running ? 'running' : 'idle';
  document.body.dataset.hasOlder = String(model.before !== undefined);
  document.body.dataset.entries = String(model.entries.length);
  part('title').textContent = info?.title ?? '';
  part('title').title = info?.title ?? '';
  part('usage').textContent = info ? usageLine(info) : '';
  refreshContext();
  part('read-only').hidden = !model.readOnly;
  part('read-only').textContent = model.readOnlyReason ?? READ_ONLY_NOTE;
  const damaged = model.damagedLines;
  part('damaged').hidden = damaged === 0 || damageDismissed === model.sessionId;
  part('damaged-text').textContent =
    damaged === 0
      ? ''
      : `${damaged === 1 ? 'One line' : `${damaged} lines`} of this session's log could not be read and ${damaged === 1 ? 'was' : 'were'} skipped; the rest works, and the bytes stay in the file ("braid doctor" lists them).`;
  input.disabled = model.readOnly;
  part('rewound').hidden = model.undoableRewind === undefined || model.readOnly;
  part('rewound-text').textContent = model.undoableRewind ?? '';
  part('stop').hidden = !model.running;
  todos.show(info?.todos);
  changes.show(info?.changes, model.running !== undefined, model.readOnly);
  part('plan').hidden = model.readOnly || proposedPlan(model.entries, model.running !== undefined) === undefined;
  refreshHint();
  const queue = part('queue');
  const chips = info?.queue ?? [];
  queue.hidden = chips.length === 0;
  // The chips are rebuilt only when they change, not on every streamed frame.
  const chipsKey = JSON.stringify([chips, model.running !== undefined, info?.paused]);
  if (queue.dataset.key === chipsKey) return;
  queue.dataset.key = chipsKey;
  queue.replaceChildren(
    ...chips.map((q) => {
      const chip = document.createElement('div');
      chip.className = 'chip';
      chip.dataset.promptId = q.promptId;
      const text = document.createElement('span');
      text.className = 'chip-text';
      text.textContent = q.text;
      text.title = q.text;
      chip.append(text);
      const add = (label: string, title: string, run: () => void) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = label;
        b.title = title;
        // The prompt's start, without half of a pair at the cut.
        b.setAttribute('aria-label', `${title}: ${q.text.slice(0, 60).replace(/[\uD800-\uDBFF]$/, '')}`);
        b.addEventListener('click', run);
        chip.append(b);
      };
      if (model.running) add('Steer', 'Steer into the running turn', () => host.postMessage({ type: 'queueAction', action: 'steer', promptId: q.promptId }));
      add('Cancel', 'Remove from the queue', () => host.postMessage({ type: 'queueAction', action: 'cancel', promptId: q.promptId }));
      return chip;
    }),
  );
  if (info?.paused && chips.length > 0) queue.prepend(...pausedQueueBar(info.pauseReason, chips[0]!.promptId));
}

/** Why a paused queue waits, in the words of its note. */
const PAUSE_NOTES: Record<string, string> = {
  stopped: 'Paused: you stopped the turn before these.',
  failed: 'Paused: the turn before these failed.',
  'window-closed': 'Paused: these were waiting when Braid last closed.',
};

/** The note of a paused queue and its two buttons: Resume runs the prompts, Discard drops them all. */
function pausedQueueBar(reason: string | undefined, firstPromptId: string): HTMLElement[] {
  const note = document.createElement('span');
  note.className = 'queue-note';
  note.textContent = PAUSE_NOTES[reason ?? ''] ?? 'Paused.';
  const button = (label: string, title: string, action: 'resume' | 'discard') => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.title = title;
    b.addEventListener('click', () => host.postMessage({ type: 'queueAction', action, promptId: firstPromptId }));
    return b;
  };
  return [note, button('Resume queue', 'Run the waiting prompts now, in order', 'resume'), button('Discard', 'Drop every waiting prompt', 'discard')];
}

/** The line under the input: the queue while a turn runs, a note about the chips, or how to take a suggestion. */
function refreshHint(): void {
  part('hint').textContent = model.running
    ? 'A prompt sent now waits in the queue; Ctrl+Enter steers it into this turn.'
    : (composerNote ?? (composer.offered !== undefined && composer.value === '' ? 'Tab takes the suggestion.' : ''));
}

function refresh(options: { keepAnchor?: boolean; toEnd?: boolean } = {}): void {
  if (revealed?.locate(model.entries)) list.redraw(); // rows of the turn shown before its first was loaded get their marks
  list.setItems(collapseRequests(model.entries, expanded), options);
  refreshChrome();
}

let refreshFrame = 0;
/**
 * Streaming frames arrive many times a frame; the page shows their sum once per animation
 * frame: the list is given the entries and laid out in the same frame.
 */
function scheduleRefresh(): void {
  refreshFrame ||= requestAnimationFrame(() => {
    refreshFrame = 0;
    refresh();
    list.flush();
    if (firstToken && model.entries.some((e) => e.kind === 'live' && e.requestId === firstToken!.requestId && e.text !== '')) {
      const { sentAt } = firstToken;
      firstToken = undefined;
      // This frame is painted before the next one's callbacks run.
      requestAnimationFrame(() => (document.body.dataset.firstTokenMs = String(Math.round(performance.now() - sentAt))));
    }
  });
}

function send(raw: string, steer: boolean): void {
  if (model.readOnly) return;
  const parsed = parseInput(raw, composer.commands);
  if (parsed.kind === 'error') {
    part('hint').textContent = parsed.message;
    return;
  }
  composer.value = '';
  composer.offer(undefined); // the host withdraws it too, from every page
  if (parsed.kind === 'command') {
    host.postMessage({ type: 'command', name: parsed.name, ...(parsed.arg ? { arg: parsed.arg } : {}) });
    return;
  }
  if (parsed.kind === 'btw') {
    host.postMessage({ type: 'sideQuestion', id: ids.next('side'), text: parsed.question });
    return;
  }
  composer.remember(parsed.text);
  dismissReveal();
  const custom = parsed.kind === 'custom';
  const goal = parsed.kind === 'goal';
  const requestId = ids.next('req');
  composerNote = undefined;
  const attachments = [...composer.attachments];
  composer.clearAttachments();
  if (attachments.length > 0) sentChips.set(requestId, attachments);
  // While a turn runs the prompt goes to the queue (a chip) or into the turn; otherwise it shows now.
  const mode = modePicker.value;
  if (!model.running) {
    model.addPending(requestId, parsed.text, mode, attachments.map(chipOf));
    firstToken = { requestId, sentAt: performance.now() };
    refresh({ toEnd: true });
  }
  host.postMessage({
    type: 'prompt',
    requestId,
    text: parsed.text,
    ...(steer ? { steer: true } : {}),
    ...(mode !== 'agent' ? { mode } : {}),
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(custom ? { command: true as const } : {}),
    ...(goal ? { goal: true as const } : {}),
  });
}

function noteComposer(text: string): void {
  composerNote = text;
  part('hint').textContent = text;
}

/** The chips of prompts sent from this page until the log has the prompt: one that fails before gets them back. */
const sentChips = new Map<string, AttachmentRef[]>();

/** Puts back the chips of a prompt that failed before it reached the log (a chip that could not be read, say). */
function keepChips(frames: readonly StreamFrame[]): void {
  for (const frame of frames) {
    if (frame.kind === 'message-committed' && frame.requestId) sentChips.delete(frame.requestId);
    if (frame.kind !== 'turn-terminal' || frame.outcome !== 'failed') continue;
    const chips = sentChips.get(frame.requestId);
    if (!chips) continue;
    sentChips.delete(frame.requestId);
    for (const chip of chips) composer.attach(chip);
    noteComposer('The prompt was not sent; its attachments are back above the input.');
  }
}

/**
 * Puts a held prompt that failed before its answer back into the composer (nothing of it was
 * written), before the frames drop it from the transcript; a draft typed since follows it.
 */
function giveBackUnsent(frames: readonly StreamFrame[]): void {
  for (const frame of frames) {
    if (frame.kind !== 'turn-terminal' || !frame.unsent) continue;
    const text = model.pendingText(frame.requestId);
    if (text === undefined) continue; // another page sent it
    const draft = composer.value.trim();
    composer.value = draft ? `${text}\n\n${draft}` : text;
    saveState({ draft: composer.value });
    noteComposer(`The prompt was not sent (${frame.error ?? 'the turn failed'}); it is back in the input to edit.`);
    input.focus();
  }
}

/** Takes a snapshot's reveal: a new one replaces the marks shown, none clears them. */
function takeReveal(raw: unknown): void {
  const reveal = parseTurnReveal(raw);
  const kept = reveal && reveal.id !== dismissedReveal ? reveal : undefined;
  if (kept?.id === revealed?.target.id) return;
  revealed = kept && new RevealedTurn(kept);
  delete document.body.dataset.revealedTurn;
  list.redraw();
}

/** The conversation goes on (a prompt sent, a turn started): the marks go. */
function dismissReveal(): void {
  if (!revealed) return;
  dismissedReveal = revealed.target.id;
  takeReveal(undefined);
}

/**
 * Brings the revealed turn on screen, once per reveal: the biggest older pages until its first
 * entry is loaded (it may be far back), its request opened, its first match centered and shown.
 */
function showRevealedTurn(): void {
  const turn = revealed;
  if (!turn || host.getState()?.revealed === turn.target.id) return;
  readerPlace.forget(); // the turn opened is the place now
  if (!turn.found) {
    if (model.before) askOlder(() => MAX_OLDER_PAGE);
    else saveState({ revealed: turn.target.id }); // no longer in the log (rewound): the session shows as it is
    return;
  }
  for (const key of turn.closedToggles(model.entries, expanded)) expanded.set(key, true);
  refresh();
  const key = turn.focus(model.entries);
  list.scrollToKey(key);
  list.flush();
  const mark = part('transcript').querySelector(`.row[data-key="${CSS.escape(key)}"] mark`);
  if (mark) {
    uncover(mark);
    mark.scrollIntoView({ block: 'center' });
  }
  saveState({ revealed: turn.target.id });
  document.body.dataset.revealedTurn = String(turn.target.turn);
}

let side: string | undefined;
function showSide(message: SideAnswerMessage): void {
  if (message.state === 'asking' || side === undefined) side = message.id;
  if (message.id !== side) return;
  const box = part('side');
  box.hidden = false;
  box.dataset.state = message.state;
  part('side-question').textContent = message.question;
  const answer = part('side-answer');
  if (message.state === 'asking') answer.textContent = 'Thinking…';
  else if (message.state === 'failed') answer.textContent = message.text;
  else if (message.state === 'answered') renderMarkdown(answer, message.text);
  part<HTMLButtonElement>('side-keep').disabled = message.state !== 'answered';
  if (message.state === 'kept') part('side-keep').textContent = `Kept as "${message.text}"`;
}
function closeSide(): void {
  side = undefined;
  part('side').hidden = true;
  part('side-keep').textContent = 'Keep as fork';
}
part('side-close').addEventListener('click', closeSide);
part('damaged-dismiss').addEventListener('click', () => {
  damageDismissed = model.sessionId;
  part('damaged').hidden = true;
});
part('side-keep').addEventListener('click', () => side && host.postMessage({ type: 'keepSide', id: side }));
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && !part('side').hidden) closeSide();
});

/** Reads a pasted or dropped image into a chip, when the model reads images; says why not otherwise. */
function attachImages(files: readonly File[]): void {
  const images = files.filter((f) => IMAGE_TYPES.includes(f.type));
  if (images.length === 0) return;
  if (!currentModel?.images) {
    noteComposer(
      `${currentModel ? modelLabel(currentModel) : 'This model'} does not take images, so the image was not attached. Choose a model that reads images (an OpenAI-compatible one: set braid.imageInput).`,
    );
    return;
  }
  for (const file of images) {
    if (file.size > MAX_IMAGE_BYTES) {
      noteComposer(`${file.name || 'The image'} is larger than ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB and was not attached.`);
      continue;
    }
    const reader = new FileReader();
    reader.addEventListener('load', () => {
      const data = String(reader.result).replace(/^data:[^,]*,/, '');
      composer.attach({ kind: 'image', label: file.name || 'Pasted image', image: { mimeType: file.type, data } });
    });
    reader.readAsDataURL(file);
  }
}
input.addEventListener('paste', (event) => {
  const files = Array.from(event.clipboardData?.files ?? []);
  if (files.some((f) => f.type.startsWith('image/'))) {
    event.preventDefault();
    attachImages(files);
  }
});
input.addEventListener('dragover', (event) => event.preventDefault());
input.addEventListener('drop', (event) => {
  const files = Array.from(event.dataTransfer?.files ?? []);
  if (files.length === 0) return;
  event.preventDefault();
  attachImages(files);
});

part('send').addEventListener('click', () => composer.value.trim() && send(composer.value, false));
part('stop').addEventListener('click', () => model.running && host.postMessage({ type: 'cancel' }));
part('trust').addEventListener('click', () => host.postMessage({ type: 'command', name: 'trust' }));
part('compact').addEventListener('click', () => host.postMessage({ type: 'command', name: 'compact' }));
part('carry-out').addEventListener('click', () => {
  const plan = proposedPlan(model.entries, model.running !== undefined);
  if (plan === undefined) return;
  chooseMode('agent');
  send(carryOutPlanPrompt(plan), false);
});
part('undo-rewind').addEventListener('click', () => host.postMessage({ type: 'command', name: 'undoRewind' }));

/** What the page does with each message of the host. */
const hostMessages: MessageHandlers<HostToWebview> = {
  snapshot: (message) => {
    const started = performance.now();
    const sameSession = message.session?.info.id === model.sessionId;
    const depth = model.entries.length;
    model.applySnapshot(message);
    takeReveal(message.session?.reveal);
    composer.offer(message.session?.suggestion);
    composer.commands = message.commands ?? [];
    // The mode chosen for this session on any page; else another session shown goes on in the
    // mode of its newest prompt, and a new one keeps the choice.
    if (message.mode) showMode(message.mode);
    else if (!sameSession && model.entries.length > 0) modePicker.value = lastMode(model.entries);
    loadingOlder = false;
    olderPageSize.reset();
    showModel(message.model);
    shownModel = modelLabel(message.model);
    composer.setHistory(message.promptHistory);
    part('untrusted').hidden = message.trusted;
    document.body.dataset.trusted = String(message.trusted);
    refresh({ toEnd: true });
    if (sameSession) readerPlace.start(host.getState()?.scrollKey, depth);
    else readerPlace.forget();
    keepPlace();
    list.flush();
    showRevealedTurn();
    requestAnimationFrame(() => {
      document.body.dataset.renderMs = String(Math.round(performance.now() - started));
      document.body.dataset.rows = String(list.renderedCount);
    });
    document.body.dataset.handshake = 'complete';
  },
  frames: (message) => {
    keepChips(message.frames);
    giveBackUnsent(message.frames);
    if (!model.applyFrames(message.sessionId, message.frames)) host.postMessage({ type: 'framesAfter', after: model.cursor });
    if (message.frames.some((f) => f.kind === 'resync-required')) host.postMessage({ type: 'ready', protocol: PROTOCOL_VERSION });
    if (message.frames.some((f) => f.kind === 'runtime-event' && f.event.type === 'turn-start')) dismissReveal();
    scheduleRefresh();
  },
  olderPage: (message) => {
    loadingOlder = false;
    olderPageSize.arrived(performance.now());
    if (model.prependOlder(message.sessionId, message.entries, message.before) > 0) refresh({ keepAnchor: true });
    else refreshChrome(); // nothing new, but the cursor moved (the start may be reached)
    keepPlace();
    showRevealedTurn();
  },
  prefill: (message) => {
    if (message.replaces !== undefined && composer.value !== message.replaces) return; // the user has made it their own
    composer.value = message.text;
    input.focus();
  },
  modelChanged: (message) => {
    showModel(message.model);
    // Said once where the conversation goes on; the log records each turn's model as it ran.
    const label = modelLabel(message.model);
    if (shownModel !== undefined && label !== shownModel && message.model.id && !message.model.problem) {
      model.noteModel(`The next turn uses ${label}.`);
      refresh({ toEnd: true });
    }
    shownModel = label;
  },
  modelChoices: (message) => {
    modelMenu.setChoices(message.choices);
  },
  sideAnswer: (message) => {
    showSide(message);
  },
  commands: (message) => {
    composer.updateCommands(message.commands);
  },
  mentionResults: (message) => {
    if (message.id === mentionQuery) composer.showMentions(message.items);
  },
  attach: (message) => {
    composer.attach(message.item);
    input.focus();
  },
  modeChosen: (message) => {
    showMode(message.mode);
  },
  suggestion: (message) => {
    if (message.sessionId !== model.sessionId) return; // for a session this page no longer shows
    composer.offer(typeof message.text === 'string' && !model.readOnly && !model.running ? message.text : undefined);
    refreshHint();
  },
};
onHostMessage(hostMessages);

refreshChrome();
host.postMessage({ type: 'ready', protocol: PROTOCOL_VERSION });
