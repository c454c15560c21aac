// Types for scripts/image.mjs (plain Node, so that `npm run image` runs before any build).
export declare const PUBLIC_BASE: string;
export declare function chooseBase(engine: string, wanted?: string): Promise<string>;
export declare function buildImage(engine: string, options: { base: string; tag?: string; context?: string }): Promise<string>;
