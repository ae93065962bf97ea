import fs from 'node:fs';
import path from 'node:path';
import { newMessageId, newSessionId } from '../src/core/ids';
import { StoreLayout } from '../src/core/format/layout';
import { writeState, type StoredState } from '../src/core/format/sessionState';
import { WireLogWriter } from '../src/core/wire/wireLog';
import type { NewRecord } from '../src/core/wire/records';
import { workspaceKey } from '../src/core/workspace/workspaceKey';

const WORDS = 'parser index webview fork rewind session cache token stream compile build test deploy refactor schema query render layout widget config'.split(
  ' ',
);

function sentence(seed: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[(seed * 31 + i * 17) % WORDS.length]!);
  return out.join(' ');
}

/** The records of one turn: prompt, an assistant tool call, its (large) result, the answer, usage. */
export function turnRecords(turn: number, seed: number, toolOutputBytes: number): NewRecord[] {
  const ts = 1_700_000_000_000 + seed * 1000 + turn;
  const callId = `call_${seed}_${turn}`;
  const assistantBase = {
    role: 'assistant' as const,
    api: 'openai-completions',
    provider: 'bench',
    model: 'bench-model',
    stopReason: 'stop' as const,
    timestamp: ts,
    usage: {
      input: 1200,
      output: 300,
      cacheRead: 800,
      cacheWrite: 0,
      totalTokens: 1500,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.002 },
    },
  };
  const toolText = `${sentence(seed + turn, 12)}\n`.repeat(Math.max(1, Math.floor(toolOutputBytes / 100)));
  const answerId = newMessageId(ts);
  return [
    { t: 'turn_begin', turn, promptId: `p_${seed}_${turn}`, model: { provider: 'bench', id: 'bench-model', thinking: 'off' }, ts },
    {
      t: 'message',
      turn,
      id: newMessageId(ts),
      message: { role: 'user', content: `Please ${sentence(seed + turn, 8)} in module ${seed % 97}`, timestamp: ts },
      ts,
    },
    {
      t: 'message',
      turn,
      id: newMessageId(ts),
      message: {
        ...assistantBase,
        content: [{ type: 'toolCall', id: callId, name: 'read_file', arguments: { path: `src/mod${turn}.ts` } }],
        stopReason: 'toolUse',
      },
      ts,
    },
    { t: 'tool', turn, toolCallId: callId, name: 'read_file', phase: 'end', isError: false, ts },
    {
      t: 'message',
      turn,
      id: newMessageId(ts),
      message: { role: 'toolResult', toolCallId: callId, toolName: 'read_file', content: [{ type: 'text', text: toolText }], isError: false, timestamp: ts },
      ts,
    },
    { t: 'message', turn, id: answerId, message: { ...assistantBase, content: [{ type: 'text', text: `Done: ${sentence(seed * 7 + turn, 20)}.` }] }, ts },
    {
      t: 'usage',
      turn,
      messageId: answerId,
      provider: 'bench',
      model: 'bench-model',
      input: 1200,
      output: 300,
      cacheRead: 800,
      cacheWrite: 0,
      reasoning: 0,
      cost: 0.002,
      latencyMs: 900,
      stopReason: 'stop',
      ts,
    },
    { t: 'turn_end', turn, outcome: 'completed', ts },
  ];
}

/**
 * Writes `count` sessions over `workspaces` workspaces in the store's real formats (state.json
 * through writeState, log lines through WireLogWriter.serialize), each with `turns` small turns
 * (4 messages each: prompt, tool call, tool result, answer).
 */
