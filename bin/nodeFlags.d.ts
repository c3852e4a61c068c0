/** See nodeFlags.js. */
export declare const CLI_NODE_FLAGS: readonly string[];
export declare const FIRST_MAJOR_NEEDING_FLAGS: number;
export declare const RESPAWNED_ENV: string;
export declare function nodeFlagsToAdd(process: {
  execArgv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  version: string;
}): string[];
