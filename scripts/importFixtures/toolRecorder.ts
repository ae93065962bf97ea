// What each tool's recorder provides to the fixture run (scripts/importFixtures/run.ts).
import type { RecordedRequest, ScriptedReply } from '../../test/support/modelServer';
import type { SqlJsStatic } from '../../src/core/index/sqlite';
import type { ToolVocabulary } from './conversation';
import type { InstalledTool } from './install';
import type { Recording } from './recording';

/** What a recorder works with: the installed tool, its folders and the scripted server's address. */
export interface RecordContext {
  readonly tool: InstalledTool;
  readonly recording: Recording;
  /** `http://127.0.0.1:<port>` (no path). */
  readonly serverUrl: string;
  /**
   * Sees every model request before the script answers it; a reply it returns answers instead
   * (opencode copies its live database then; Claude Code's interrupted prompt gets a stall).
   */
  intercept?: (request: RecordedRequest) => ScriptedReply | undefined;
}

/** One coding agent: how to install it, talk to it, run it headless and keep what it wrote. */
export interface ToolRecorder {
  /** The fixture folder's name: test/fixtures/import/real/<name>. */
  readonly name: string;
  readonly pkg: string;
  readonly bin: string;
  /** Prefix of the scripted call ids (Anthropic's API names its calls `toolu_...`). */
  readonly idPrefix: string;
  /** Files the workspace holds for this tool besides the common ones (its instructions file, commands). */
  readonly workspaceFiles: Record<string, string>;
  vocabulary(workspace: string): ToolVocabulary;
  /** Configures the tool and runs both prompts (the second continuing the first's session). */
  record(context: RecordContext): Promise<void>;
  /** Copies what the tool wrote into `out` (its layout below its data root) and makes it fit to commit. */
  collect(context: RecordContext, out: string, SQL: SqlJsStatic): void;
}
