// What the demo agent says when no tool is needed: answers about Braid itself, what the demo can
// show, a long answer to watch streaming, side questions and compaction summaries.
import { DEMO_FOOTER, plural } from './demoAnswers';
import { DEMO_EXAMPLES } from './demoExamples';

/** Questions about Braid the demo answers, by keyword. */
const FAQ: Array<[RegExp, string]> = [
  [
    /\bfork/i,
    "A **fork** copies a session so you can try another direction without losing this one: **Fork** on a prompt (hover it) keeps the conversation up to that turn; `/fork` or the Sessions tree's context menu copies it whole. Forks nest under their source in the Sessions tree.",
  ],
  [
    /\b(rewind|undo|take (it )?back)/i,
    'A **rewind** takes the conversation back to before one of your prompts: hover the prompt and choose **Rewind** (or `/rewind`). **Rewind and Restore Files** also puts back every file the dropped turns changed. The log keeps everything, so **Undo** on the notice brings the turns and files back.',
  ],
  [
    /\b(approv|allow|deny|permission)/i,
    'Every file write and every command asks first: a card in the chat shows the diff or the command with **Allow**, **Allow for this session** and **Deny**. `braid.approval.writes` and `braid.approval.shell` in your user settings can allow them without asking.',
  ],
  [
    /\b(model|provider|api key|ollama|openai|anthropic|real)\b/i,
    'To talk to a real model, set `BRAID_PROVIDER`, `BRAID_MODEL` (and `BRAID_BASE_URL` for an OpenAI-compatible server such as Ollama, or `BRAID_API_KEY`) before `npm start`; in a desktop VS Code use the `braid.*` settings and **Braid: Set API Key**, or a model VS Code offers.',
  ],
  [
    /\b(session|history|resume|durable|crash)/i,
    'Every conversation is a **session**, kept in an append-only log: it survives a reload, a crash or a second window, and the Sessions tree lists them all. `braid list` and `braid show` read the same sessions from a terminal.',
  ],
  [
    /\b(cli|terminal|command line|braid exec)\b/i,
    'The `braid` command works on the same sessions: `braid exec "…"` runs a turn headless, `braid list`, `braid search`, `braid fork`, `braid rewind --files` and `braid undo-rewind` do from a terminal what the Chat view does.',
  ],
  [
    /\b(compact|context window|summar)/i,
    "When a session outgrows the model's context window, Braid **compacts** it: the model gets a summary of the older part, and the log keeps every original message. `/compact` does it now.",
  ],
  [
    /\b(btw|side question)\b/i,
    '`/btw <question>` asks a **side question**: it is answered in an overlay from the conversation so far and never enters the session, unless you keep it as a fork.',
  ],
];

const SHOW = [
  "Here is what I can show you in this workspace, with Braid's real tools and approvals:",
  '',
  '- **Explain the README** (or any file by name): I read it and explain it.',
  '- **Create hello.txt**: I ask before writing; then try **Rewind** with files, and **Undo**.',
  '- **Add a line to hello.txt** or **Change "Hello" to "Hi" in hello.txt**: an edit with its diff.',
  '- **Run `ls -la`**, or **Run the tests**: a command, after you allow it.',
  '- **Delete hello.txt**: a command too; a rewind with files brings the file back.',
  '- **Use a subagent to survey this folder**: a subagent with its own context and log.',
  '- **Give me a long answer**: streaming you can stop.',
].join('\n');

/** The answer to a prompt the demo has no tool plan for. */
export function chatAnswer(userText: string): string {
  const quoted = userText.replace(/\s+/g, ' ').trim().slice(0, 160);
  if (/^(hi|hello|hey|good (morning|afternoon|evening))\b[\s!.,]*$/i.test(userText.trim())) {
    return `Hello! I'm Braid's demo agent: a script that drives Braid's real tools, not a language model.\n\n${SHOW}`;
  }
  if (/\b(help|what can (you|i) (do|try)|what do you do|who are you)\b/i.test(userText))
    return `I'm Braid's demo agent: a script that drives Braid's real tools, not a language model.\n\n${SHOW}`;
  const faq = FAQ.find(([pattern]) => pattern.test(userText));
  if (faq) return `${faq[1]}\n\n${DEMO_FOOTER}`;
  return `You asked: “${quoted}”. I'm Braid's demo agent, a script rather than a language model, so I can't answer that for real; set a real model to get answers (ask me "how do I use a real model?").\n\n${SHOW}`;
}

