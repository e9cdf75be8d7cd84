export declare const SOURCES_STAMP: string;
export declare function sourcesStamp(dir: string): { files: number; bytes: number; newestMs: number };
