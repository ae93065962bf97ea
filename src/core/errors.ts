/**
 * The message of whatever was thrown, for a log line or a notice: an Error's message (also one
 * from another realm, or an error-like object with a string `message`), anything else as text.
 * Never throws, since it runs inside catch handlers.
 */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string') return (err as { message: string }).message;
  try {
    return String(err);
  } catch {
    return 'an error that cannot be shown as text'; // an object without a prototype, or a throwing toString
  }
}
