// Injected into the cjs bundles: ESM-only dependencies read import.meta.url, which esbuild
// leaves empty when it writes cjs. The bundle's own file URL is the honest value.
export const import_meta_url = require('url').pathToFileURL(__filename).href;
