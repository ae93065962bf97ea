/**
 * Transcript entries and stream frames (docs/reference.md, Stream frames): what the Chat page renders, and the live
 * output the host keeps per session in a ring with a monotonic cursor.
 */

import type { ChangedFile, ChangeScope, ChangesInfo } from '../core/store/changes';
import type { ContextInfo } from '../core/session/contextUse';
import type { ApprovalChange } from '../core/tools/approvals';
import type { TurnMode } from './modes';

// The core owns what it computes (the Changes lists, the context meter, an approval's change); the
// page takes their types from here, type-only, so none of the core's code reaches the browser.
export type { ApprovalChange, ChangedFile, ChangeScope, ChangesInfo, ContextInfo };

/** One tool call as a card: its arguments, a diff for file edits, and its result once it ended. */
export interface ToolEntry {
  readonly kind: 'tool';
  /** The tool call id; a card is updated in place as the call runs and ends. */
  readonly key: string;
  readonly name: string;
  /** One line: the tool and its main argument. */
  readonly summary: string;
  /** The arguments as pretty JSON, cut to a readable size. */
  readonly args: string;
  /**
   * A write_file / edit_file call's diff (`+`, `-`, ` ` prefixed lines, `@@` hunk lines), shown
   * once the call is done (while it waits, its approval card shows it); empty before, and for
   * other tools.
   */
  readonly diff: string;
  readonly status: 'running' | 'done' | 'error';
  /** The result text, cut to a readable size; empty while it runs. */
  readonly result: string;
}

/** The kinds of things a prompt can carry besides its text. */
export type AttachmentKind = 'file' | 'selection' | 'folder' | 'editor' | 'problems' | 'gitDiff' | 'image' | 'mcpResource';

/** A chip under a prompt in the transcript: something the user attached to it. */
export interface AttachmentChip {
  readonly kind: AttachmentKind;
  readonly label: string;
  /** The workspace-relative path, with a selection's lines (`src/a.ts:3-9`). */
  readonly detail?: string;
  /** Cut to the limits before it went to the model. */
  readonly truncated: boolean;
  /** An image's thumbnail: a `data:` URI of the image itself. */
  readonly image?: string;
}

/** One item of a transcript as the page shows it; `key` is stable across live and stored views. */
export type TranscriptEntry =
  /** A prompt; `mode` is its turn's, when the log names one (not Agent); `attachments` what the user attached. */
  | {
      readonly kind: 'user';
      readonly key: string;
      readonly text: string;
      readonly messageId: string;
      readonly mode?: TurnMode;
      readonly attachments?: readonly AttachmentChip[];
    }
  | { readonly kind: 'assistant'; readonly key: string; readonly text: string; readonly thinking: string }
  | ToolEntry
  /** Context another tool put in an imported conversation as a user message (its environment, a reminder, a command's output): collapsed, the text expands. */
  | { readonly kind: 'context'; readonly key: string; readonly by: string; readonly what: string; readonly text: string }
  /** A compaction: the messages above were summarized for the model; the summary expands. */
  | { readonly kind: 'compaction'; readonly key: string; readonly summary: string; readonly summarized: number }
  /** The call of the answer above read far less from the prompt cache than the one before: the cause, and what changed and cost. */
  | { readonly kind: 'cacheBreak'; readonly key: string; readonly cause: string; readonly text: string };

/** Token usage of a turn or a session. */
export interface UsageInfo {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly costTotal: number;
}

/** A prompt waiting in the queue, shown as a chip. */
export interface QueuedChip {
  readonly promptId: string;
  /** The prompt's start (its first 2,000 units, then an ellipsis when it goes on): a chip shows one line of it. */
  readonly text: string;
}

/** What the page shows about the session besides its transcript. */
export interface SessionInfo {
  readonly id: string;
  readonly title: string;
  /** The session's own model calls (what usage reports count under it). */
  readonly usage: UsageInfo;
  /** A fork's whole history, the calls inherited from its source included; absent when nothing was inherited. */
  readonly history?: UsageInfo;
  readonly queue: readonly QueuedChip[];
  /** The queue waits for the user: it came back after a crash or a closed window, or a turn was stopped or failed. */
  readonly paused: boolean;
  /** Why it waits: `window-closed`, `stopped` or `failed` (absent when it runs). */
  readonly pauseReason?: string;
  /** How full the model's context is (an open session's; absent for one followed read-only). */
  readonly context?: ContextInfo;
  /** The files Braid changed that the user has not kept or undone (an open session's). */
  readonly changes?: ChangesInfo;
  /** The model's todo list as of the session's last effective turn (its last todo_write call); absent when it has none or an empty one. */
  readonly todos?: readonly TodoEntry[];
}

/** One item of the model's todo list, a line of the checklist above the composer. */
export interface TodoEntry {
  readonly text: string;
  readonly status: 'pending' | 'in_progress' | 'done';
}

/** Live output of a running turn: not stored as such; the log gets the committed messages. */
export type LiveEvent =
  | { readonly type: 'turn-start'; readonly requestId: string }
  | { readonly type: 'text-delta'; readonly requestId: string; readonly delta: string }
  | { readonly type: 'thinking-delta'; readonly requestId: string; readonly delta: string }
  | { readonly type: 'tool-start'; readonly tool: ToolEntry }
  | {
      readonly type: 'tool-end';
      readonly key: string;
      readonly isError: boolean;
      readonly result: string;
      /** The diff of the change the call made (its card shows it). */
      readonly diff?: string;
    }
  | {
      readonly type: 'approval';
      readonly approvalId: string;
      readonly tool: string;
      readonly summary: string;
      readonly detail: string;
      readonly commandRisk?: string;
      readonly change?: ApprovalChange;
      /** The tool call's arguments (JSON), shown folded under the card. */
      readonly args?: string;
      /** The permission rule "Always allow" writes into the user's settings; no such button without it. */
      readonly alwaysRule?: string;
    }
  | { readonly type: 'approval-resolved'; readonly approvalId: string; readonly decision: ApprovalChoice }
  /** A line about the session's own work (a compaction running, failed or stopped); same key, same line. */
  | { readonly type: 'notice'; readonly key: string; readonly text: string; readonly tone: 'progress' | 'info' | 'error' };

/** The user's answer to an approval prompt. */
export type ApprovalChoice = 'allow' | 'allow-session' | 'allow-always' | 'deny';

/** How a turn ended, as the page shows it. */
export type TurnOutcomeView = 'completed' | 'failed' | 'cancelled';

/** The frame kinds (docs/reference.md, Stream frames). */
export type FrameBody =
  | { readonly kind: 'runtime-event'; readonly event: LiveEvent }
  | { readonly kind: 'message-committed'; readonly entries: readonly TranscriptEntry[]; readonly requestId?: string }
  | {
      readonly kind: 'turn-terminal';
      readonly requestId: string;
      readonly outcome: TurnOutcomeView;
      readonly error?: string;
      readonly usage?: UsageInfo;
      /** The prompt was held and failed before its answer: nothing of it is in the log, and the page that sent it puts its text back into the composer. */
      readonly unsent?: boolean;
    }
  | { readonly kind: 'messages-rewound' }
  | { readonly kind: 'session-updated'; readonly info: SessionInfo }
  | { readonly kind: 'resync-required' };

/** A frame with its place in the session's stream. Cursors grow by one per frame. */
export type StreamFrame = FrameBody & { readonly cursor: number };
