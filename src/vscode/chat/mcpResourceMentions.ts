// The MCP servers' resources in the `@` list. No vscode import (unit-tested with a real server).
import type { McpHub } from '../../core/setup/mcp/hub';
import { mentionText, parseMention } from '../../core/setup/mcp/mcpMentions';
import { listMcpResources, readMcpResource, type McpResourceInfo } from '../../core/setup/mcp/promptsAndResources';
import type { AttachmentRef, MentionItem } from '../../protocol/messages';
import { rankMatches } from './mentionRank';

/** How long a query waits for the servers' first listing; the files are shown without it after that. */
const FIRST_LISTING_WAIT_MS = 1500;

/**
 * The resources of the window's MCP servers, listed on the first `@` query (servers that may run
 * are started then, not before) and again after the setup changed (a new hub). A query never
 * waits long for servers that are slow to start: later queries show what they list.
 */
export class McpResourceMentions {
  private listed: { hub: McpHub; done: Promise<void>; items: readonly McpResourceInfo[] } | undefined;

  constructor(
    private readonly hub: () => McpHub,
    private readonly waitMs = FIRST_LISTING_WAIT_MS,
  ) {}

  /** The resources matching `query` (by `server:uri` and name), best first, at most `limit`. */
  async find(query: string, limit: number): Promise<MentionItem[]> {
    const listed = this.listing();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([listed.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.waitMs)))]);
    clearTimeout(timer);
    const items = listed.items.map((r): MentionItem => ({
      kind: 'mcpResource',
      label: r.name,
      uri: mentionText(r),
      detail: `MCP ${r.server} · ${r.uri}${r.description ? ` · ${r.description}` : ''}`,
    }));
    const q = query.trim();
    const byUri = rankMatches(q, items, (i) => i.uri!, limit);
    const byName = rankMatches(q, items, (i) => i.label, limit).filter((i) => !byUri.includes(i));
    return [...byUri, ...byName].slice(0, limit);
  }

  /** The text of the resource a chip names. */
  async read(ref: AttachmentRef): Promise<string> {
    const mention = ref.uri === undefined ? undefined : parseMention(ref.uri);
    if (!mention) throw new Error('the chip names no MCP resource');
    return readMcpResource(this.hub(), mention.server, mention.uri);
  }

  private listing(): NonNullable<McpResourceMentions['listed']> {
    const hub = this.hub();
    if (this.listed?.hub === hub) return this.listed;
    const listed: { hub: McpHub; done: Promise<void>; items: readonly McpResourceInfo[] } = { hub, done: Promise.resolve(), items: [] };
    listed.done = listMcpResources(hub).then(
      (items) => void (listed.items = items),
      () => undefined, // a server that cannot list gives none (listMcpResources says so per server)
    );
    this.listed = listed;
    return listed;
  }
}
