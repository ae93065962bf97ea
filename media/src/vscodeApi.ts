import { dispatch, type MessageHandlers } from '../../src/protocol/handlers';
import type { HostToWebview, WebviewToHost } from '../../src/protocol/messages';

/** UI-only state kept by VS Code across hide/show (never the transcript: that comes from the host). */
export interface UiState {
  readonly draft: string;
  /** The row at the top of the view when the user had scrolled up; absent when at the end. */
  readonly scrollKey?: string;
  /** The composer's mode (checked when read: the state is the page's own, but old pages wrote none). */
  readonly mode?: string;
  /** Which Changes list the page shows: 'turn' or 'session'. */
  readonly changesScope?: string;
  /** The id of the last turn reveal this page brought on screen: a page shown again does not scroll back to it. */
  readonly revealed?: string;
}

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): UiState | undefined;
  setState(state: UiState): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** The page's one handle on the host. */
export const host: VsCodeApi = acquireVsCodeApi();

/** Updates part of the UI state. */
export function saveState(change: Partial<UiState>): void {
  host.setState({ draft: '', ...host.getState(), ...change });
}

/**
 * Hands each message from the host to its handler. The host is trusted, but the shape is still
 * checked loosely: a message that is not an object with a type the page has a handler for is ignored.
 */
export function onHostMessage(handlers: MessageHandlers<HostToWebview>): void {
  window.addEventListener('message', (event: MessageEvent) => {
    const data = event.data as unknown;
    const type = typeof data === 'object' && data !== null ? (data as { type?: unknown }).type : undefined;
    if (typeof type === 'string' && Object.hasOwn(handlers, type)) dispatch(handlers, data as HostToWebview);
  });
}
