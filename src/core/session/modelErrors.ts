/** A model error as the user reads it: what happened, in one line. */
export function describeModelError(message: string | undefined): string {
  if (!message) return 'The model request failed.';
  if (/^terminated$|ECONNRESET|socket hang up|other side closed/i.test(message)) return `The connection to the model broke mid-answer (${message}).`;
  if (/ECONNREFUSED|ENOTFOUND|fetch failed/i.test(message)) return `Braid could not reach the model server (${message}).`;
  return message.split('\n')[0]!.slice(0, 500);
}
