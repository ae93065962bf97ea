/** A session the user asked for does not exist; the message says what to do. */
export class SessionNotFoundError extends Error {
  override readonly name = 'SessionNotFoundError';
}
