// The S3 hook talks to each bucket's own region, with one SDK client per region (hooks/s3/aws.ts s3In), kept for the
// life of the server, up to 4,096 of them (MAX_REMEMBERED). The region comes from the tenant: spec.region, which the
// CRD checks only for its shape (`^[a-z]{2}(-[a-z]+)+-[0-9]+$`, 32 characters), is the hint of the first call of every
// sync (sync.ts ensureBucket: findBucket(bucket, spec.region), then createBucket in it), before AWS is asked whether
// the region exists. One tenant who names a new region at each sync (one S3 object edited, or many) makes the server
// build and keep a client per name: ~34 KiB of heap each after one call (measured with @aws-sdk/client-s3 on Node 20),
// ~135 MiB for 4,096, in a process whose heap is capped at 256 MiB and whose worst request alone needs ~136-171 MiB
// (docs/operating.md, "Memory with the worst objects"). Every other tenant's hooks share that heap.
import t from 'tap';
import { AwsModel } from '../fixtures/aws-model.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { s3Request } from '../fixtures/s3.js';

const NOW = new Date('2026-01-02T03:04:05Z');
/** Regions AWS has (about 40 today, in every partition): a server needs no more clients than that. */
const MAX_CLIENTS = 64;
const REGIONS = 160;

/** A region name of AWS's shape that no AWS region has: `zz-<letters>-<n>`. */
const region = (i: number) =>
  `zz-${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}-${i % 10}`;

t.test(
  `S3 objects of one tenant naming ${REGIONS} made-up regions: the S3 clients the server keeps are bounded`,
  async (t) => {
    const model = new AwsModel();
    const aws = model.api();
    for (let i = 0; i < REGIONS; i++) {
      await sync(
        s3Request(
          { name: `data-${i}`, namespace: 'tenant-a', uid: `uid-a-${i}` },
          { bucketName: `tenant-a-r${i}`, region: region(i) },
        ),
        aws,
        NOW,
      );
    }
    const kept = (aws as unknown as { s3Clients: Map<string, unknown> }).s3Clients;
    t.comment(`${kept.size} S3 clients kept`);
    t.ok(
      kept.size <= MAX_CLIENTS,
      `the server keeps at most ${MAX_CLIENTS} S3 clients, whatever regions tenants name (keeps ${kept.size})`,
    );
    // The hint was followed: each made-up region was dialled (the cost is the client built for it).
    t.ok(
      model.calls.some((c) => c.startsWith('GetBucketTagging@zz-')),
      'the made-up regions were dialled as named',
    );
  },
);
