// The ids of Braid's commands that views outside src/vscode/commands run, so a view names a
// command without importing the command itself (src/vscode/commands is wiring: nothing below it
// imports it; eslint.config.mjs).

/** Braid: Approve Project Setup… (src/vscode/commands/approveProjectSetup.ts). */
export const APPROVE_PROJECT_SETUP_COMMAND = 'braid.approveProjectSetup';

/** Braid: Open Session… (src/vscode/commands/sessionCommands.ts); `{ id, turn }` opens a session at a turn. */
export const OPEN_SESSION_COMMAND = 'braid.openSession';
