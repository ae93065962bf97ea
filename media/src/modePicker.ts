import { DEFAULT_MODE, isTurnMode, modeLabel, TURN_MODES, type TurnMode } from '../../src/protocol/modes';

/**
 * The composer's mode picker (Ask, Plan, Agent, Auto-accept edits): a native select, so the
 * keyboard and screen readers know it. The choice applies to the prompts sent from now on.
 */
export class ModePicker {
  constructor(
    private readonly select: HTMLSelectElement,
    private readonly onChange: (mode: TurnMode) => void,
  ) {
    for (const mode of TURN_MODES) {
      const option = document.createElement('option');
      option.value = mode.id;
      option.textContent = mode.label;
      option.title = mode.description;
      select.append(option);
    }
    select.value = DEFAULT_MODE;
    select.addEventListener('change', () => this.changed());
    this.changed(false);
  }

  get value(): TurnMode {
    return isTurnMode(this.select.value) ? this.select.value : DEFAULT_MODE;
  }

  set value(mode: TurnMode) {
    this.select.value = mode;
    this.changed(false);
  }

  private changed(tell = true): void {
    const mode = this.value;
    this.select.title = `Mode: ${modeLabel(mode)}. ${TURN_MODES.find((m) => m.id === mode)!.description}`;
    this.select.dataset.mode = mode;
    if (tell) this.onChange(mode);
  }
}
