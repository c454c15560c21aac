// Types for scripts/buildStamp.mjs (plain Node, so that `npm start` can run it before any build).
export declare const BUILD_OUTPUTS: string[];
export declare const STAMP_FILE: string;
export declare function inputsDigest(root: string): string;
export declare function buildNeeded(state: { stamp: string | null; digest: string; missing: string[] }): string | null;
export declare function readStamp(root: string): string | null;
export declare function writeStamp(root: string, digest: string): void;
export declare function removeStamp(root: string): void;
export declare function missingOutputs(root: string): string[];
