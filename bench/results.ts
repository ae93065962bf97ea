// The text of bench/RESULTS.md above its per-turn section: the machine and the conditions, where
// Braid is not ahead, and the table.
import { farAboveFloorList, markdownTables, notAheadList, type Row } from './table';

export interface RunFacts {
  readonly rows: readonly Row[];
  /** A line under each group's heading. */
  readonly notes: Readonly<Record<string, string>>;
  readonly quick: boolean;
  readonly scales: readonly number[];
  readonly workspaces: number;
  readonly commit: string;
  readonly date: string;
  /** CPUs, memory, Node. */
  readonly machine: string;
  /** The 1-minute load average at the start and at the end. */
  readonly load: readonly [number, number];
  readonly seconds: number;
}

const HOW = `How to read it:
- **warm**: in a process that has already started sql.js and opened the workspace's index (as the
  extension is once its window is open, or a long-running CLI), with every file in the page cache
  (the stores were just generated, and the rebuild read them all). Reads from a cold disk are not
  measured (dropping the page cache needs root and would disturb the machine's other users).
- **fresh process**: a new \`node\` process timed from spawn to exit, as a user's command is: Node's
  start, loading the (production) bundles, starting sql.js and opening the index are all in it.
  \`node -e 0\` is its floor. The activation row is timed by the process itself from before it
  loads dist/extension.js to the first page read (a window's Node is already running).
- **peak memory**: the peak resident memory (VmHWM) of the measuring process during that measure
  (reset before each one), or of the fresh process over its life.
- Every time is a median (50 runs for queries in a process, 5 for fresh processes and turns, 3 for
  the peers; a rebuild and the peers that read every workspace run once).
- Peers, run on the same folders in the same run (bench/peers/): **(a1)** Claude Code: every log
  of the workspace's folder read whole, then sorted; **(a2)** Kimi: each log of the folder read to
  the end of its first turn, plus a stat for its time; **(a3)** Codex: the logs newest first by
  name (creation time), the first 10 lines of each, stopping after 100 files (its page is in
  creation order, so it is not the 50 most recently used: the bracket says how many of them it
  has); **(s)** a search without an index: every log read, the prompts checked for every word;
  **(b)** a whole-JSON history rewritten per message with a global list of every session
  (\`api_conversation_history.json\` and a task-history list), each write fsynced here so both
  sides are durable; **(c)** a session opened by parsing its whole log.
- Floors: the least work a job takes (reading the index file; reading every state.json and log
  head; an atomic fsynced write of a row's bytes; an in-process copy of a fork's bytes with
  fsync; reading a rewind's dropped tail; JSON.parse of every line).
- The index file is used in place (SQLite's pages and journal; docs/architecture.md, The index
  across processes): opening it reads its header and schema, a page reads its rows, an update
  writes the pages of one row and commits (three fsyncs: the journal, the file, the journal's
  truncation). An operation's index write (a turn's, a fork's, a rewind's) comes after it, as a
  window makes it 100 ms later, and is timed apart.`;

/** Standing explanations of rows where Braid is not ahead, kept beside the run's own list. */
const KNOWN = `Why, where it is known (profiles of the code measured):
- A new process pays for Node's start, loading Braid's bundles (dist/cli-commands.js, 850 KB
  minified, parsed whole though \`list\` and \`search\` run a part of it; \`braid exec\` also loads
  its provider family's file), sql.js's start and its first queries on V8's baseline compiler
  before it reads any session; \`braid list\` then checks every session folder of the workspace
  against the index (a stat of its state.json and of its log) and prints every row. A peer that
  reads one folder's heads pays only for those reads; (a3) reads 100 files of any age.
- \`braid exec\` also asks an OpenAI-compatible server for its limits, creates the session (its
  first log line and state.json fsynced) and fsyncs turn_begin before the request goes out; the
  limits, the store's opening and the providers' loading overlap, but run on one thread.
- A question about every workspace opens each workspace's index and asks it in turn (50 here),
  under each one's lock: a search of two words found in most sessions ranks each workspace's
  2,000 matches before the page is picked.
- An index rebuild reads every log whole to fold it into its row (by line heads: tool results
  unparsed), about two thirds of it at 10k sessions, and writes every row with its full search
  text (FTS4) and fold, most of the rest; the floor reads each log only to the end of its first
  turn and writes nothing. Meeting 2x would take a per-session fold checkpoint beside the log (so
  a rebuild reads state, checkpoint and the log past it) and the search text indexed after the
  rows: not built.
- A fork copies the kept bytes and folds them on the way (it parses the prompts, answers and
  usage records of the prefix) and reads the source's summary from the index (its fold, with one
  id per model call); a rewind reads the dropped bytes from the end and folds them, writes its
  journal and appends, with fsyncs. A full replay keeps every record it parses, and the garbage
  collector's copying of them is most of what it costs beyond JSON.parse, which keeps none.`;

export function resultsText(run: RunFacts): string {
  const sizes = run.scales.map((n) => (n >= 1000 ? `${n / 1000}k` : String(n))).join(', ');
  const head = [
    '# Benchmark results',
    '',
    `${run.quick ? 'Quick run (`npm run bench -- --quick`)' : 'Full run (`npm run bench`)'}, ${run.date}, commit ${run.commit}: ${run.machine}; load average ${run.load[0].toFixed(1)} at the start and ${run.load[1].toFixed(1)} at the end (the machine's cores are shared, so figures are noisy); ${(run.seconds / 60).toFixed(1)} minutes.`,
    '',
    `Stores: ${sizes} generated sessions over ${run.workspaces} workspaces, each of 20 realistic turns (about 90 KB: a prompt of 200 to 350 characters, a file read and a test run with their outputs, an answer, a usage record per model call), last used in an order other than their creation's. The workspace measured is one of them (${run.scales.map((n) => Math.round(n / run.workspaces)).join(', ')} sessions). Logs: 1k, 10k and 100k records with tool outputs of 2 to 14 KB.`,
    '',
    HOW,
    '',
    '## Where Braid is not ahead',
    '',
    notAheadList(run.rows),
    '',
    KNOWN,
    '',
    'Rows at more than 10 times their floor (no goal is set for them):',
    '',
    farAboveFloorList(run.rows),
    '',
    '## Figures',
    '',
    markdownTables(run.rows, run.notes),
    '',
  ];
  return head.join('\n');
}
