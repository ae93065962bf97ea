import type { ModelInfo } from '../../src/protocol/messages';
import { DEMO_EXAMPLES } from '../../src/demo/demoExamples';

/** Prompts that any real model answers well in a fresh workspace. */
const GENERAL_EXAMPLES = [
  'Explain what this project does and how it is laid out',
  'Find where errors are handled and suggest one improvement',
  'Add a short usage section to the README',
];

/** The three prompts the welcome offers: the demo's own requests when the demo model answers. */
export function welcomeExamples(model: ModelInfo | undefined): string[] {
  return model?.demo ? DEMO_EXAMPLES.slice(0, 3) : GENERAL_EXAMPLES;
}

/** The welcome's line about the model that answers. */
export function welcomeModelLine(model: ModelInfo | undefined): string {
  if (!model) return '';
  if (model.demo) return "Model: Braid's demo agent, a script that drives the real tools; it is not a language model.";
  if (!model.id) return 'No model is configured yet: pick one with the model button above (/model).';
  return `Model: ${model.provider} · ${model.id}`;
}
