// Pages of a session's transcript for the Chat page, read from the end of its log, and the
// prompt history the input steps through. No vscode import (test/unit/layering.test.ts checks it).
import { promptText } from '../../core/format/messageText';
import type { SessionStore } from '../../core/store/sessionStore';
import { PAGE_SIZE } from '../../core/wire/newestPage';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import type { SessionInfo, TranscriptEntry } from '../../protocol/frames';
import type { OlderPageMessage, PageCursor, SessionView } from '../../protocol/messages';
import { toEntries, type ImageReader } from './transcript';
import { BlobStore } from '../../core/format/blobStore';
import { IMAGE_TYPES } from '../../core/format/attachment';
import { isPromptRecord } from '../../core/wire/records';

/** The largest image the transcript shows as a thumbnail (bytes); a bigger one shows its chip alone. */
const MAX_THUMBNAIL_BYTES = 4 * 1024 * 1024;

/** Reads the images of session `id` from its blobs, as `data:` URIs for the transcript's thumbnails. */
export function imageReader(store: SessionStore, id: string): ImageReader {
  const blobs = new BlobStore(store.layout.blobsDir(store.locate(id)));
  return (blob, mimeType) => {
    if (!IMAGE_TYPES.includes(mimeType)) return undefined;
    try {
      const data = blobs.get(blob);
      return data.length <= MAX_THUMBNAIL_BYTES ? `data:${mimeType};base64,${data.toString('base64')}` : undefined;
    } catch {
      return undefined; // a blob gone: the chip shows without its picture
    }
  };
}

const toWire = (c: { offset: number; minRewind: number } | undefined): PageCursor | undefined =>
  c ? { offset: c.offset, minRewind: Number.isFinite(c.minRewind) ? c.minRewind : null } : undefined;

/** The newest page of session `id` with its info: what a snapshot shows before its read-only and live parts. */
export function sessionPage(store: SessionStore, id: string, info: SessionInfo): Pick<SessionView, 'info' | 'entries' | 'before' | 'damagedLines'> {
  const page = store.newestPage(id, PAGE_SIZE);
  const before = toWire(page.before);
  return {
    info,
    entries: toEntries(page.messages, { ...page, imageOf: imageReader(store, id) }),
    ...(before ? { before } : {}),
    ...(page.skippedLines > 0 ? { damagedLines: page.skippedLines } : {}),
  };
}

/** The page of `limit` messages' entries of `sessionId` before `before` (loadOlder). */
export function olderPage(store: SessionStore, sessionId: string, before: PageCursor, limit: number): OlderPageMessage {
  const page = store.newestPage(sessionId, limit, { offset: before.offset, minRewind: before.minRewind ?? Number.POSITIVE_INFINITY });
  const next = toWire(page.before);
  return {
    type: 'olderPage',
    sessionId,
    entries: toEntries(page.messages, { ...page, newerExist: true, imageOf: imageReader(store, sessionId) }),
    ...(next ? { before: next } : {}),
  };
}

/**
 * Earlier prompts, newest first, at most 200 and each once: the current session's (from the
 * entries shown, or without them, as for the /history command, its newest page), then other
 * sessions' of the workspace of `workspaceDir`.
 */
export function promptHistory(
  store: SessionStore,
  currentId: string | undefined,
  workspaceDir: string | undefined,
  entries?: readonly TranscriptEntry[],
): string[] {
  const prompts = entries
    ? entries.flatMap((e) => (e.kind === 'user' ? [e.text] : []))
    : currentId
      ? store.newestPage(currentId, PAGE_SIZE).messages.flatMap((m) => (isPromptRecord(m) ? [promptText(m.message)] : []))
      : [];
  const mine = prompts.reverse();
  const others = workspaceDir
    ? store.index
        .list({ workspaceKey: workspaceKey(workspaceDir), limit: 50 })
        .filter((r) => r.id !== currentId)
        .map((r) => r.firstPrompt)
    : [];
  return [...new Set([...mine, ...others].map((t) => t.trim()).filter(Boolean))].slice(0, 200);
}
