// The steps the demo agent takes, one request at a time: call a tool (saying why first), or answer.
import { describeFolder, folderEntries } from './demoAnswers';
import type { DoneCall } from './demoRequest';

/** The next thing to do: call tools (saying why first), or answer. */
export type Step = { readonly say: string; readonly calls: ReadonlyArray<{ name: string; args: Record<string, unknown> }> } | { readonly answer: string };

/** A step that calls one tool. */
export const call = (say: string, name: string, args: Record<string, unknown>): Step => ({ say, calls: [{ name, args }] });

/** The latest call of this tool in the turn, if one was made. */
export const doneWith = (done: readonly DoneCall[], name: string) => done.filter((c) => c.name === name).at(-1);

/** The file the request is about: named in the prompt, or found by listing the top folder (a README). */
export function resolveTarget(intent: { path?: string; hint?: string }, done: readonly DoneCall[]): { path: string } | Step {
  if (intent.path) return { path: intent.path };
  const listing = doneWith(done, 'list_dir');
  if (!listing) return call(`I'll look for the ${intent.hint} in the workspace first.`, 'list_dir', { path: '.' });
  const entries = folderEntries(listing.result ?? '');
  const found = entries.find((e) => !e.endsWith('/') && e.toLowerCase().replace(/\.[a-z0-9]+$/, '') === intent.hint?.toLowerCase());
  if (found) return { path: found };
  return { answer: `There is no ${intent.hint} in the workspace's top folder. ${describeFolder(listing.result ?? '')}` };
}
