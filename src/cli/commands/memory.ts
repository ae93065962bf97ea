import fs from 'node:fs';
import type { Api, Model } from '@mariozechner/pi-ai';
import { resolveApiKey } from '../../core/model/apiKey';
import { ENV_NAMES, resolveModelWithLimits } from '../../core/model/modelSettings';
import { contextMessages } from '../../core/session/compaction';
import { memoryText, parseMemoryText } from '../../core/session/memory';
import { SessionMemory } from '../../core/session/sessionMemory';
import type { SessionStore } from '../../core/store/sessionStore';
import type { MemoryFact, MemoryRecord } from '../../core/wire/records';
import { errorMessage } from '../../core/errors';
import { expectPositionals, parseArgs, UsageError } from '../args';
import type { CliContext } from '../context';
import { modelSettingsFromEnv } from '../env';
import { shortSessionId, withSession } from '../resolveIds';
import { jsonText } from '../terminalText';

/**
 * `memory <id> [--update | --set <file>|-] [--json]`: prints the session memory; `--update` asks
 * the model for it again (over the conversation as the model has it), `--set` writes the facts of
 * a file (or stdin) as the user's. Either prints the memory it wrote. Exit 1 when the model's
 * update fails or the text cannot be read: the memory then stays as it was.
 */
export async function memory(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseArgs(argv, { flags: ['update', 'json'], valued: ['set'] });
  const [typed] = expectPositionals(args, ['id']);
  const from = args.options.get('set') as string | undefined;
  if (from !== undefined && args.options.has('update')) throw new UsageError('--update and --set both write the memory; give one');
  // The text is read (and checked) before the session is opened: bad input changes nothing.
  const facts = from === undefined ? undefined : readFacts(from);
  return withSession(ctx, typed!, async (store, id) => {
    let record = store.history(id).memory;
    if (facts) record = await write(store, id, (m) => m.set(facts));
    else if (args.options.has('update')) record = await update(store, id, env);
    if (args.options.has('json')) ctx.out(`${jsonText(record ? { by: record.by, turn: record.turn, ts: record.ts, facts: record.facts } : null)}\n`);
    else if (record) ctx.out(`${memoryText(record.facts)}\n`);
    if (!record)
      ctx.err(`braid: session ${shortSessionId(store, id)} has no memory yet; braid memory ${shortSessionId(store, id)} --update asks the model for one\n`);
    return 0;
  });
}

/** The facts of `--set`'s file, or of stdin for `-`. */
function readFacts(from: string): MemoryFact[] {
  let text: string;
  try {
    text = fs.readFileSync(from === '-' ? 0 : from, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the memory from ${from === '-' ? 'stdin' : from}: ${errorMessage(err)}`, { cause: err });
  }
  try {
    return parseMemoryText(text);
  } catch (err) {
    throw new Error(`the memory was not changed: ${errorMessage(err)}`, { cause: err });
  }
}

/** Asks the model configured as for `braid exec` (BRAID_PROVIDER, BRAID_MODEL, ...) for the memory. */
async function update(store: SessionStore, id: string, env: NodeJS.ProcessEnv): Promise<MemoryRecord> {
  const { model } = await resolveModelWithLimits(modelSettingsFromEnv(env), ENV_NAMES);
  const messages = contextMessages(store.history(id));
  try {
    return await write(store, id, (m) => m.update(messages), { model, apiKey: await resolveApiKey(model.provider, env) });
  } catch (err) {
    throw new Error(`the memory was not updated (${errorMessage(err)}); it stays as it was`, { cause: err });
  }
}

/** Opens the session's writer (refused while another process has the session open), writes through a SessionMemory, closes. */
async function write(
  store: SessionStore,
  id: string,
  change: (m: SessionMemory) => Promise<MemoryRecord>,
  chosen?: { model: Model<Api>; apiKey: string | undefined },
): Promise<MemoryRecord> {
  const writer = await store.openWriter(id);
  try {
    await writer.recover();
    const host = {
      writer,
      logger: store.logger,
      sessionId: id,
      model: async () => {
        if (!chosen) throw new Error('no model is configured');
        return chosen;
      },
      emit: () => undefined,
    };
    return await change(new SessionMemory(host, store.history(id).memory));
  } finally {
    await writer.close();
  }
}
