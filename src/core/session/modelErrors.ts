import { excerpt, firstLine, LINE_LOOK, textStart } from '../format/textStart';

/** How much of an error is shown: a provider may echo a whole request in it. */
const ERROR_SHOWN = 500;

/** A model error as the user reads it: what happened, in one line. */
export function describeModelError(message: string | undefined): string {
  if (!message) return 'The model request failed.';
  const start = textStart(message, LINE_LOOK);
  if (/^terminated$|ECONNRESET|socket hang up|other side closed/i.test(start))
    return `The connection to the model broke mid-answer (${excerpt(message, ERROR_SHOWN)}).`;
  if (/ECONNREFUSED|ENOTFOUND|fetch failed/i.test(start)) return `Braid could not reach the model server (${excerpt(message, ERROR_SHOWN)}).`;
  return textStart(firstLine(message), ERROR_SHOWN);
}
