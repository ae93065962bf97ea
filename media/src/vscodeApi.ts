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

/** Subscribes to messages from the host. The host is trusted, but the shape is still checked loosely. */
export function onHostMessage(handler: (message: HostToWebview) => void): void {
  window.addEventListener('message', (event: MessageEvent) => {
    const data = event.data as unknown;
    if (typeof data === 'object' && data !== null && typeof (data as { type?: unknown }).type === 'string') {
      handler(data as HostToWebview);
    }
  });
}
