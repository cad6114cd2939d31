// Types of what scripts/build-binary.mjs exports (scripts/bench-startup.ts builds the floor's executable with it).
export declare const NODE_VERSION: string;
export declare const BETTER_SQLITE3_VERSION: string;
export declare function binaryParts(): { node24: string; sqliteDir: string; addon: string };
export declare function makeExecutable(opts: { node24: string; main: string; assets: Record<string, string>; exe: string }): void;
