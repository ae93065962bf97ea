// The shape of the realistic stores of the index-scale benchmark (bench/indexScale.ts): how many
// turns a session has, the tool calls of a turn, a tool output's size (the audit's figures of
// real coding sessions: 4 to 36 turns with a tail to 150, about two tool calls a turn, outputs of
// 1 KB at the median with a tail to 64 KB), prompts' and answers' sizes (turnOps/sessionShape.ts:
// read from the real pi sessions when they are beside the repository), the words of the text, and
// the rare words planted for searches.
import { drawn, sessionShape, type SessionShape } from '../turnOps/sessionShape';

/** Sessions' turns, and a turn's shape (turnOps/generateSession.ts writes it); measures as cut points drawn with `drawn`. */
export interface StoreShape {
  /** Turns of a session, as 21 cut points (every 5%). */
  readonly turns: readonly number[];
  /** Prompts' and answers' sizes as turnOps/sessionShape.ts gives them (`source` says whence); tool calls and outputs the audit's. */
  readonly turn: SessionShape;
}

/** The audit's figures as cut points: turns and tool calls every 5%; tool outputs below. */
const AUDIT = {
  turns: [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 19, 21, 24, 28, 33, 36, 150],
  toolCallsPerTurn: [0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 8],
  toolOutputChars: logNormalCuts(1024, 1, 80, 65_536),
};

/** `parts + 1` cut points of a log-normal size (its median, its sigma), the last one `max`. */
function logNormalCuts(median: number, sigma: number, parts: number, max: number): number[] {
  const cuts = Array.from({ length: parts }, (_, k) => Math.round(median * Math.exp(sigma * probit(Math.max(k, 0.5) / parts))));
  return [...cuts, max];
}

/** The standard normal quantile (Acklam's rational approximation, good to 1e-9). */
function probit(p: number): number {
  const a = [-39.6968302866538, 220.946098424521, -275.928510446969, 138.357751867269, -30.6647980661472, 2.50662827745924];
  const b = [-54.4760987982241, 161.585836858041, -155.698979859887, 66.8013118877197, -13.2806815528857];
  const c = [-0.00778489400243029, -0.322396458041136, -2.40076142461614, -2.54973253934373, 4.37466414146497, 2.93816398269878];
  const d = [0.00778469570904146, 0.32246712907004, 2.445134137143, 3.75440866190742];
  const tail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/** An answer's characters at most: the real figures count the model's tool arguments with its text. */
const ANSWER_CAP = 6000;

/** Turns of the long sessions, a few in each store. */
export const LONG_TURNS = 1000;

/** The store's shape; prompts' and answers' sizes from `../shared/real-sessions/pi` beside `repoRoot` when there. */
export function storeShape(repoRoot: string): StoreShape {
  const texts = sessionShape(repoRoot);
  return {
    turns: AUDIT.turns,
    turn: {
      ...texts,
      assistantChars: texts.assistantChars.map((n) => Math.min(n, ANSWER_CAP)),
      toolCallsPerTurn: AUDIT.toolCallsPerTurn,
      toolOutputChars: AUDIT.toolOutputChars,
    },
  };
}

export { drawn };

/**
 * Words of a coding conversation, the commonest first: text draws them with a skew toward the
 * front, so a search finds common words in most sessions and the later ones in fewer.
 */
const VOCABULARY = (
  "the to a and of is in it that this for we with on be not file test function error should can it's what if " +
  'change code add use run fix now from line type but return value need when let how then here all which ' +
  'make one check build import module config update call new path case see instead also these there been ' +
  'look after first so will would like only work just into more output string number because failing passes ' +
  'component state props render hook effect query request response server client route handler middleware ' +
  'database schema migration index table column row cache session token stream buffer parser lexer compile ' +
  'bundle webpack esbuild typescript interface generic union promise async await callback listener event ' +
  'dispose register command palette editor workspace folder extension terminal debugger breakpoint stack ' +
  'trace exception timeout retry backoff queue worker thread process signal exit status commit branch merge ' +
  'rebase diff patch review lint format prettier eslint coverage snapshot fixture mock stub assertion ' +
  'benchmark profile memory leak garbage allocation pointer reference closure scope variable constant enum ' +
  'struct trait impl crate cargo rustc borrow lifetime python django flask pandas numpy dataframe docker ' +
  'container kubernetes deployment ingress helm terraform aws bucket lambda gateway auth oauth jwt cookie ' +
  'header payload json yaml toml markdown regex glob encoding utf unicode locale timezone date duration ' +
  'scroll layout flexbox grid margin padding theme color font icon tooltip modal dialog button input ' +
  'checkbox dropdown accessibility keyboard focus selection clipboard drag resize viewport animation'
).split(' ');

/** About `chars` characters of words, skewed toward the commonest (`next` gives numbers in [0, 1)). */
export function wordsText(next: () => number, chars: number): string {
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    const u = next();
    const word = VOCABULARY[Math.floor(u * u * VOCABULARY.length)]!;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(' ');
}

/** A word planted in one prompt of 2% of sessions (none of the vocabulary's). */
export const PROMPT_WORD = 'quillwort';
/** A word planted in one tool output of another 2% of sessions (none of the vocabulary's). */
export const OUTPUT_WORD = 'bandicoot';

/**
 * Which word session `i` of `workspaces` has planted: of each workspace's sessions (its `j`th is
 * session `j * workspaces + w`), one in 50 carries the prompt word and another the output word,
 * both among its first 20, so every workspace of 20 sessions or more holds each.
 */
export function plantedIn(i: number, workspaces: number): 'prompt' | 'output' | undefined {
  const w = i % workspaces;
  const j = Math.floor(i / workspaces) % 50;
  if (j === w % 10) return 'prompt';
  if (j === 10 + (w % 10)) return 'output';
  return undefined;
}
