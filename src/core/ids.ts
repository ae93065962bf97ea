import { monotonicFactory } from 'ulid';
import { sha256Hex } from './hash';

const nextUlid = monotonicFactory();

/** A new session id: `ses_` + ULID (sortable by creation time). */
export function newSessionId(now = Date.now()): string {
  return `ses_${nextUlid(now)}`;
}

/** A new message id: `msg_` + monotonic ULID (strictly increasing within a process). */
export function newMessageId(now = Date.now()): string {
  return `msg_${nextUlid(now)}`;
}

/** A new subagent id: `agent_` + ULID (lower-case, it names a folder). */
export function newAgentId(now = Date.now()): string {
  return `agent_${nextUlid(now).toLowerCase()}`;
}

/**
 * The id of a user message, derived from the session and the client's message key, so a
 * webview that resends after a reload cannot duplicate a prompt.
 */
export function userMessageId(sessionId: string, messageKey: string): string {
  return `msg-user-v1-${sha256Hex(`${sessionId}:${messageKey}`)}`;
}

const SESSION_ID = /^ses_[0-9A-HJKMNP-TV-Z]{26}$/;

/** True for a well-formed session id (also guards paths built from ids). */
export function isSessionId(value: string): boolean {
  return SESSION_ID.test(value);
}
