// Which store keeps export copies: S3-compatible storage when EXPORT_S3_BUCKET is set (every node
// shares it), else this node's DATA_DIR.
import type { Env } from '../../core/env.ts';
import { S3Copies } from './s3-copies.ts';
import { type CopyStore, DataDirCopies, exportsDirOf } from './storage.ts';

export function copyStoreOf(env: Env): CopyStore {
  if (!env.EXPORT_S3_BUCKET) return new DataDirCopies(exportsDirOf(env.DATA_DIR));
  return new S3Copies({
    bucket: env.EXPORT_S3_BUCKET,
    prefix: env.EXPORT_S3_PREFIX,
    region: env.EXPORT_S3_REGION,
    endpoint: env.EXPORT_S3_ENDPOINT,
    credentials:
      env.EXPORT_S3_ACCESS_KEY_ID && env.EXPORT_S3_SECRET_ACCESS_KEY
        ? { accessKeyId: env.EXPORT_S3_ACCESS_KEY_ID, secretAccessKey: env.EXPORT_S3_SECRET_ACCESS_KEY }
        : undefined,
  });
}
