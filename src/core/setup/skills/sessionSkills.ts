import type { AgentTool } from '@mariozechner/pi-agent-core';
import type { Message } from '@mariozechner/pi-ai';
import type { SetupPlaces } from './places';
import { ScopedInstructionGate } from './scopedInstructions';
import { skillTool } from './skillTool';
import { discoverSkills, skillsPrompt } from './skills';

/** The user's folders a session's skills and commands are read from, besides the workspace's. */
export interface UserSetupDirs {
  /** Braid's user configuration folder (`$XDG_CONFIG_HOME/braid`). */
  readonly userConfigDir: string;
  /** The home folder (Claude Code's `~/.claude`). */
  readonly home: string;
}

/**
 * A session's skills and scoped instructions: the system prompt's list of skills (read again at
 * each turn, the same bytes while the skills are the same), the `skill` tool, and the file tools
 * that give `.github/instructions` when a file they apply to is touched.
 */
export class SessionSkills {
  private readonly instructions: ScopedInstructionGate;

  constructor(
    private readonly workspaceDir: string,
    private readonly trusted: () => boolean,
    private readonly dirs: UserSetupDirs,
    context: () => readonly Message[],
  ) {
    this.instructions = new ScopedInstructionGate(workspaceDir, context);
  }

  /** Where to look now (trust may have been granted since the last turn). */
  places(): SetupPlaces {
    return { workspaceDir: this.workspaceDir, trusted: this.trusted(), ...this.dirs };
  }

  /** The system prompt: `base`, then the skills' list when there are skills. */
  systemPrompt(base: string): string {
    const list = skillsPrompt(discoverSkills(this.places()).items);
    return list ? `${base}\n\n${list}` : base;
  }

  /** The tools with the `skill` tool added and the file tools giving scoped instructions (order is the caller's). */
  tools(tools: readonly AgentTool[]): AgentTool[] {
    return this.instructions.wrap([...tools, skillTool(() => this.places())]);
  }

  /**
   * A subagent's tools: the `skill` tool added, and the file tools giving scoped instructions by
   * what the subagent's own conversation (`context`) holds.
   */
  subagentTools(tools: readonly AgentTool[], context: () => readonly Message[]): AgentTool[] {
    return new ScopedInstructionGate(this.workspaceDir, context).wrap([...tools, skillTool(() => this.places())]);
  }

  /** Call at each turn's start. */
  turnStarted(): void {
    this.instructions.turnStarted();
  }
}
