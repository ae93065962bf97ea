import path from 'node:path';
import { braidIn, cliWithScriptedModel } from './cli';
import { addTurn, openStore } from './store';

/**
 * What the tests of `braid exec --resume` share: a scripted model, a data folder, and three
 * sessions of the workspace written to the store (oldest first: "fix the parser bug", "write
 * the parser docs", "tune the cache"), made once when a test first asks for them (the model's
 * server starts in a `before` hook of its own).
 */
export function resumeFixture(prefix: string) {
  const { root, workspace, server, env } = cliWithScriptedModel(prefix);
  const store = path.join(root, 'store');
  const args = (...rest: string[]) => ['--data-dir', store, '--workspace', workspace, ...rest];
  /** Each session's first prompt (its title) and turn count, newest first. */
  const sessions = async (): Promise<Array<[string, number]>> => {
    const listed = JSON.parse((await braidIn(args('list', '--json'))).out) as Array<{ firstPrompt: string; turnCount: number }>;
    return listed.map((s) => [s.firstPrompt, s.turnCount]);
  };
  let made: Promise<void> | undefined;
  const threeSessions = () =>
    (made ??= (async () => {
      const opened = await openStore(store);
      try {
        for (const prompt of ['fix the parser bug', 'write the parser docs', 'tune the cache']) {
          const writer = await opened.openWriter((await opened.create({ workspaceDir: workspace })).id);
          await addTurn(writer, prompt, `Done: ${prompt}.`);
          await writer.close();
          await new Promise((resolve) => setTimeout(resolve, 5)); // each a later update time: the order is known
        }
      } finally {
        await opened.close();
      }
    })());
  return {
    server,
    env,
    args,
    sessions,
    threeSessions,
    /** The turn count of the session whose first prompt is `title`. */
    turnsOf: async (title: string) => (await sessions()).find(([t]) => t === title)?.[1],
  };
}
