import { silentLogger } from '../src/core/logger';
import { SessionStore } from '../src/core/store/sessionStore';
import { turnRecords } from './generate';
import type { MessageRecord, UsageRecord } from '../src/core/wire/records';

/**
 * Appends `turns` turns through the real SessionWriter (4 messages, a usage record and a fsynced
 * turn_end each, state.json and index updated at turn end). Returns the ms per message end
 * without fsync, per message end with an fsync each, and per whole turn.
 */
export async function appendThroughWriter(
  root: string,
  wasmPath: string,
  turns: number,
): Promise<{ messageMs: number[]; durableMessageMs: number[]; turnMs: number[] }> {
  const store = await SessionStore.open({ root, wasmPath, logger: silentLogger, saveDelayMs: 100 });
  const state = await store.create({ workspaceDir: '/bench/append' });
  const writer = await store.openWriter(state.id);
  const messageMs: number[] = [];
  const durableMessageMs: number[] = [];
  const turnMs: number[] = [];
  const now = () => process.hrtime.bigint();
  for (let t = 1; t <= turns; t++) {
    const records = turnRecords(t, t, 2_000);
    const turnStart = now();
    await writer.beginTurn(`p${t}`, { provider: 'bench', id: 'bench-model', thinking: 'off' });
    for (const r of records) {
      if (r.t === 'message') {
        const start = now();
        await writer.appendMessage((r as MessageRecord).message);
        messageMs.push(Number(now() - start) / 1e6);
      } else if (r.t === 'usage') {
        await writer.appendUsage(r as Omit<UsageRecord, 'v' | 'ts' | 't' | 'turn'>);
      }
    }
    await writer.endTurn('completed');
    turnMs.push(Number(now() - turnStart) / 1e6);
  }
  // The same message ends, each made durable on its own, to price an fsync per message.
  for (let i = 0; i < Math.min(200, turns * 4); i++) {
    const start = now();
    await writer.append({ t: 'tool', turn: turns, toolCallId: `x${i}`, name: 'bench', phase: 'end' }, true);
    durableMessageMs.push(Number(now() - start) / 1e6);
  }
  await writer.close();
  await store.close();
  return { messageMs, durableMessageMs, turnMs };
}