export function generateSessions(
  root: string,
  count: number,
  workspaces: number,
  turns: number,
  workspaceOf = (i: number) => `/bench/workspace-${i % workspaces}`,
): string[] {
  const layout = new StoreLayout(root);
  const dirs: string[] = [];
  for (let i = 0; i < count; i++) {
    const workspaceDir = workspaceOf(i);
    const key = workspaceKey(workspaceDir);
    const created = 1_700_000_000_000 + i * 60_000;
    const id = newSessionId(created);
    const dir = layout.sessionDir(key, id);
    const lines = [
      WireLogWriter.serialize({ t: 'agent', agentId: 'main', parentAgentId: null, purpose: 'main', sessionId: id, workspaceDir, ts: created }).line,
    ];
    // Each turn's records a second apart, so the session's time (its newest record) is its own.
    for (let t = 1; t <= turns; t++) for (const r of turnRecords(t, i, 300)) lines.push(WireLogWriter.serialize(r, created + t * 1000).line);
    fs.mkdirSync(path.join(dir, 'agents', 'main'), { recursive: true });
    fs.writeFileSync(layout.agentLog(dir), lines.join(''));
    const state: StoredState = {
      v: 2,
      id,
      workspaceKey: key,
      workspaceDir,
      createdAt: created,
      title: `Session ${i}: ${sentence(i, 4)}`,
      titleSource: 'auto',
      kind: 'conversation',
      visibility: 'visible',
      archived: i % 20 === 19,
      forkedFrom: null,
      queue: [],
      paused: null,
    };
    writeState(layout.stateFile(dir), state);
    dirs.push(dir);
  }
  return dirs;
}

/** Writes one session log of about `records` records (8 a turn), with realistic tool outputs (2 to 14 KB). */
export function generateLogOfRecords(file: string, records: number): { records: number; bytes: number } {
  return generateLargeLog(file, Number.POSITIVE_INFINITY, records);
}

/** Writes one session whose main log grows to about `bytes` (or `maxRecords`), with realistic tool outputs. */
export function generateLargeLog(file: string, bytes: number, maxRecords = Number.POSITIVE_INFINITY): { records: number; bytes: number } {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let records = 0;
  try {
    const head = WireLogWriter.serialize({ t: 'agent', agentId: 'main', parentAgentId: null, purpose: 'main' }).line;
    written += fs.writeSync(fd, head);
    for (let turn = 1; written < bytes && records + 8 <= maxRecords + 7 && records < maxRecords; turn++) {
      const batch = turnRecords(turn, turn, 2_000 + ((turn * 7919) % 12_000))
        .map((r) => WireLogWriter.serialize(r).line)
        .join('');
      written += fs.writeSync(fd, batch);
      records += 8;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { records, bytes: written };
}

/**
 * Copies a log and inserts `count` compaction records at evenly spaced turn ends (the last after
 * the final turn), each keeping the messages of its last three turns verbatim. Returns the copy's size.
 */
export function withCompactions(file: string, out: string, count: number): number {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  const turnEnds = lines.flatMap((l, i) => (l.includes('"t":"turn_end"') ? [i] : []));
  const firstMessageOfTurn = new Map<number, string>();
  for (const l of lines) {
    if (!l.includes('"t":"message"')) continue;
    const r = JSON.parse(l) as { turn: number; id: string };
    if (!firstMessageOfTurn.has(r.turn)) firstMessageOfTurn.set(r.turn, r.id);
  }
  const at = new Set(Array.from({ length: count }, (_, k) => turnEnds[Math.floor(((k + 1) * turnEnds.length) / count) - 1]!));
  const output: string[] = [];
  lines.forEach((l, i) => {
    output.push(l);
    if (!at.has(i)) return;
    const turn = (JSON.parse(l) as { turn: number }).turn;
    const kept = firstMessageOfTurn.get(Math.max(1, turn - 2))!;
    output.push(
      WireLogWriter.serialize({
        t: 'compaction',
        turn,
        summary: `Summary up to turn ${turn}: ${sentence(turn, 300)}.`,
        firstKeptMessageId: kept,
        summarized: turn * 4,
      }).line.trimEnd(),
    );
  });
  fs.writeFileSync(out, `${output.join('\n')}\n`);
  return fs.statSync(out).size;
}
