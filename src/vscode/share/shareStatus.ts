import type * as vscode from 'vscode';
import { timeAgoChangesAt } from '../../core/timeAgo';
import { TimeRedraw } from '../sessionsTree/timeRedraw';
import type { ShareMemory } from './shareMemory';

/**
 * The Sessions view's description says the workspace's last push, pull or sync ("pushed 2 min
 * ago"), kept true as time passes while the view shows, and again when one is recorded.
 */
export function showShareStatus(view: vscode.TreeView<unknown>, memory: ShareMemory): vscode.Disposable {
  const times = new TimeRedraw(
    () => show(),
    () => view.visible,
  );
  const show = () => {
    view.description = memory.description();
    const latest = memory.latest();
    if (latest) times.expect(timeAgoChangesAt(latest.at));
  };
  show();
  const stopListening = memory.onDidChange(() => {
    times.cancel(); // the newer event's time comes first
    show();
  });
  const visibility = view.onDidChangeVisibility((e) => e.visible && times.shown());
  return { dispose: () => (stopListening(), visibility.dispose(), times.cancel()) };
}
