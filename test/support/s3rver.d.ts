/** Minimal typing of s3rver 3 (it ships none): only what the tests use. */
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: (string | Uint8Array)[] }[];
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
  export = S3rver;
}

/** s3rver's file-system store (CommonJS, untyped): only the members the tests patch. */
declare module 's3rver/lib/stores/filesystem.js' {
  import type { Readable } from 'node:stream';

  interface StoredObject {
    bucket: string;
    key: string;
    content: Readable | Uint8Array;
    metadata: Record<string, string>;
    readonly size: number;
  }
  class FilesystemStore {
    getResourcePath(bucket: string, key: string, resource: string): string;
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
    putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
  }
  export = FilesystemStore;
}

/** s3rver's accounts (CommonJS, untyped): the one every key pair belongs to, to register a key pair. */
declare module 's3rver/lib/models/account.js' {
  const AWSAccount: {
    DUMMY_ACCOUNT: {
      createKeyPair(accessKeyId: string, secretAccessKey: string): void;
      revokeAccessKey(accessKeyId: string): void;
    };
  };
  export = AWSAccount;
}
