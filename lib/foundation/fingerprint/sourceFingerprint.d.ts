/** See sourceFingerprint.js. */
export declare function sourceFingerprint(inputs: readonly string[], read: (input: string) => Uint8Array): string;
