import path from 'node:path';
import { ProjectApprovals } from './projectApprovals';
import { readProjectMcpFiles, readProjectSettingsFiles, readUserSettingsFile, userConfigDir, type SettingsSource, type SetupSettings } from './settingsFiles';

/**
 * Every settings source of one workspace, the user's first: Braid's user settings file, then VS
 * Code's user settings (`braid.mcpServers`, `braid.hooks`, `braid.permissions`) when the host is VS
 * Code; then the project's files. The project's are read in an untrusted workspace too, so a list
 * can show them, but `trusted` is false there and nothing of theirs may run or allow.
 */
export interface SetupSources {
  readonly workspaceDir: string;
  /** VS Code's workspace trust; the CLI runs where its user chose to run it (true). */
  readonly trusted: boolean;
  readonly user: readonly SettingsSource[];
  readonly project: readonly SettingsSource[];
  /** The user's approvals of project definitions. */
  readonly approvals: ProjectApprovals;
  /** The user's configuration folder (`$XDG_CONFIG_HOME/braid`): user skills and commands live under it. */
  readonly userConfigDir: string;
}

export interface SourceOptions {
  readonly workspaceDir: string;
  readonly trusted: boolean;
  /** VS Code's user settings of the same shapes, when the host is VS Code. */
  readonly vscode?: SetupSettings;
  readonly env?: NodeJS.ProcessEnv;
}

/** Reads every source now (files are small and read again when the setup is reloaded). */
export function readSetupSources(options: SourceOptions): SetupSources {
  const env = options.env ?? process.env;
  const userFile = readUserSettingsFile(env);
  const user: SettingsSource[] = [
    ...(userFile ? [userFile] : []),
    ...(options.vscode ? [{ origin: 'vscode' as const, file: 'VS Code user settings', settings: options.vscode }] : []),
  ];
  const project = [...readProjectMcpFiles(options.workspaceDir), ...readProjectSettingsFiles(options.workspaceDir)];
  const configDir = userConfigDir(env);
  return {
    workspaceDir: options.workspaceDir,
    trusted: options.trusted,
    user,
    project,
    approvals: new ProjectApprovals(path.join(configDir, 'approvals.json')),
    userConfigDir: configDir,
  };
}
