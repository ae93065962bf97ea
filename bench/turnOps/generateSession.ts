// A Braid session log of a given size, turn after turn in the shape of real sessions
// (sessionShape.ts): each turn a prompt, the model's tool calls each with its output, and an
// answer, every size drawn from the real sessions' deciles; written through the log writer's own
// serializer, as a store holds it.
import fs from 'node:fs';
import { newMessageId } from '../../src/core/ids';
import { WireLogWriter } from '../../src/core/wire/wireLog';
import type { NewRecord } from '../../src/core/wire/records';
import { random } from '../benchInputs';
import { assistant, CODE_LINES, OUTPUT_LINES, prose, textBlock, usageOf } from '../generate';
import { drawn, type SessionShape } from './sessionShape';

const TOOLS = ['read_file', 'bash', 'edit_file', 'grep'];

/** Where each turn starts and ends in the log: the byte offset of its `turn_begin` line and the end of its `turn_end` line. */
export interface TurnSpans {
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

/** Writes the main log `file` (its first line, the agent record, already there) to about `bytes`; the turns' byte spans. */
export function appendShapedTurns(file: string, bytes: number, shape: SessionShape): TurnSpans {
  const next = random(20_260_101);
  const starts: number[] = [];
  const ends: number[] = [];
  let written = fs.statSync(file).size;
  const fd = fs.openSync(file, 'a');
  try {
    for (let turn = 1; written < bytes; turn++) {
      const ts = 1_760_000_000_000 + turn * 90_000;
      const text = shapedTurn(turn, ts, shape, next)
        .map((r) => WireLogWriter.serialize(r, ts).line)
        .join('');
      starts.push(written);
      written += fs.writeSync(fd, text);
      ends.push(written);
    }
  } finally {
    fs.closeSync(fd);
  }
  return { starts, ends };
}

/**
 * One turn's records: turn_begin, the prompt, each tool call (assistant message, usage, tool end,
 * result), the answer, turn_end; the prompt's and the model's texts written by `text` (about `chars` characters).
 */
export function shapedTurn(
  turn: number,
  ts: number,
  shape: SessionShape,
  next: () => number,
  text: (next: () => number, chars: number) => string = prose,
): NewRecord[] {
  const message = (body: unknown): NewRecord => ({ t: 'message', turn, id: newMessageId(ts), message: body as never, ts });
  const records: NewRecord[] = [
    { t: 'turn_begin', turn, promptId: `p_${turn}`, model: { provider: 'bench', id: 'bench-model', thinking: 'off' }, ts },
    message({ role: 'user', content: text(next, drawn(shape.promptChars, next)), timestamp: ts }),
  ];
  const calls = drawn(shape.toolCallsPerTurn, next);
  for (let c = 0; c < calls; c++) {
    const id = `call_${turn}_${c}`;
    const name = TOOLS[Math.floor(next() * TOOLS.length)]!;
    const callMessage = message(
      assistant(
        ts,
        [
          { type: 'text', text: text(next, Math.min(400, drawn(shape.assistantChars, next))) },
          { type: 'toolCall', id, name, arguments: { path: `src/${turn}/${c}.ts` } },
        ],
        'toolUse',
      ),
    );
    const output = textBlock(next, name === 'bash' ? OUTPUT_LINES : CODE_LINES, drawn(shape.toolOutputChars, next));
    records.push(
      callMessage,
      usageOf(turn, (callMessage as { id: string }).id, ts, 'toolUse'),
      { t: 'tool', turn, toolCallId: id, name, phase: 'end', isError: false, ts },
      message({ role: 'toolResult', toolCallId: id, toolName: name, content: [{ type: 'text', text: output }], isError: false, timestamp: ts }),
    );
  }
  const answer = message(assistant(ts, [{ type: 'text', text: text(next, drawn(shape.assistantChars, next)) }], 'stop'));
  records.push(answer, usageOf(turn, (answer as { id: string }).id, ts, 'stop'), { t: 'turn_end', turn, outcome: 'completed', ts });
  return records;
}
