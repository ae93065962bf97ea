import { OPENAI_COMPATIBLE, type ModelSettings } from '../../core/model/modelSettings';
import type { ModelChoiceItem } from '../../protocol/messages';

/** A model a provider offers, as the picker lists it. */
export interface OfferedModel {
  readonly provider: string;
  readonly id: string;
  readonly name: string;
  /** Who offers it (VS Code's models: the extension's vendor), or empty. */
  readonly vendor: string;
}

/** What the model picker lists from. Pure data, so the order is unit-tested. */
export interface ModelCatalogue {
  /** The model the next turn uses; undefined when none is configured. */
  readonly current: { readonly provider: string; readonly id: string } | undefined;
  /** Models VS Code offers (vscode.lm), listed as they are. */
  readonly vscodeModels: readonly OfferedModel[];
  /** The catalogue's providers, in its order (openai-compatible is added last). */
  readonly providers: readonly string[];
  /** True when the provider has an API key (or, for openai-compatible, a server address). */
  readonly configured: (provider: string) => boolean;
}

const sameModel = (a: { provider: string; id: string } | undefined, provider: string, id: string) => a?.provider === provider && a.id === id;

/** What a provider's line says besides its name. */
function providerDescription(provider: string, keyed: boolean, current: boolean): string {
  const what = provider === OPENAI_COMPATIBLE ? 'Ollama, vLLM, LM Studio or another server' : '';
  const state = provider === OPENAI_COMPATIBLE ? (keyed ? 'server address set' : '') : keyed ? 'API key set' : '';
  return [current ? 'current provider' : '', what, state, 'choose a model…'].filter(Boolean).join(' · ');
}

/**
 * The lines of the model picker, in order: the current model (marked), the models VS Code
 * offers, then providers with an API key configured (the current provider first), then the
 * rest. A provider's line leads to its models.
 */
export function modelChoices(catalogue: ModelCatalogue): ModelChoiceItem[] {
  const { current } = catalogue;
  const lines: ModelChoiceItem[] = [];
  if (current?.provider && current.id) {
    lines.push({
      kind: 'model',
      group: 'current',
      provider: current.provider,
      model: current.id,
      label: `${current.provider} · ${current.id}`,
      description: 'current',
    });
  }
  for (const m of catalogue.vscodeModels) {
    if (sameModel(current, m.provider, m.id)) continue;
    lines.push({
      kind: 'model',
      group: 'vscode',
      provider: m.provider,
      model: m.id,
      label: m.name || m.id,
      description: [m.vendor, m.id].filter(Boolean).join(' · '),
    });
  }
  const providers = [...catalogue.providers.filter((p) => p !== OPENAI_COMPATIBLE), OPENAI_COMPATIBLE];
  // The current provider leads its group, so another of its models is one step away.
  providers.sort((a, b) => Number(b === current?.provider) - Number(a === current?.provider));
  const keyed = providers.filter((p) => catalogue.configured(p));
  const others = providers.filter((p) => !catalogue.configured(p));
  for (const [group, list] of [
    ['keyed', keyed],
    ['other', others],
  ] as const) {
    for (const p of list)
      lines.push({ kind: 'provider', group, provider: p, label: p, description: providerDescription(p, group === 'keyed', p === current?.provider) });
  }
  return lines;
}

/** One of a provider's models in the second step of the picker. */
export interface ProviderModelLine {
  readonly id: string;
  readonly description: string;
  readonly current: boolean;
}

/** A provider's models for the second step: the current one first and marked, then the catalogue's order. */
export function providerModelLines(models: readonly { id: string; contextWindow: number }[], currentId: string | undefined): ProviderModelLine[] {
  const lines = models.map((m) => ({ id: m.id, description: `${Math.round(m.contextWindow / 1000)}k context`, current: m.id === currentId }));
  return [...lines.filter((l) => l.current), ...lines.filter((l) => !l.current)];
}

/** The settings a picked model means, and whether the server address had to go. */
export interface ModelSettingsChange {
  readonly provider: string;
  readonly model: string;
  readonly baseUrl: string;
  /** braid.baseUrl was the address of another provider and is cleared. */
  readonly clearedBaseUrl: boolean;
  /** Still the scripted demo server of `npm start` (the same provider at the same address). */
  readonly demo: boolean;
}

/**
 * The settings for a picked model. braid.baseUrl overrides where a catalogue provider's requests
 * (and its API key) go, so it is kept only for the provider it was set with: picking another
 * catalogue provider clears it. openai-compatible brings its own address; VS Code's models ignore
 * it. The demo mark of `npm start` describes the server it configured: a pick elsewhere drops it.
 */
export function settingsForPick(
  now: ModelSettings,
  pick: { provider: string; model: string; baseUrl?: string },
  isCatalogueProvider: (provider: string) => boolean,
): ModelSettingsChange {
  const clear = pick.provider !== OPENAI_COMPATIBLE && isCatalogueProvider(pick.provider) && pick.provider !== now.provider && now.baseUrl.trim() !== '';
  const baseUrl = pick.provider === OPENAI_COMPATIBLE ? (pick.baseUrl ?? now.baseUrl) : clear ? '' : now.baseUrl;
  const sameServer = pick.provider === now.provider && baseUrl === now.baseUrl;
  return { provider: pick.provider, model: pick.model, baseUrl, clearedBaseUrl: clear, demo: now.demo && sameServer };
}
