import { PROTOCOL_VERSION, type HostToWebview, type ModelInfo, type SessionView, type UsageInfo } from '../../src/protocol/messages';
import { Transcript } from './transcript';
import { host, onHostMessage } from './vscodeApi';

const app = document.getElementById('app') as HTMLElement;
app.innerHTML = `
  <header class="toolbar">
    <span class="session-title" data-role="title"></span>
    <span class="model" data-role="model" title="Model">…</span>
    <span class="badge demo" data-role="demo" hidden title="Answers come from Braid's scripted demo server, not a real model">Demo model</span>
  </header>
  <div class="problem" data-role="problem" role="alert" hidden></div>
  <div class="note" data-role="read-only" role="status" hidden>Another window is writing this session; it is shown read-only here and follows along live.</div>
  <section class="transcript" data-role="transcript" aria-label="Conversation"></section>
  <form class="composer" data-role="composer">
    <textarea data-role="input" rows="3" aria-label="Prompt" placeholder="Ask Braid… (Enter to send, Shift+Enter for a new line)"></textarea>
    <div class="actions">
      <button type="button" data-role="stop" hidden>Stop</button>
      <button type="submit" data-role="send">Send</button>
    </div>
  </form>`;

function part<T extends HTMLElement>(role: string): T {
  return app.querySelector(`[data-role="${role}"]`) as T;
}

const modelLabel = part<HTMLElement>('model');
const sessionTitle = part<HTMLElement>('title');
const demoBadge = part<HTMLElement>('demo');
const problem = part<HTMLElement>('problem');
const readOnlyNote = part<HTMLElement>('read-only');
const transcript = new Transcript(part<HTMLElement>('transcript'), (action, ids) => host.postMessage({ type: 'messageAction', action, ...ids }));
const composer = part<HTMLFormElement>('composer');
const input = part<HTMLTextAreaElement>('input');
const stop = part<HTMLButtonElement>('stop');

let running: string | undefined;
let counter = 0;

input.value = host.getState()?.draft ?? '';
input.addEventListener('input', () => host.setState({ draft: input.value }));

function showModel(model: ModelInfo): void {
  modelLabel.textContent = model.id ? `${model.provider} · ${model.id}` : 'No model configured';
  demoBadge.hidden = !model.demo;
  problem.hidden = !model.problem;
  problem.textContent = model.problem ?? '';
}

function showSession(session: SessionView | null): void {
  transcript.show(session?.entries ?? [], session?.hasOlder ?? false);
  document.body.dataset.session = session?.id ?? '';
  sessionTitle.textContent = session?.title ?? '';
  const readOnly = session?.readOnly === true;
  document.body.dataset.readOnly = String(readOnly);
  readOnlyNote.hidden = !readOnly;
  input.disabled = readOnly;
}

function describeUsage(usage: UsageInfo | undefined): string {
  if (!usage) return '';
  const cached = usage.cacheRead ? `, ${usage.cacheRead} cached` : '';
  return `${usage.input} in${cached} · ${usage.output} out`;
}

function setRunning(requestId: string | undefined): void {
  running = requestId;
  stop.hidden = !requestId;
  document.body.dataset.turn = requestId ? 'running' : 'idle';
}

function send(): void {
  const text = input.value.trim();
  if (!text || running) return;
  const requestId = `req-${Date.now().toString(36)}-${(counter++).toString(36)}`;
  transcript.addPrompt(requestId, text);
  setRunning(requestId);
  input.value = '';
  host.setState({ draft: '' });
  host.postMessage({ type: 'prompt', requestId, text });
}

composer.addEventListener('submit', (event) => {
  event.preventDefault();
  send();
});
input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
stop.addEventListener('click', () => {
  if (running) host.postMessage({ type: 'cancel', requestId: running });
});

onHostMessage((message: HostToWebview) => {
  switch (message.type) {
    case 'init':
      showModel(message.model);
      showSession(message.session);
      document.body.dataset.handshake = 'complete';
      return;
    case 'sessionChanged':
      showSession(message.session);
      setRunning(undefined);
      return;
    case 'prefill':
      input.value = message.text;
      host.setState({ draft: message.text });
      input.focus();
      return;
    case 'sessionInfo':
      document.body.dataset.session = message.id;
      sessionTitle.textContent = message.title;
      return;
    case 'toolActivity':
      transcript.addTool(message.requestId, message.summary, message.phase, message.isError);
      return;
    case 'modelChanged':
      showModel(message.model);
      return;
    case 'turnDelta':
      transcript.appendAnswer(message.requestId, message.text);
      return;
    case 'turnEnd': {
      const detail = message.outcome === 'completed' ? describeUsage(message.usage)
        : message.outcome === 'cancelled' ? 'Stopped.' : (message.error ?? 'Failed.');
      transcript.end(message.requestId, message.outcome, detail);
      if (running === message.requestId) setRunning(undefined);
      return;
    }
  }
});

setRunning(undefined);
host.postMessage({ type: 'ready', protocol: PROTOCOL_VERSION });
