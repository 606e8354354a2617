// Export copies in S3-compatible storage (EXPORT_S3_BUCKET), shared by every node: a file is uploaded
// as it is first sent (a multipart upload that completes only when the whole file went through, so a
// failed one leaves no object), and a later download is sent to a presigned GET of the object, valid
// until the download link's own expiry. Objects live under EXPORT_S3_PREFIX<export>/<file>.

import { PassThrough, type Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { type LoadOnce, loadOnce } from '../../core/load-once.ts';
import type { CopyStore, KeptCopy } from './storage.ts';

/** The SDK's parts used here, loaded with the first copy looked up or kept (a node holds it only once it does). */
async function loadSdk() {
  const [s3, storage, presigner] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/lib-storage'),
    import('@aws-sdk/s3-request-presigner'),
  ]);
  const { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } = s3;
  return {
    DeleteObjectsCommand,
    GetObjectCommand,
    HeadObjectCommand,
    ListObjectsV2Command,
    S3Client,
    Upload: storage.Upload,
    getSignedUrl: presigner.getSignedUrl,
  };
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

export interface S3Settings {
  bucket: string;
  prefix: string;
  region: string;
  /** An S3-compatible endpoint (path-style addressing); unset: AWS. */
  endpoint?: string | undefined;
  /** Unset: the SDK's own credential chain (environment, shared files, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

export class S3Copies implements CopyStore {
  private readonly connect: LoadOnce<{ sdk: Sdk; s3: S3Client }>;

  constructor(private readonly settings: S3Settings) {
    this.connect = loadOnce(() =>
      loadSdk().then((sdk) => ({
        sdk,
        s3: new sdk.S3Client({
          region: settings.region,
          ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
          ...(settings.credentials ? { credentials: settings.credentials } : {}),
        }),
      })),
    );
  }

  private keyOf(exportId: string, file: string): string {
    return `${this.settings.prefix}${exportId}/${file}`;
  }

  async find(exportId: string, file: string, until: Date): Promise<KeptCopy | null> {
    const Key = this.keyOf(exportId, file);
    const { sdk, s3 } = await this.connect();
    try {
      await s3.send(new sdk.HeadObjectCommand({ Bucket: this.settings.bucket, Key }));
    } catch (e) {
      if ((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
      throw e;
    }
    const expiresIn = Math.max(1, Math.floor((until.getTime() - Date.now()) / 1000));
    const name = file.replaceAll('/', '-');
    const redirect = await sdk.getSignedUrl(
      s3,
      new sdk.GetObjectCommand({
        Bucket: this.settings.bucket,
        Key,
        ResponseContentDisposition: `attachment; filename="${name}"`,
        ResponseCacheControl: 'private, no-store',
      }),
      { expiresIn },
    );
    return { redirect };
  }

  async tee(exportId: string, file: string): Promise<(source: Readable) => Readable> {
    const Key = this.keyOf(exportId, file);
    const { sdk, s3 } = await this.connect();
    return (source) => {
      const toClient = new PassThrough();
      const toStore = new PassThrough();
      const upload = new sdk.Upload({
        client: s3,
        params: {
          Bucket: this.settings.bucket,
          Key,
          Body: toStore,
          ContentType: file.endsWith('.gz') ? 'application/gzip' : 'application/octet-stream',
        },
      });
      // A failed upload only means no copy: the next download writes the file again.
      upload.done().catch(() => undefined);
      const fail = (e?: Error) => {
        upload.abort().catch(() => undefined);
        toStore.destroy();
        toClient.destroy(e);
      };
      let ended = false;
      source.once('end', () => {
        ended = true;
      });
      source.once('error', fail);
      // Closed before its end (the download was cut): no object is made of the part sent.
      source.once('close', () => {
        if (!ended) fail();
      });
      source.pipe(toStore);
      source.pipe(toClient);
      return toClient;
    };
  }

  async sweep(before: Date): Promise<number> {
    let swept = 0;
    let token: string | undefined;
    const { sdk, s3 } = await this.connect();
    do {
      const page = await s3.send(
        new sdk.ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: this.settings.prefix, ContinuationToken: token }),
      );
      const old = (page.Contents ?? []).filter((o) => o.Key && o.LastModified && o.LastModified < before);
      if (old.length) {
        await s3.send(
          new sdk.DeleteObjectsCommand({
            Bucket: this.settings.bucket,
            Delete: { Objects: old.map((o) => ({ Key: o.Key as string })) },
          }),
        );
        swept += old.length;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return swept;
  }

  close(): void {
    void this.connect.started()?.then(
      ({ s3 }) => s3.destroy(),
      () => {},
    );
  }
}
