import os from 'node:os';
import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import { SafeGit } from '../../core/git/safeGit';
import { shareRemote, type ShareRemote } from '../../core/share/remote';
import { keptRemote, type ShareMemory } from './shareMemory';
import { remoteInputMessage } from './shareText';

const GIT_TIMEOUT_MS = 10_000;

/** The remote the user named, and the form of it the next input box starts with. */
export interface NamedRemote {
  readonly remote: ShareRemote;
  readonly kept: string;
}

/**
 * Asks for the remote of a push or a pull: an input box that starts with the remote last named in
 * this workspace (empty the first time: there is no default remote), each value checked as
 * `braid push --remote` checks it, the reason shown under the box. Undefined when cancelled.
 */
export async function askRemote(memory: ShareMemory, workspaceDir: string, title: string): Promise<NamedRemote | undefined> {
  const resolve = remoteResolver(workspaceDir);
  const typed = await vscode.window.showInputBox({
    title,
    prompt: 'A git remote: a URL, a path, or the name of a remote of this repository. Braid keeps its sessions under refs/braid/ there.',
    placeHolder: 'git@host:me/braid-sessions.git, /srv/git/sessions.git or origin',
    value: memory.remote ?? '',
    ignoreFocusOut: true,
    validateInput: async (value) => {
      if (!value.trim()) return undefined;
      try {
        await resolve(value);
        return undefined;
      } catch (err) {
        return remoteInputMessage(errorMessage(err));
      }
    },
  });
  if (!typed?.trim()) return undefined;
  return resolve(typed);
}

/**
 * The remote a value names, as shareRemote resolves it (`~/` read as the home folder); a git
 * remote's name is looked up in the workspace's repository with the hardened git, its names
 * listed once and each URL asked once, so typing a name does not start a git per keystroke.
 */
function remoteResolver(workspaceDir: string): (value: string) => Promise<NamedRemote> {
  let names: Promise<{ git: SafeGit | undefined; names: Set<string> }> | undefined;
  const urls = new Map<string, Promise<string | undefined>>();
  const listNames = async () => {
    const git = await SafeGit.open(workspaceDir, GIT_TIMEOUT_MS);
    const out = await git?.output(['remote']);
    return { git, names: new Set((out ?? '').split('\n').filter(Boolean)) };
  };
  const urlOf = async (name: string): Promise<string | undefined> => {
    const known = await (names ??= listNames());
    if (!known.names.has(name)) return undefined;
    if (!urls.has(name))
      urls.set(
        name,
        known.git!.output(['remote', 'get-url', '--', name]).then((url) => url?.trim() || undefined),
      );
    return urls.get(name);
  };
  return async (value) => {
    const spec = value.trim().replace(/^~(?=\/|$)/, os.homedir());
    let byName = false;
    const remote = await shareRemote(spec, workspaceDir, (name) => {
      byName = true;
      return urlOf(name);
    });
    return { remote, kept: keptRemote(spec, remote, byName) };
  };
}
