import type { AttachmentChip, AttachmentKind } from '../../src/protocol/frames';

/** The codicon of each kind of attachment. */
const ICONS: Record<AttachmentKind, string> = {
  file: 'file',
  selection: 'selection',
  folder: 'folder',
  editor: 'file-code',
  problems: 'warning',
  gitDiff: 'git-compare',
  image: 'file-media',
  mcpResource: 'plug',
};

/** A chip for an attachment: its icon and label, the path in its tooltip. */
export function attachmentChip(chip: AttachmentChip): HTMLElement {
  const box = document.createElement('span');
  box.className = 'attachment';
  box.dataset.kind = chip.kind;
  const icon = document.createElement('span');
  icon.className = `codicon codicon-${ICONS[chip.kind]}`;
  icon.setAttribute('aria-hidden', 'true');
  const label = document.createElement('span');
  label.className = 'attachment-label';
  label.textContent = chip.label;
  if (chip.image) {
    const thumb = document.createElement('img');
    thumb.className = 'attachment-thumb';
    thumb.src = chip.image;
    thumb.alt = chip.label;
    box.append(thumb, label);
  } else box.append(icon, label);
  box.title = [chip.detail ?? chip.label, chip.truncated ? 'Cut to the size limit before it was sent' : ''].filter(Boolean).join('\n');
  if (chip.truncated) box.classList.add('truncated');
  return box;
}

/** The row of chips under a prompt. */
export function attachmentRow(chips: readonly AttachmentChip[]): HTMLElement {
  const row = document.createElement('div');
  row.className = 'attachments';
  row.setAttribute('aria-label', 'Attached');
  row.append(...chips.map(attachmentChip));
  return row;
}

/** The icon name for a kind (the `@` list uses it too). */
export function attachmentIcon(kind: AttachmentKind): string {
  return ICONS[kind];
}
