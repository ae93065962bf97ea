import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import type { McpHub } from '../../core/setup/mcp/hub';
import { mcpPromptToSend } from '../../core/setup/mcp/mcpMentions';
import { listMcpPrompts, type McpPromptInfo } from '../../core/setup/mcp/promptsAndResources';
import type { CustomCommandItem } from '../../protocol/messages';

/**
 * The window's MCP servers' prompts for the chat's `/` menu. Listing starts the servers, so it
 * waits until the menu is first opened (never at the chat's first paint); after that a change of
 * the setup lists them again. The hub starts only servers that may run (a user's, a trusted and
 * approved project's).
 */
export class McpPromptMenu {
  /** The last listing, and the hub it was made of (a change of the setup makes another hub). */
  private listed: { hub: McpHub; items: readonly CustomCommandItem[] } | undefined;
  private listing: { hub: McpHub; done: Promise<readonly CustomCommandItem[]> } | undefined;

  constructor(
    private readonly hub: () => McpHub,
    private readonly logger: Logger,
  ) {}

  /** Whether the menu was opened in this window: then a change of the setup lists the prompts again. */
  get wanted(): boolean {
    return this.listing !== undefined;
  }

  /** The prompts listed for the setup as it is now; none before the menu was first opened. */
  known(): readonly CustomCommandItem[] {
    return this.listed && this.listed.hub === this.hub() ? this.listed.items : [];
  }

  /** Lists the prompts of the current setup's servers (once per setup; a failed server lists none). */
  list(): Promise<readonly CustomCommandItem[]> {
    const hub = this.hub();
    if (this.listing?.hub === hub) return this.listing.done;
    const done = listMcpPrompts(hub).then(
      (prompts) => {
        const origins = new Map(hub.statuses().map((s) => [s.name, s.origin === 'project' ? ('project' as const) : ('user' as const)]));
        const items = prompts.map((p) => menuItem(p, origins.get(p.server) ?? 'user'));
        this.listed = { hub, items };
        return items;
      },
      (err: unknown) => {
        this.logger.warn(`MCP prompts could not be listed: ${errorMessage(err)}`);
        return [];
      },
    );
    this.listing = { hub, done };
    return done;
  }

  /** The text `/mcp__<server>__<prompt> args` sends; throws a sentence for the user when it cannot be had. */
  async expand(typed: string): Promise<string> {
    const sent = await mcpPromptToSend(this.hub(), typed);
    if (sent === undefined) {
      const name = typed.trim().split(/\s/)[0];
      throw new Error(`${name} is not a prompt of a running MCP server (Braid: Show Setup says which servers run)`);
    }
    return sent;
  }
}

/** A prompt as a line of the `/` menu: its arguments' names as the hint, optional ones in brackets. */
function menuItem(prompt: McpPromptInfo, origin: 'user' | 'project'): CustomCommandItem {
  const hint = prompt.arguments.map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ');
  return {
    name: prompt.command,
    description: prompt.description || `Prompt ${prompt.name} of the MCP server ${prompt.server}`,
    origin,
    server: prompt.server,
    ...(hint ? { argumentHint: hint } : {}),
  };
}
