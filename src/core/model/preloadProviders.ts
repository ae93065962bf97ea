/**
 * Loads the model providers' code now, ahead of a first request that is known to come (a
 * `braid exec`), so that loading it overlaps other work instead of delaying the request. In the
 * shipped bundles the providers are a file of their own (dist/providers.js, loaded on a first
 * request: scripts/lazyBundles.mjs), and this module is replaced by one that loads it; where the
 * providers are bundled inline (the tests), they are loaded already and there is nothing to do.
 */
export function preloadProviders(): void {
  // inline providers: loaded with the bundle
}
