/**
 * The CLI's help: `braid help` lists every command; `braid help <command>`, `braid <command>
 * --help` and `-h` print one command's usage, what it does and its options.
 */

/** One command's help. */
interface CommandHelp {
  /** Its arguments and options, after `braid <name>`. */
  readonly usage: string;
  /** One line for the general help. */
  readonly summary: string;
  /** What it does, and its options, for its own help. */
  readonly details: string;
}

const ID_NOTE = '<id> may be its short form as braid list shows it (its end: 7QZK3M) or any unique beginning of it, with or without ses_ (ses_01M8QS, 01M8QS).';

const SECTIONS: ReadonlyArray<readonly [string, Readonly<Record<string, CommandHelp>>]> = [
  [
    'Agent',
    {
      exec: {
        usage: '[--continue | --session <id> | --resume[=<query>]] [--yes] [--mode <mode>] [--until-done [--max-turns N] [--max-tokens N]] <prompt>',
        summary: 'run one turn headless; the answer streams to stdout',
        details: `Runs one prompt as a turn without a window. The answer streams to stdout (each tool call as one
line); notes, and how to continue, go to stderr. Exit 0 only when the turn completed and is saved;
Ctrl-C and SIGTERM cancel it (exit 130, 143). The session's tools act in the session's own folder.

  --continue        continue the latest session of this workspace
  --session <id>    continue that session
  --resume[=<query>]
                    pick the session to continue: in a terminal, a picker of this workspace's
                    sessions (newest first; the query, typed on, filters as braid search does;
                    arrows move, Enter picks, Esc or Ctrl-C cancels and sends nothing). Without
                    a terminal the query must match exactly one session; several are listed
                    (exit 2) for --session to name. The query is given only as --resume=<query>:
                    the words after --resume are the prompt (--resume fix it: prompt "fix it")
  --yes             allow file writes and commands (denied otherwise)
  --mode <mode>     ask (read only), plan (read only, proposes a plan), agent (the default),
                    auto-edit (writes without asking; commands follow --yes)
  --until-done      the prompt is a goal: automatic turns follow until the model writes a line
                    GOAL DONE, a turn fails, or the budget is spent (exit 3); stderr says which
  --max-turns N     with --until-done: at most N turns (10)
  --max-tokens N    with --until-done: no further turn once its calls used N tokens (0: no limit)

Hooks and permission rules apply (braid hooks, braid permissions): a deny rule blocks a call even
with --yes; an ask rule is answered by --yes.

The model comes from BRAID_PROVIDER, BRAID_MODEL, BRAID_BASE_URL (see braid help model).
${ID_NOTE}

A prompt "/name args" runs a custom command (braid skills lists them): its file's text is sent,
with $ARGUMENTS and $1..$9 filled in; an unknown /name is a usage error. "//x" sends "/x".
The workspace's MCP servers are started for the turn and stopped when exec ends (braid help mcp);
a prompt "/mcp__<server>__<prompt> args" sends that server's prompt.`,
      },
      memory: {
        usage: '<id> [--update | --set <file>|-] [--json]',
        summary: "a session's memory: the durable facts the model is given after a compaction; update or set it",
        details: `Prints the session memory, one fact a line ("- kind: text"; kinds decision, constraint, file,
preference, note). The model writes it at each compaction; the model is given it after the
summary, and a fork carries it.

  --update       ask the model for it again, over the conversation (the model as for exec:
                 BRAID_PROVIDER, BRAID_MODEL, BRAID_BASE_URL); prints what it wrote
  --set <file>   write the facts of <file> (- for stdin) as yours; prints them. Lines starting
                 with # are left out; text that is not a memory changes nothing (exit 1)
  --json         as JSON: {by, turn, ts, facts} or null

A failed update leaves the memory as it was (exit 1). A session open in VS Code cannot be
written here: close it there first.
${ID_NOTE}`,
      },
      skills: {
        usage: '[--json]',
        summary: 'the skills, custom slash commands and file instructions a session here has, with their origin',
        details: `Lists the skills (SKILL.md folders) and custom slash commands (.claude/commands, .github/prompts)
of this workspace and of the user (Braid's folder and ~/.claude), each with its origin and file,
the ones a same-named one hides, the .github/instructions files with their applyTo globs, and the
files that could not be used and why. Reads only; runs nothing.

  --json   as JSON: {skills, commands, instructions, problems}`,
      },
      mcp: {
        usage: '(list [--json] | trust <name>)',
        summary: "the MCP servers of this workspace and the user's settings; approve a project's server",
        details: `list: each MCP server with where it is defined (your Braid settings file, or the project's
.mcp.json / .vscode/mcp.json), for a project's server whether you approved its definition, and its
state (running with its tools, failed: why, unapproved, invalid). Starts the servers that may run
to list their tools (10 s each at most) and stops them after.

trust <name>: approves the current definition of a project's server for this workspace and prints
what was approved (command, arguments, the names of its variables; or its address and header
names). A change to any of those asks again. Your own servers need no approval.

  --json   list as JSON`,
      },
    },
  ],
  [
    'Sessions',
    {
      list: {
        usage: '[--all] [--archived] [--branch NAME] [--json]',
        summary: 'sessions of this workspace (or all), newest first',
        details: `Lists the sessions of this workspace, newest first; a session's git branch (its last turn's)
follows its title in parentheses.

  --all          every workspace's sessions, with their folders
  --archived     archived sessions instead of live ones
  --branch NAME  only sessions a turn of which ran on git branch NAME (the exact name)
  --json         as JSON (id, title, status, workspaceDir, turnCount, branch, …)`,
      },
      search: {
        usage: '<words> [--file P] [--model M] [--branch NAME] [--since D] [--until D] [--all] [--archived] [--json]',
        summary: 'sessions whose turns said <words>, with the matching turns',
        details: `Finds sessions whose title and turns (prompts, answers, thinking, tool calls and their output)
say every word of <words> (each word matches as the start of a word), newest first. Each
session is followed by its matching turns (those saying any of the words), a snippet around the
first match of each. A turn is searched once it ended.

  --file P       only sessions a turn of which changed P (a path in the workspace, or its end:
                 x.ts finds app/x.ts); without <words>, the turns that changed it
  --model M      only sessions whose model's id contains M
  --branch NAME  only sessions a turn of which ran on git branch NAME (the exact name)
  --since D      only sessions active since D: a date (2026-12-01), an ISO time, or 3d, 12h, 2w ago
  --until D      only sessions begun before D (a date takes in that whole day)
  --all          search every workspace
  --archived     search archived sessions
  --json         as JSON, like list, each session with "turns": its matching turns' number (0:
                 the title), snippet, match (where the word lies in the snippet) and start and end
                 (the turn's bytes in the session's main log)`,
      },
      blame: {
        usage: '<file>[:<line>[-<line>]] [--json]',
        summary: 'the turn that wrote each line of a file, its prompt, model and commit',
        details: `Prints the file's lines (or those asked for), each with the Braid turn that wrote it: the
session's short id, #turn, and the commit that holds it (its short id) or "uncommitted". A line
no turn wrote, or that someone changed since (by hand or with another tool), has none. Then each
turn named: when it wrote, its model and its prompt. Lines are followed through every later
write (Braid's, and the edits between them) to the file as it is now. Sessions of this workspace
are read, and of any folder above the file that has sessions.

  --json         as JSON: file, lines [{line, text, author: {sessionId, shortId, turn, prompt,
                 model, at, commit: {id, at, subject} | null} | null}]`,
      },
      show: {
        usage: '<id> [--json]',
        summary: "a session's record and conversation, turns numbered",
        details: `Prints a session's record and its conversation. Each prompt comes under its turn's number and
its id, shortened where unique: fork --turn, rewind --turn and rewind --to take them. Then the
subagents (task tool runs), each by the id fork --agent takes.

  --json   the state and every message as JSON, with full ids
${ID_NOTE}`,
      },
      rename: { usage: '<id> <title>', summary: 'rename a session', details: `Gives a session a new title.\n${ID_NOTE}` },
      archive: {
        usage: '<id>',
        summary: 'archive a session (braid list --archived shows it)',
        details: `Archives a session: it leaves the list and stays whole; restore brings it back.\n${ID_NOTE}`,
      },
      restore: { usage: '<id>', summary: 'bring a session back from the archive', details: `Brings an archived session back to the list.\n${ID_NOTE}` },
      delete: {
        usage: '<id>',
        summary: 'move a session to the trash (kept 7 days)',
        details: `Moves a session to the trash, where it is kept 7 days; undelete brings it back.\n${ID_NOTE}`,
      },
      undelete: {
        usage: '<id>',
        summary: 'bring a session back from the trash',
        details: `Brings a deleted session back from the trash.\n<id> may be shortened to any unique beginning or end among the sessions in the trash.`,
      },
      export: {
        usage: '<id> [--format md|jsonl]',
        summary: 'print a session as Markdown or as its raw log',
        details: `Prints a session.

  --format md      readable Markdown (the default)
  --format jsonl   the main log's bytes as they are
${ID_NOTE}`,
      },
      fork: {
        usage: '<id> [--turn N | --agent ID] [--title T] [--worktree [--branch NAME] [--worktree-root DIR] [--carry-changes]] [--json]',
        summary: 'copy a session (up to turn N), in a git worktree of its own with --worktree; prints the new id',
        details: `Copies a session into a new one and prints the new session's id. A turn still running is left out.

  --turn N              keep turns 1 to N (braid show numbers them); the whole session without it
  --agent ID            a session of its own holding that subagent's conversation (braid show
                        lists the subagents' ids)
  --title T             the new session's title
  --worktree            the fork's tools act in a new git worktree (a new branch from HEAD), in a
                        folder <repository>.worktrees/<branch> beside the repository
  --branch NAME         the worktree's new branch (default braid/<the source's title>, numbered when taken)
  --worktree-root DIR   put the worktree in DIR instead (also BRAID_WORKTREE_ROOT)
  --carry-changes       carry the checkout's uncommitted changes into the worktree (without it,
                        stderr names the changes the worktree lacks)
  --json                the new session as JSON
${ID_NOTE}`,
      },
      finish: {
        usage: '<id> (--merge | --cherry-pick | --discard) [--delete-branch] [--json]',
        summary: "bring a worktree fork's branch back into the checkout, then remove the worktree",
        details: `Finishes a session forked into a worktree: merges its branch into the checkout's current branch
(or cherry-picks its commits, or brings nothing back), then removes the worktree. Refused while the
worktree has uncommitted changes; a merge that conflicts is aborted and changes nothing.

  --merge           merge the branch (a fast-forward when it can)
  --cherry-pick     cherry-pick the branch's commits since the fork
  --discard         bring nothing back
  --delete-branch   delete the branch too
${ID_NOTE}`,
      },
      relink: {
        usage: '--from OLD [--to NEW] [--json]',
        summary: 'move the sessions of a moved or renamed folder to where it is now',
        details: `Re-links the sessions recorded under the folder OLD, which was moved or renamed, to the folder NEW
(default: the workspace): each session folder moves under NEW's workspace in one rename, with a
relinked record in its log, and the index follows. Refused while OLD still exists as another folder.

  --from OLD   the path the sessions were recorded under (braid list --all shows it)
  --to NEW     the folder they belong to now (default: the workspace)`,
      },
      'recreate-worktree': {
        usage: '<id>',
        summary: "make a worktree fork's folder again from its branch (after it was deleted by hand)",
        details: `Re-creates the worktree of a session forked into one, from its branch, where it was.\n${ID_NOTE}`,
      },
      rewind: {
        usage: '<id> (--to <prompt id> | --turn N) [--files] [--confirm-outside] [--preview] [--json]',
        summary: 'drop a prompt and what followed; --files restores files',
        details: `Drops a prompt and everything after it from the conversation (the log keeps them; undo-rewind
brings them back).

  --turn N            the prompt that began turn N: turns 1 to N-1 stay (braid show numbers them)
  --to <prompt id>    that prompt (braid show prints each id; a unique beginning is enough)
  --files             also restore the files those turns changed
  --confirm-outside   restore files changed outside Braid since, too
  --preview           say what it would do, change nothing
  --json              as JSON
${ID_NOTE}`,
      },
      'undo-rewind': {
        usage: '<id>',
        summary: 'undo the last rewind',
        details: `Undoes a session's last rewind: its turns come back, and the files it restored are put back.\n${ID_NOTE}`,
      },
      usage: {
        usage: '[--by session|model|day|agent] [--breaks] [--all] [--include-shared] [--json]',
        summary: 'calls, tokens and cost, each model call counted once; prompt cache breaks',
        details: `Calls, tokens and cost of this workspace's sessions, each model call counted once (forks and
undos copy calls, they do not make them). Sessions pulled from git remotes are left out.

  --by session|model|day   one table (all three without it)
  --by agent               per session, the main agent's calls and each subagent's (by the id
                           fork --agent takes), with their cache-hit share (the 50 sessions
                           updated last)
  --breaks                 the prompt cache breaks instead: per session its cache-hit ratio, then
                           each call that read far less from the cache than the one before, its
                           likely cause and what it cost (the 50 sessions updated last)
  --all                    every workspace
  --include-shared         count sessions pulled from git remotes too (another person's calls;
                           left out by default, and the output says how many)
  --json                   as JSON`,
      },
    },
  ],
  [
    'Sharing through git',
    {
      push: {
        usage: '[<id>…|--all] --remote <url|path|git remote> [--dry-run] [--author NAME] [--json]',
        summary: 'send sessions to refs/braid/ of a git remote you name, redacted',
        details: `Sends the sessions named (or --all of this workspace's own) to refs/braid/<machine>/<id> of the
git remote named: a URL, a path, or a remote of this repository. Never automatic, and no default
remote. Before anything leaves the machine, known API keys, token patterns and high-entropy
strings in tool output are replaced, and absolute paths made relative to the workspace (see
docs/reference.md, "What leaves the machine"). A session is sent up to its last ended turn; a
push after one more turn sends that turn. File contents Braid kept for rewinds are not sent.

  --dry-run      fetch what the remote holds, then list what would be sent and each redaction;
                 send nothing
  --author NAME  the author pulled copies show (default: your user name)
  --json         as JSON`,
      },
      pull: {
        usage: '--remote <url|path|git remote> [--json]',
        summary: "bring other machines' sessions of this project in, read-only",
        details: `Brings the sessions other machines pushed to the remote, of this project (the same first
commit, or the same folder name outside git), into this workspace: listed as shared, with
author and machine, read-only, forkable. Pulling again appends only what is new. Refs, sizes and
ids are checked first; what is refused is named, and the exit code is 1.

  --json         as JSON`,
      },
      sync: {
        usage: '--remote <url|path|git remote> [--dry-run] [--json]',
        summary: "your machines' sessions of this project, both ways, through a remote of yours",
        details: `For a remote only your own machines use. First brings in what your other machines pushed of
this project: new sessions, and turns added to sessions this machine has, which stay writable
here. Then pushes this workspace's sessions, redacted as push does (sessions another machine
made go back to its refs). A session continued on two machines since they last synced becomes a
fork on the machine that syncs second: the session takes the other machine's turns, and a fork
named "<title> (on <this machine>)" holds this machine's. Nothing is merged or lost. A session
open in a window (its writer lease held) is left for the next sync; exit 1 when one is.

  --dry-run      say what would come in and what would be sent; change and send nothing
  --author NAME  the author new sessions are pushed under (default: your user name)
  --json         as JSON`,
      },
    },
  ],
  [
    'Maintenance',
    {
      import: {
        usage: '[--from claude-code|codex|pi|opencode|auto] [PATH...] [--dry-run] [--json]',
        summary: "import other agents' sessions (Claude Code, Codex, pi, opencode)",
        details: `Imports sessions Claude Code, Codex, pi and opencode wrote, each into the workspace it was
recorded in, where it can be continued, forked, rewound (the conversation) and searched. Without
a PATH, reads each tool's default folder (CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR and
XDG_DATA_HOME move them). Running it again skips sessions imported unchanged and appends what a
source added since. The source files are only read. Exit 1 when a file could not be imported.

  --from TOOL   one tool's sessions (default: auto, every tool)
  --dry-run     say what would be imported; write nothing
  --json        the outcome of each source session as JSON`,
      },
      'rebuild-index': {
        usage: '',
        summary: 'rebuild index.sqlite from the session folders',
        details: 'Rebuilds the index (index.sqlite, a cache) from the session folders.',
      },
      doctor: {
        usage: '[--fix] [--json]',
        summary: 'verify every log, state file and the index; --fix repairs',
        details: `Verifies every session's logs and state file, and the index. Exit 1 while something is wrong.

  --fix    repair what can be repaired without losing data
  --json   the report as JSON`,
      },
      storage: {
        usage: '[--json]',
        summary: "the data folder's bytes by workspace, by session and by kind",
        details: `Prints how much the data folder holds: in all, by workspace and by session (largest first),
each split into logs, blobs (checkpoints of files and the prompts' images) and trash. A blob that
forks share (hard links) counts once in the totals. Reads only.

  --json   as JSON`,
      },
      gc: {
        usage: '[--dry-run] [--yes] [--older-than DAYS] [--json]',
        summary: 'list what could be removed (old checkpoints, orphaned blobs, expired trash); --yes removes it',
        details: `Lists, with their sizes, what can be removed: the checkpoints (file images kept for rewinds) of
sessions untouched for DAYS days, blobs no record of their session names, and what has been in the
trash 7 days or more. Without --yes it removes nothing and says how to. With --yes it removes them
and says what it removed; each session gets a gc record in its log, and a session another process
writes now is skipped. A rewind that needs a removed checkpoint leaves that file as it is
("checkpoint removed"). The prompts' images are never removed.

  --older-than DAYS   sessions untouched this many days (default 30)
  --dry-run           list only
  --yes               remove what is listed
  --json              as JSON: {plan, removed} (removed: null unless --yes)`,
      },
      where: {
        usage: '[--json]',
        summary: 'the data folder, how it was chosen, and the workspace',
        details: `Prints the data folder the CLI uses and how it was chosen (--data-dir, BRAID_HOME, VS Code's
folder for Braid, or npm start's), whether it holds sessions, the other folder it looks in, and
the workspace with its key. Creates nothing.

  --json   as JSON`,
      },
    },
  ],
  [
    'Other',
    {
      model: {
        usage: '[--json]',
        summary: 'the model BRAID_PROVIDER, BRAID_MODEL, BRAID_BASE_URL configure, with its limits',
        details: `Prints the model the environment configures: BRAID_PROVIDER (a pi-ai provider id, or
openai-compatible), BRAID_MODEL and, for openai-compatible, BRAID_BASE_URL; with its context
window and answer limit (BRAID_CONTEXT_WINDOW and BRAID_MAX_OUTPUT_TOKENS, else what the server
reports, else the catalogue's). The key comes from BRAID_API_KEY or the provider's usual variable.

  --json   as JSON`,
      },
      hooks: {
        usage: '[trust] [--json]',
        summary: "the hooks of your and this workspace's settings; trust approves the project's",
        details: `Prints every hook (Claude Code's format, the "hooks" key of settings files) with its event,
matcher, command, the file it is in and, for a project's, whether it is approved. Braid's user
settings file is $XDG_CONFIG_HOME/braid/settings.json; the project's are .claude/settings.json,
.claude/settings.local.json and .braid/settings.json. A project's hooks and allow rules apply only
once approved as they are now.

  trust    approve this workspace's project settings files (their hooks and permission rules),
           printing what is approved; a changed file asks again
  --json   as JSON`,
      },
      permissions: {
        usage: '[remove <rule> [--kind allow|ask|deny]] [--json]',
        summary: 'the permission rules (allow, ask, deny) with their origin',
        details: `Prints every permission rule (Claude Code's syntax: Bash(npm test:*), Read(./secrets/**),
Edit(src/**), mcp__server__tool) with its kind, the file it is in, and whether it applies (a
project's allow rules apply only once approved with braid hooks trust). Deny wins over ask, ask
over allow.

  remove <rule>   remove a rule from Braid's user settings file (--kind allow by default)
  --json          as JSON`,
      },
      setup: {
        usage: '[--status]',
        summary: "where this workspace's MCP servers, hooks, rules, skills and commands come from",
        details: `Lists this workspace's setup as a session reads it: the settings files (your
$XDG_CONFIG_HOME/braid/settings.json, by default ~/.config/braid/settings.json, then the project's
.mcp.json, .vscode/mcp.json, .claude/settings.json, .claude/settings.local.json and
.braid/settings.json), the MCP servers, hooks, permission rules, skills and commands, each with the
file it came from. A broken file is listed with its error; an item not used says why. A project's
servers and hooks need your approval (braid mcp trust <name>, braid hooks trust); each says whether
it has it. Reads only (docs/setup.md).

  --status        start the servers that may run, list their state and tools, then end them`,
      },
      version: { usage: '', summary: "Braid's version", details: "Prints Braid's version." },
      help: {
        usage: '[<command>]',
        summary: "this help, or one command's",
        details: "Prints the commands, or one command's usage and options (also: braid <command> --help).",
      },
    },
  ],
];

