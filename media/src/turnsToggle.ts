import type { TurnsToggle } from './requests';

/**
 * The toggle under a request's first turn: "N more turns" (its retries, follow-ups and automatic
 * turns), shown or hidden on a click.
 */
export function turnsToggle(entry: TurnsToggle, toggle: (key: string, open: boolean) => void): HTMLElement {
  const row = document.createElement('div');
  row.className = 'request-turns';
  const turns = `${entry.more} more turn${entry.more === 1 ? '' : 's'}`;
  const b = document.createElement('button');
  b.type = 'button';
  b.setAttribute('aria-expanded', String(entry.open));
  b.title = entry.open ? `Hide the ${turns} of this request` : `Show the ${turns} of this request: its retries, follow-ups and automatic turns`;
  const icon = document.createElement('span');
  icon.className = `codicon codicon-${entry.open ? 'chevron-down' : 'chevron-right'}`;
  icon.setAttribute('aria-hidden', 'true');
  b.append(icon, document.createTextNode(turns));
  b.addEventListener('click', () => toggle(entry.key, entry.open));
  row.append(b);
  return row;
}
