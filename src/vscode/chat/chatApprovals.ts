import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalRequest, ApprovalUi } from '../../core/tools/approvals';
import type { ApprovalChoice, FrameBody } from '../../protocol/frames';

/** Most characters of a request's diff or folder the card shows. */
const MAX_DETAIL = 4000;
/** Most characters of a call's arguments the card shows (a whole file's content can be in them). */
const MAX_ARGS = 20_000;

/** `text` cut at `max` characters, saying how many were left out. */
function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… ${text.length - max} more characters`;
}

/**
 * Approval prompts inside the chat: a request becomes a live frame the page shows as a card with
 * Allow / Allow for this session / Always allow (when the request has a rule to write) / Deny; the page's answer resolves it. A stopped turn denies.
 */
export class ChatApprovals implements ApprovalUi {
  private readonly pending = new Map<string, (decision: ApprovalDecision) => void>();

  constructor(
    /** Posts a live frame of the running turn; undefined when no turn can show it. */
    private readonly push: (body: FrameBody) => boolean,
    /** Brings the Chat view forward so the prompt is seen. */
    private readonly reveal: () => void,
  ) {}

  request(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalDecision> {
    const approvalId = `apr-${randomUUID()}`;
    return new Promise<ApprovalDecision>((resolve) => {
      const finish = (decision: ApprovalDecision) => {
        if (!this.pending.delete(approvalId)) return;
        signal?.removeEventListener('abort', onAbort);
        this.push({ kind: 'runtime-event', event: { type: 'approval-resolved', approvalId, decision } });
        resolve(decision);
      };
      const onAbort = () => finish('deny');
      this.pending.set(approvalId, finish);
      signal?.addEventListener('abort', onAbort, { once: true });
      const shown = this.push({
        kind: 'runtime-event',
        event: {
          type: 'approval',
          approvalId,
          tool: request.tool,
          summary: request.summary,
          detail: bounded(request.detail ?? '', MAX_DETAIL),
          ...(request.commandRisk ? { commandRisk: request.commandRisk } : {}),
          ...(request.change ? { change: request.change } : {}),
          ...(request.args ? { args: bounded(request.args, MAX_ARGS) } : {}),
          ...(request.alwaysRule ? { alwaysRule: request.alwaysRule } : {}),
        },
      });
      if (!shown) finish('deny');
      else this.reveal();
    });
  }

  /** The page's answer; unknown or already answered ids are ignored. */
  answer(approvalId: string, decision: ApprovalChoice): void {
    this.pending.get(approvalId)?.(decision);
  }

  /** Denies everything still asked (the session closes or switches). */
  denyAll(): void {
    for (const finish of [...this.pending.values()]) finish('deny');
  }
}