/** A side question (/btw): answered without tools, from the conversation so far. */
export function sideAnswer(question: string, earlierPrompts: readonly string[]): string {
  const last = earlierPrompts.at(-1);
  const context = last
    ? `This session has ${plural(earlierPrompts.length, 'prompt')} so far; the last was “${last.slice(0, 120)}”.`
    : 'This session has no prompts yet.';
  return `A side answer from the demo: ${context} A real model would answer “${question.slice(0, 120)}” from that conversation, and nothing of this enters the session unless you keep it as a fork.`;
}

/** A next-prompt suggestion: the first of the demo's example prompts not asked yet, or NONE once all were. */
export function nextPrompt(earlierPrompts: readonly string[]): string {
  const asked = new Set(earlierPrompts.map((p) => p.trim().toLowerCase()));
  return DEMO_EXAMPLES.find((e) => !asked.has(e.toLowerCase())) ?? 'NONE';
}

/** A compaction's summary: the prompts the summarized part held. */
export function compactionSummary(transcript: string): string {
  const prompts = transcript
    .split('\n\n')
    .filter((block) => block.startsWith('user: '))
    .map((block) => block.slice(6).split('\n').at(-1)!.trim());
  return `Summary written by Braid's demo agent. The user asked, in order:\n${prompts.map((p, i) => `${i + 1}. ${p.slice(0, 200)}`).join('\n') || '(nothing yet)'}`;
}

/** A long answer, to watch streaming (and to try Stop). */
export function longAnswer(): string {
  const parts = [
    '# A tour of Braid',
    "This is a long answer from Braid's demo agent, streamed a few words at a time so you can watch it arrive, scroll while it does, or press **Stop**.",
    '## Sessions',
    "Every conversation is a session kept in an append-only log (JSON lines). Each message, each tool call and its result, each file change and each model call's usage is a record. A crash in the middle of a write costs at most the line being written; everything before it reads back.",
    'The Sessions tree lists the sessions of this workspace, newest first, with forks under their source and subagents under the session that started them. Another window, or the `braid` CLI, sees the same sessions.',
    '## Tools and approvals',
    'The agent reads, lists and searches files freely inside the workspace folders. Writing a file or running a command asks first, with the diff or the command in a card. A write that could make programs run later (a git hook, a VS Code task) asks like a command.',
    '| Tool | What it does | Asks first |\n| --- | --- | --- |\n| read_file, list_dir, glob, grep | read and search | no |\n| write_file, edit_file | change files | yes |\n| bash | run a command | yes |\n| task | a subagent with read-only tools | no |',
    '## Rewind and fork',
    'Before a tool changes a file, Braid keeps the file as it was. A rewind to before a prompt drops the turns after it from the conversation and, if you ask, restores the files those turns changed. The dropped records stay in the log, so a rewind can be undone as long as the session has not gone on.',
    'A fork copies a session, whole or up to a turn, into a new session you can take elsewhere. Forks of forks work too; usage is counted once, under the session that made each call.',
    '## The queue and steering',
    'A prompt sent while a turn runs waits in a queue, shown as a chip. **Steer** puts it into the running turn instead; **Cancel** drops it. A queue that was waiting when the window closed comes back paused.',
    '## From a terminal',
    '```sh\nbraid list --all\nbraid exec "What does this project do?"\nbraid rewind <session> --to <message> --files --preview\nbraid undo-rewind <session>\n```',
    'That is the end of the tour. Try **Create hello.txt** next, then rewind it.',
    DEMO_FOOTER,
  ];
  return parts.join('\n\n');
}
