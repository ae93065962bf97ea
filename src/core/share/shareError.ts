/** A push, pull or sync refused or failed for a reason the user can act on (the message says it). */
export class ShareError extends Error {
  override readonly name = 'ShareError';
}
