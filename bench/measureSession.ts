// The time to the first token of an answer in a running process, run in a child process
// (programs/sessionMeasures.ts): a core Session in a generated store's workspace, as the Chat view
// holds one, against a bare streaming request from the same process to the same scripted server.
import { silentLogger } from '../src/core/logger';
import { SessionStore } from '../src/core/store/sessionStore';
import { workspaceKey } from '../src/core/workspace/workspaceKey';
import { peakRssMb, resetPeak, timed, type Results } from './memory';
import { median } from './table';
import { openBenchSession } from './turnIo/benchSession';

type BenchSession = Awaited<ReturnType<typeof openBenchSession>>;

/**
 * Submit to first text, each prompt a new turn of one session in `workspaceDir` (the first, which
 * also names the session, is not counted), against a bare streaming call (to its first content chunk).
 */
export async function firstToken(root: string, workspaceDir: string, wasmPath: string, baseUrl: string, runs: number): Promise<Results> {
  const store = await SessionStore.open({ root, wasmPath, logger: silentLogger, workspaceKey: workspaceKey(workspaceDir), watch: true });
  const session = await openBenchSession(store, workspaceDir, baseUrl);
  const times: number[] = [];
  resetPeak();
  for (let i = 0; i <= runs; i++) {
    const ms = await untilFirstText(session);
    await session.waitForIdle();
    if (i > 0) times.push(ms);
  }
  const braid = { ms: median(times), peakMb: peakRssMb() };
  await session.close();
  await store.close();
  const bare = await timed(runs, () => bareFirstChunk(baseUrl));
  return { braid, bare };
}

/** Submits "hi"; resolves with the ms from the submit to the answer's first text. */
function untilFirstText(session: BenchSession): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const stop = session.onEvent((e) => {
      if (e.type === 'text-delta') {
        stop();
        resolve(Number(process.hrtime.bigint() - start) / 1e6);
      } else if (e.type === 'turn-end') {
        stop();
        reject(new Error(`the turn ended without text (${e.outcome}${e.error ? `: ${e.error}` : ''})`));
      }
    });
    session.submit('hi').catch(reject);
  });
}

/** A streaming chat completion asked with fetch; resolves at its first content chunk (the rest is not read). */
async function bareFirstChunk(baseUrl: string): Promise<void> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer no-key' },
    body: JSON.stringify({ model: 'scripted-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the stream ended before any content');
    text += decoder.decode(value, { stream: true });
    if (/"content":"[^"]/.test(text)) break;
  }
  await reader.cancel();
}
