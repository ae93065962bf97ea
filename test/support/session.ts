import fs from 'node:fs';
import path from 'node:path';
import { fauxAssistantMessage, fauxText, fauxToolCall, registerFauxProvider, type FauxProviderRegistration } from '@mariozechner/pi-ai';
import { silentLogger } from '../../src/core/logger';
import { Session, type SessionOptions } from '../../src/core/session/session';
import type { SessionStore } from '../../src/core/store/sessionStore';
import type { ApprovalDecision, ApprovalRequest } from '../../src/core/tools/approvals';
import { readWireLog } from '../../src/core/wire/wireReader';
import type { WireRecord } from '../../src/core/wire/records';
import { openStore, tempDir } from './store';

export { fauxAssistantMessage, fauxText, fauxToolCall };

/**
 * The model reads files with read_file (read before write: an existing file changes only once the
 * session has read it), as the step before a scripted change to them. A file that does not exist
 * yet reads as an error, which changes nothing.
 */
export function fauxRead(files: string | readonly string[]): ReturnType<typeof fauxAssistantMessage> {
  const list = typeof files === 'string' ? [files] : files;
  return fauxAssistantMessage(
    list.map((file, i) => fauxToolCall('read_file', { path: file }, { id: `read-${i}-${file}` })),
    { stopReason: 'toolUse' },
  );
}

/** A store, a workspace folder and a faux provider, for driving Sessions in tests. */
export interface SessionFixture {
  readonly root: string;
  readonly workspace: string;
  readonly store: SessionStore;
  readonly faux: FauxProviderRegistration;
  readonly approvals: ApprovalRequest[];
  decide: ApprovalDecision;
  open(overrides?: Partial<SessionOptions>, sessionId?: string): Promise<Session>;
  records(sessionId: string): WireRecord[];
  cleanup(): Promise<void>;
}

export async function sessionFixture(files: Record<string, string> = {}): Promise<SessionFixture> {
  const root = tempDir('braid-session-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), content);
  }
  const store = await openStore(path.join(root, 'store'));
  const faux = registerFauxProvider({ provider: 'faux', models: [{ id: 'faux-1' }], tokenSize: { min: 2, max: 4 } });
  const sessions: Session[] = [];
  const fixture: SessionFixture = {
    root,
    workspace,
    store,
    faux,
    approvals: [],
    decide: 'allow',
    async open(overrides = {}, sessionId) {
      const session = await Session.open(
        {
          store,
          workspaceDirs: [workspace],
          model: () => ({ model: faux.getModel(), thinking: 'off' }),
          apiKey: () => 'faux-key',
          systemPrompt: 'You are a test agent.',
          approvals: { request: async (r) => (fixture.approvals.push(r), fixture.decide) },
          trusted: true,
          logger: silentLogger,
          gitContext: false,
          ...overrides,
        },
        sessionId,
      );
      sessions.push(session);
      return session;
    },
    records(sessionId) {
      const dir = store.locate(sessionId);
      return readWireLog(path.join(dir, 'agents', 'main', 'wire.jsonl')).records;
    },
    async cleanup() {
      for (const s of sessions) await s.close();
      faux.unregister();
      await store.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return fixture;
}
