import { workspaceKey } from '../../core/workspace/workspaceKey';
import { expectPositionals, parseArgs } from '../args';
import { holdsStore } from '../dataDir';
import { chooseDataDir, countSessions, sourceName, storeCandidates, type DataDirChoice, type StoreCandidate } from '../dataDirChoice';
import { ListedError } from '../listedError';
import { jsonText, oneLine } from '../terminalText';
import { counted } from '../../core/counted';

/** What `where` needs: how the data folder is asked for, the workspace, and where to print. */
export interface WhereInput {
  readonly option: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly workspace: string;
  out(text: string): void;
}

/**
 * `where [--json]`: the data folder and how it was chosen, whether it holds a store, the other
 * folder the CLI looks in, and the workspace with its key. Reads only. Exit 1 when two folders
 * hold sessions and none was picked (both are listed).
 */
export function where(argv: readonly string[], input: WhereInput): number {
  const args = parseArgs(argv, { flags: ['json'] });
  expectPositionals(args, []);
  let choice: DataDirChoice | undefined;
  try {
    choice = chooseDataDir(input.option, input.env, input.cwd);
  } catch (err) {
    if (!(err instanceof ListedError)) throw err;
  }
  const others = storeCandidates(input.env, input.cwd, { limit: Infinity }).filter((c) => c.dir !== choice?.dir);
  const key = workspaceKey(input.workspace);
  const store = choice && holdsStore(choice.dir);
  const facts = {
    dataDir: choice?.dir ?? null,
    source: choice?.source ?? null,
    storeExists: Boolean(store),
    sessions: choice ? countSessions(choice.dir) : 0,
    trashed: choice ? countSessions(choice.dir, { in: 'trash' }) : 0,
    workspace: input.workspace,
    workspaceKey: key,
    sessionsHere: choice ? countSessions(choice.dir, { in: 'sessions', only: key }) : 0,
    others,
  };
  if (args.options.has('json')) input.out(`${jsonText(facts, 2)}\n`);
  else input.out(`${describe(facts, choice).map(oneLine).join('\n')}\n`);
  return choice ? 0 : 1;
}

function describe(
  f: {
    dataDir: string | null;
    storeExists: boolean;
    sessions: number;
    trashed: number;
    workspace: string;
    workspaceKey: string;
    sessionsHere: number;
    others: StoreCandidate[];
  },
  choice: DataDirChoice | undefined,
): string[] {
  const lines = choice
    ? [
        `data folder    ${choice.dir}`,
        `chosen by      ${chosenBy(choice)}`,
        `store          ${f.storeExists ? `${counted(f.sessions, 'session')}${f.trashed ? `, ${f.trashed} in the trash` : ''}` : 'none yet: nothing is created until a session is (braid exec, or Braid in VS Code)'}`,
      ]
    : ['data folder    none chosen: two folders hold Braid sessions; pick one with --data-dir DIR or BRAID_HOME=DIR'];
  lines.push(`workspace      ${f.workspace}`, `workspace key  ${f.workspaceKey}`);
  if (choice) lines.push(`sessions here  ${f.sessionsHere}`);
  for (const c of f.others)
    lines.push(
      `${choice ? 'other folder  ' : 'candidate     '} ${sourceName(c.source)}: ${c.dir} (${c.exists ? counted(c.sessions, 'session') : 'no Braid data'})`,
    );
  return lines;
}

function chosenBy(choice: DataDirChoice): string {
  if (choice.source === 'vscode') return `${sourceName('vscode')} (the default: no --data-dir, no BRAID_HOME)`;
  if (choice.source === 'start-profile') return `${sourceName('start-profile')} (VS Code's folder for Braid holds no sessions)`;
  return sourceName(choice.source);
}
