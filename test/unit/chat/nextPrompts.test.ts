import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { registerFauxProvider, type FauxProviderRegistration } from '@mariozechner/pi-ai';
import { DEFAULT_COMPACTION } from '../../../src/core/session/compaction';
import { SUGGESTION_REQUEST, type SuggestionSetting } from '../../../src/core/session/suggestion';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import type { HostToWebview, SuggestionMessage } from '../../../src/protocol/messages';
import { readSetupSources } from '../../../src/core/setup/sources';
import type { ChatHost } from '../../../src/vscode/chat/chatHost';
import { CurrentSession } from '../../../src/vscode/chat/currentSession';
import { fauxAssistantMessage } from '../../support/session';
import { openStore, recordingLogger, tempRoots } from '../../support/store';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { userMessageId } from '../../../src/core/ids';
import { until } from '../../support/until';

// The chat's next-prompt suggestions (NextPrompts, owned by CurrentSession) with a real Session on
// the faux provider and an editor without VS Code.
const roots = tempRoots();
after(roots.cleanup);

class FakeHost implements ChatHost {
  readonly posted: HostToWebview[] = [];
  readonly memory = new Map<string, string>();
  constructor(
    private readonly faux: FauxProviderRegistration,
    private readonly workspace: string,
    public setting: SuggestionSetting | undefined,
  ) {}
  workspaceDirs = () => [this.workspace];
  isTrusted = () => true;
  chooseModel = async () => ({ model: this.faux.getModel(), thinking: 'off' });
  apiKey = async () => 'faux-key';
  sessionSettings = () => ({ approvalPolicy: { writes: 'ask' as const, shell: 'ask' as const }, compaction: DEFAULT_COMPACTION });
  setupSources = () =>
    readSetupSources({ workspaceDir: this.workspace, trusted: true, env: { XDG_CONFIG_HOME: path.join(this.workspace, '.no-user-config') } });
  suggestionSetting = () => this.setting ?? 'off';
  shown = { get: () => this.memory.get('shown'), set: (id: string | undefined) => void (id ? this.memory.set('shown', id) : this.memory.delete('shown')) };
  post = (message: HostToWebview) => void this.posted.push(message);
  resync = () => undefined;
  reveal = () => undefined;

  suggestions(): SuggestionMessage[] {
    return this.posted.filter((m): m is SuggestionMessage => m.type === 'suggestion');
  }
}

async function withChat(
  setting: SuggestionSetting | undefined,
  run: (f: { chat: CurrentSession; host: FakeHost; faux: FauxProviderRegistration; store: SessionStore }) => Promise<void>,
) {
  const root = roots.root();
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const store = await openStore(path.join(root, 'store'));
  const faux = registerFauxProvider({ provider: 'faux', models: [{ id: 'faux-1' }], tokenSize: { min: 2, max: 4 } });
  const host = new FakeHost(faux, workspace, setting);
  const chat = new CurrentSession(store, host, recordingLogger());
  try {
    await run({ chat, host, faux, store });
  } finally {
    chat.dispose();
    await new Promise((resolve) => setTimeout(resolve, 50));
    faux.unregister();
    await store.close();
  }
}

/** The text of the last user message a faux request carries (the suggestion request is plain text). */
const lastAsk = (context: { messages: readonly { role: string; content: unknown }[] }) => {
  const content = context.messages.at(-1)?.content;
  return typeof content === 'string' ? content : '';
};

const usagePurposes = (store: SessionStore, id: string) =>
  readWireLog(store.layout.agentLog(store.locate(id)))
    .records.filter((r) => r.t === 'usage')
    .map((r) => (r as { purpose?: string }).purpose ?? 'turn');

test('after a completed turn the pages get one suggestion; a snapshot carries it; the next prompt withdraws it', async () => {
  await withChat('on', async ({ chat, host, faux, store }) => {
    let asked = '';
    faux.setResponses([
      fauxAssistantMessage('Hello there.'),
      (context) => {
        asked = lastAsk(context);
        return fauxAssistantMessage('"Say goodbye"');
      },
      fauxAssistantMessage('Goodbye.'),
    ]);
    await chat.prompt('req-1', 'Say hello', false);
    const id = chat.currentId!;
    await until(() => host.suggestions().length > 0, 'a suggestion is posted');
    assert.equal(asked, SUGGESTION_REQUEST);
    assert.deepEqual(host.suggestions(), [{ type: 'suggestion', sessionId: id, text: 'Say goodbye' }]);
    assert.equal(chat.view().session?.suggestion, 'Say goodbye', 'a page that renders from scratch shows it too');

    await chat.prompt('req-2', 'Say goodbye', false);
    assert.deepEqual(host.suggestions().at(-1), { type: 'suggestion', sessionId: id, text: null }, 'withdrawn from every page');
    assert.equal(chat.view().session?.suggestion, undefined);
    await until(() => usagePurposes(store, id).length === 3, 'the second turn ends');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(usagePurposes(store, id), ['turn', 'suggestion', 'turn'], 'no script left: the second turn asked for nothing more');
    assert.equal(host.suggestions().length, 2);
  });
});

test('off, absent, or auto with a metered model: nothing is asked', async () => {
  for (const setting of ['off', undefined, 'auto'] as const) {
    await withChat(setting, async ({ chat, host, faux }) => {
      faux.setResponses([fauxAssistantMessage('Hello there.')]);
      await chat.prompt('req-1', 'Say hello', false);
      await until(() => faux.getPendingResponseCount() === 0, 'the turn is answered');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(faux.state.callCount, 1, `${setting}: only the turn called the model`);
      assert.deepEqual(host.suggestions(), []);
    });
  }
});

test('a failed turn gets no suggestion', async () => {
  await withChat('on', async ({ chat, host, faux }) => {
    faux.setResponses([fauxAssistantMessage('', { stopReason: 'error', errorMessage: 'overloaded' })]);
    await chat.prompt('req-1', 'Say hello', false);
    await until(() => faux.getPendingResponseCount() === 0, 'the turn is answered');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(faux.state.callCount, 1);
    assert.deepEqual(host.suggestions(), []);
  });
});

test('an answer that arrives after another session is shown is dropped, and its call aborted', async () => {
  await withChat('on', async ({ chat, host, faux }) => {
    let release: () => void = () => undefined;
    let aborted = false;
    faux.setResponses([
      fauxAssistantMessage('Hello there.'),
      async (_context, options) => {
        options?.signal?.addEventListener('abort', () => (aborted = true));
        await new Promise<void>((resolve) => (release = resolve));
        return fauxAssistantMessage('Too late');
      },
    ]);
    await chat.prompt('req-1', 'Say hello', false);
    await until(() => faux.state.callCount === 2, 'the suggestion is asked');
    await chat.newSession();
    assert.equal(aborted, true, 'the call under way is aborted');
    release();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(host.suggestions(), [], 'nothing was shown, so nothing is withdrawn');
  });
});

test('a rewind withdraws the suggestion: it followed the turns the rewind drops', async () => {
  await withChat('on', async ({ chat, host, faux }) => {
    faux.setResponses([fauxAssistantMessage('Hello there.'), fauxAssistantMessage('Say goodbye')]);
    await chat.prompt('req-1', 'Say hello', false);
    const id = chat.currentId!;
    await until(() => host.suggestions().length > 0, 'a suggestion is posted');
    await chat.rewind(userMessageId(id, 'req-1'), false);
    assert.deepEqual(host.suggestions().at(-1), { type: 'suggestion', sessionId: id, text: null });
    assert.equal(chat.view().session?.suggestion, undefined);
  });
});
