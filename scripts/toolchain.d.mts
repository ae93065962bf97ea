/** What {@link ensureToolchain} provides. */
export interface Toolchain {
  readonly node: string;
  readonly nodeDir: string;
  readonly codeServer: string;
  readonly chromium: string;
  readonly cache: string;
}
export declare const CODE_SERVER_VERSION: string;
export declare const NODE_VERSION: string;
export declare function cacheRoot(): string;
export declare function ensureToolchain(): Toolchain;
export declare function provisionToolchain(reporter?: import('./stepReporter.mjs').StepReporter): Promise<Toolchain>;
export declare function provisioned(): Toolchain | undefined;
export declare function setupLogFile(): string;
export declare function withoutNpmVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