const COMMANDS = new Map(SECTIONS.flatMap(([, commands]) => Object.entries(commands)));

/** The options every command takes, as the usage lines show them. */
const GLOBAL_OPTIONS = '[--data-dir DIR] [--workspace DIR] [--verbose]';

const GLOBAL = `The data folder is --data-dir, else BRAID_HOME, else VS Code's folder for Braid, or npm start's
when only that one holds sessions (braid where says which). The workspace is --workspace, else
the current folder. --verbose prints the session log's info lines (and which data folder was
found) on stderr.`;

/** The commands help knows, in the order the general help lists them. */
export function helpTopics(): string[] {
  return [...COMMANDS.keys()];
}

/** `braid help`: every command, one line each. */
export function generalHelp(): string {
  const lines = [`Usage: braid ${GLOBAL_OPTIONS} <command> [options]`, ''];
  for (const [title, commands] of SECTIONS) {
    lines.push(`${title}:`);
    for (const [name, help] of Object.entries(commands)) {
      const synopsis = `  ${name}${help.usage ? ` ${help.usage}` : ''}`;
      lines.push(synopsis.length <= 38 ? `${synopsis.padEnd(39)}${help.summary}` : `${synopsis}\n${' '.repeat(39)}${help.summary}`);
    }
    lines.push('');
  }
  lines.push(GLOBAL, 'braid help <command> (or braid <command> --help) tells more about one.');
  return `${lines.join('\n')}\n`;
}

/** `braid help <command>`; undefined for a command there is none of. */
export function commandHelp(name: string): string | undefined {
  const help = COMMANDS.get(name);
  if (!help) return undefined;
  return `Usage: braid ${GLOBAL_OPTIONS} ${name}${help.usage ? ` ${help.usage}` : ''}\n\n${help.details}\n`;
}

/** True when a command's arguments ask for its help (`--help` or `-h` before any `--`). */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
