// Types for scripts/containers.mjs (plain Node, so that `npm run image` runs before any build).
export declare const IMAGE: string;
export declare function containerEngine(): string | null;
export declare function limitFlags(engine: string): string[];
export declare function runCommand(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<void>;
export declare function imageExists(engine: string, image: string): boolean;
