// The braid command as its own process: the CLI's entry point, bundled the way the product bundles
// it. The bundled CLI finds sql.js's wasm beside itself; test/support/children.ts puts it there.
import '../../../src/cli/main';
