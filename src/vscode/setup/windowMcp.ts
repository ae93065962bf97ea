import { McpHub } from '../../core/setup/mcp/hub';
import { mcpServerEntries } from '../../core/setup/mcp/definitions';
import { definitionHash } from '../../core/setup/projectApprovals';
import type { Logger } from '../../core/logger';
import { Disposable } from '../disposable';
import type { SetupWatcher } from './setupWatcher';

declare const BRAID_VERSION: string | undefined;

/**
 * The window's MCP servers: one hub, so one process per server per window, closed with the
 * window. When what would run changes (a definition, the workspace's trust), the next turn finds
 * a new hub and the old one's servers are ended; an approval given in a terminal counts at once.
 */
export class WindowMcp extends Disposable {
  private hub: McpHub | undefined;
  private key = '';

  constructor(
    private readonly setup: SetupWatcher,
    private readonly logger: Logger,
  ) {
    super();
  }

  /** The hub for the setup as it is now (made, or made again, here). */
  current(): McpHub {
    const sources = this.setup.current();
    const entries = mcpServerEntries(sources);
    // Approvals are asked of the approvals file each time a server would start; trust and definitions are the hub's own.
    const key = definitionHash({ trusted: sources.trusted, entries });
    if (!this.hub || key !== this.key) {
      void this.hub?.close().catch((err: unknown) => this.logger.warn(`MCP servers did not all close: ${String(err)}`));
      this.hub = new McpHub({ sources, env: process.env, logger: this.logger, version: typeof BRAID_VERSION === 'string' ? BRAID_VERSION : 'dev' });
      this.key = key;
    }
    return this.hub;
  }

  override dispose(): void {
    super.dispose();
    void this.hub?.close().catch(() => undefined);
    this.hub = undefined;
  }
}
