/**
 * Loads the code of the providers that serve a model's `api` now, ahead of a first request that is
 * known to come (a `braid exec`), so that loading it overlaps other work instead of delaying the
 * request. In the shipped bundles the providers are files of their own, one per family
 * (dist/providers-<family>.js, loaded on a first request: scripts/lazyBundles.mjs), and this
 * module is replaced by one that loads the family's file; where the providers are bundled inline
 * (the tests), they are loaded already and there is nothing to do.
 */
export function preloadProviders(api: string): void {
  void api; // inline providers: loaded with the bundle
}
