// What a workspace remembers of its pushes, pulls and syncs: the remote last named (so the next
// input box starts with it) and the last push, pull and sync. Kept in workspaceState; no vscode
// import, so a test drives it with a map.
import { EventEmitter } from 'node:events';
import { counted } from '../../core/counted';
import { timeAgo } from '../../core/timeAgo';
import type { ShareRemote } from '../../core/share/remote';

/** The part of VS Code's Memento this uses (workspaceState). */
export interface KeptValues {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/**
 * One push, pull or sync that happened: when, where (the remote as shown, without a password), how
 * many sessions it sent or brought (a sync: brought in, and `sent` the sessions it pushed).
 */
export interface ShareEvent {
  readonly kind: 'push' | 'pull' | 'sync';
  readonly at: number;
  readonly remote: string;
  readonly sessions: number;
  readonly sent?: number;
}

const REMOTE_KEY = 'braid.share.remote';
const EVENT_KEY: Record<ShareEvent['kind'], string> = { push: 'braid.share.lastPush', pull: 'braid.share.lastPull', sync: 'braid.share.lastSync' };
const DONE: Record<ShareEvent['kind'], string> = { push: 'pushed', pull: 'pulled', sync: 'synced' };

/**
 * The form of a remote kept for the next input box: a git remote's name as typed (`origin`), else
 * the URL or absolute path as shown, which never holds a password.
 */
export function keptRemote(typed: string, remote: ShareRemote, byName: boolean): string {
  return byName ? typed.trim() : remote.shown;
}

/** The last remote, push, pull and sync of a workspace; `onDidChange` fires when one is recorded. */
export class ShareMemory {
  private readonly events = new EventEmitter();

  constructor(private readonly values: KeptValues) {}

  /** The remote last named in this workspace; none before the first push, pull or sync (there is no default remote). */
  get remote(): string | undefined {
    const kept = this.values.get<unknown>(REMOTE_KEY);
    return typeof kept === 'string' && kept.trim() ? kept : undefined;
  }

  async rememberRemote(remote: string): Promise<void> {
    await this.values.update(REMOTE_KEY, remote);
  }

  /** The last push, pull or sync of this kind, if one was recorded (and what is kept is well formed). */
  last(kind: ShareEvent['kind']): ShareEvent | undefined {
    const kept = this.values.get<Partial<ShareEvent>>(EVENT_KEY[kind]);
    if (!kept || typeof kept.at !== 'number' || typeof kept.remote !== 'string' || typeof kept.sessions !== 'number') return undefined;
    const sent = typeof kept.sent === 'number' ? { sent: kept.sent } : {};
    return { kind, at: kept.at, remote: kept.remote, sessions: kept.sessions, ...sent };
  }

  /** The newest of the last push, pull and sync. */
  latest(): ShareEvent | undefined {
    const events = [this.last('push'), this.last('pull'), this.last('sync')].filter((e) => e !== undefined);
    return events.reduce<ShareEvent | undefined>((newest, e) => (!newest || e.at > newest.at ? e : newest), undefined);
  }

  async record(event: ShareEvent): Promise<void> {
    const sent = event.sent === undefined ? {} : { sent: event.sent };
    await this.values.update(EVENT_KEY[event.kind], { at: event.at, remote: event.remote, sessions: event.sessions, ...sent });
    this.events.emit('change');
  }

  onDidChange(listener: () => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  /** The Sessions view's description: "pushed 2 min ago" (the newest of the three); none before the first. */
  description(now = Date.now()): string | undefined {
    const event = this.latest();
    return event && `${DONE[event.kind]} ${timeAgo(event.at, now)}`;
  }

  /** The status bar's tooltip lines: the last push, pull and sync, each with its remote and local time. */
  tooltipLines(): string[] {
    const push = this.last('push');
    const pull = this.last('pull');
    const sync = this.last('sync');
    const when = (e: ShareEvent) => new Date(e.at).toLocaleString();
    return [
      ...(push ? [`Last push: ${counted(push.sessions, 'session')} to ${push.remote} (${when(push)})`] : []),
      ...(pull ? [`Last pull: ${counted(pull.sessions, 'session')} new or updated from ${pull.remote} (${when(pull)})`] : []),
      ...(sync ? [`Last sync with ${sync.remote}: ${counted(sync.sessions, 'session')} in, ${sync.sent ?? 0} out (${when(sync)})`] : []),
    ];
  }
}
