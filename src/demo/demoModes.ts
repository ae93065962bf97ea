// The demo agent in Ask and Plan modes, as a good model behaves there: a request to change a file or
// run a command is never tried (the mode refuses it); the demo reads what the request is about,
// then answers from what it read (Ask) or writes the plan as numbered steps (Plan).
import { DEMO_FOOTER, defaultContent, describeFile, describeFolder, folderEntries, numberedLines, plural, testCommand } from './demoAnswers';
import type { Intent } from './demoIntents';
import type { DoneCall } from './demoRequest';
import { call, doneWith, resolveTarget, type Step } from './demoSteps';

/** A request that would change something: what Ask and Plan only look at. */
export type ChangingIntent = Extract<Intent, { kind: 'create' | 'edit' | 'run' }>;

/** The modes in which the demo only reads. */
export type LookingMode = 'ask' | 'plan';

/** Whether the request would change files or run a command. */
export function changes(intent: Intent): intent is ChangingIntent {
  return intent.kind === 'create' || intent.kind === 'edit' || intent.kind === 'run';
}

/** The next step of a changing request in Ask or Plan: a read, then the answer or the plan. */
export function lookingStep(intent: ChangingIntent, mode: LookingMode, done: readonly DoneCall[]): Step {
  switch (intent.kind) {
    case 'create':
      return lookBeforeCreate(intent, mode, done);
    case 'edit':
      return lookBeforeEdit(intent, mode, done);
    case 'run':
      return lookBeforeRun(intent, mode, done);
  }
}

const why = (mode: LookingMode) => (mode === 'plan' ? 'Plan mode changes nothing, so I' : 'Ask mode changes nothing, so I');

/** The answer in words (Ask), or the plan as numbered steps (Plan), each with what the mode did and how to go on. */
function finish(mode: LookingMode, facts: string, steps: readonly string[], instead: string): Step {
  if (mode === 'plan') {
    const plan = steps.map((s, i) => `${i + 1}. ${s}`).join('\n');
    return {
      answer: [
        facts,
        `Here is the plan:\n\n${plan}`,
        'Nothing changed: this turn ran in Plan mode. **Carry Out Plan** sends this plan in Agent mode, which asks before each change and command.',
        DEMO_FOOTER,
      ].join('\n\n'),
    };
  }
  return {
    answer: [
      facts,
      `${instead} This turn runs in Ask mode, which reads but changes nothing and runs no command: choose **Agent** in the mode picker and ask again, or **Plan** to see the steps first.`,
      DEMO_FOOTER,
    ].join('\n\n'),
  };
}

function lookBeforeCreate(intent: Extract<Intent, { kind: 'create' }>, mode: LookingMode, done: readonly DoneCall[]): Step {
  const folder = intent.path.includes('/') ? intent.path.replace(/\/[^/]*$/, '') : '.';
  const listing = doneWith(done, 'list_dir');
  if (!listing) return call(`${why(mode)}'ll only look whether \`${intent.path}\` exists.`, 'list_dir', { path: folder });
  const name = intent.path.split('/').pop()!;
  const exists = folderEntries(listing.result ?? '').includes(name);
  const content = (intent.content ?? defaultContent(intent.path).trim()).split('\n')[0]!;
  const facts = exists ? `\`${intent.path}\` exists already.` : `There is no \`${intent.path}\` yet.`;
  return finish(
    mode,
    facts,
    [
      `${exists ? 'Replace' : 'Create'} \`${intent.path}\` with “${content}”${exists ? ' (its present text is lost, except to a rewind)' : ''}.`,
      'Check the diff in the approval card, then allow the write.',
      'To take it back: **Rewind** on the prompt, then **Rewind and Restore Files**.',
    ],
    `I did not ${exists ? 'replace' : 'create'} it.`,
  );
}

/** Line numbers (from 1) of the lines holding this text. */
const linesWith = (lines: readonly string[], text: string) => lines.flatMap((l, i) => (l.includes(text) ? [i + 1] : []));

function lookBeforeEdit(intent: Extract<Intent, { kind: 'edit' }>, mode: LookingMode, done: readonly DoneCall[]): Step {
  const target = resolveTarget(intent, done);
  if (!('path' in target)) return target;
  const { path } = target;
  const read = doneWith(done, 'read_file');
  if (!read) return call(`${why(mode)}'ll read \`${path}\` to see what the edit involves.`, 'read_file', { path });
  const lines = numberedLines(read.result ?? '');
  if (!lines) return { answer: describeFile(path, read.result ?? '') };
  const size = `\`${path}\` has ${plural(lines.length, 'line')}.`;
  if (intent.replace) {
    const { from, to } = intent.replace;
    const found = linesWith(lines, from);
    if (found.length === 0) return { answer: `${size} It does not contain “${from}”, so there is nothing to change.\n\n${DEMO_FOOTER}` };
    return finish(
      mode,
      `${size} “${from}” appears on ${plural(found.length, 'line')}: ${found.join(', ')}.`,
      [
        `In \`${path}\`, change “${from}” to “${to}” on ${found.length === 1 ? `line ${found[0]}` : `lines ${found.join(', ')}`}.`,
        'Check the diff in the approval card, then allow the edit.',
      ],
      'I did not change it.',
    );
  }
  const added = intent.insert ?? "Edited by Braid's demo agent.";
  return finish(
    mode,
    `${size} It ends with “${(lines.filter((l) => l.trim()).at(-1) ?? '').trim().slice(0, 60)}”.`,
    [`Add the line “${added}” at the end of \`${path}\`.`, 'Check the diff in the approval card, then allow the edit.'],
    'I did not add it.',
  );
}

function lookBeforeRun(intent: Extract<Intent, { kind: 'run' }>, mode: LookingMode, done: readonly DoneCall[]): Step {
  const listing = doneWith(done, 'list_dir');
  if (!listing) return call(`${why(mode)}'ll read the workspace folder instead of running a command.`, 'list_dir', { path: '.' });
  const folder = describeFolder(listing.result ?? '');
  const command = intent.tests ? testCommand(folderEntries(listing.result ?? '')) : (intent.command ?? 'ls -la');
  if (!command) return { answer: `I found no test setup in the top folder. ${folder}\n\n${DEMO_FOOTER}` };
  return finish(
    mode,
    `From reading the folder: ${folder}`,
    [`Run \`${command}\` in the workspace folder (a command: it asks first).`, "Read its output in the command's card and its exit code."],
    `\`${command}\` did not run.`,
  );
}
