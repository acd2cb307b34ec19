// Two S3 resources of two namespaces naming one bucket (issue 31: "two resources that want one external thing"), the
// first one's sync killed after each of its AWS calls in turn, then the second synced to the end, then the first
// synced again (and each crash point with the order of the last two swapped). The claim decides (docs/s3.md): exactly
// one resource holds the bucket; its tags and claim name it; only its policy grants the bucket; the other is
// Ready=False with no grant of the bucket; and no untagged bucket is left behind.
import t from 'tap';
import { OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { policyName } from '../../hooks/s3/policy.js';
import { claimName } from '../../hooks/s3/sync.js';
import type { AwsApi } from '../../hooks/s3/api.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { S3_DEFAULTS, s3Request } from '../fixtures/s3.js';
import { killable, ready } from '../fixtures/s3-loop.js';

const BUCKET = 'one-name';

class Tenant {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  constructor(
    readonly fake: FakeAws,
    readonly meta: { name: string; namespace: string; uid: string },
  ) {}
  request() {
    return s3Request(
      this.meta,
      { ...S3_DEFAULTS, bucketName: BUCKET },
      { status: this.status, children: this.children },
    );
  }
  async run(aws: AwsApi = this.fake): Promise<CompositeSyncResponse> {
    const res = await sync(this.request(), aws, this.fake.now);
    this.status = res.status as Record<string, unknown>;
    this.children = res.children;
    return res;
  }
  async killed(n: number): Promise<number> {
    const { aws, calls } = killable(this.fake, n);
    await sync(this.request(), aws, this.fake.now).catch(() => undefined);
    return calls();
  }
  async settle(): Promise<CompositeSyncResponse> {
    let res = await this.run();
    for (let i = 0; i < 4 && ready(res).reason === 'SecretPending'; i++) {
      this.fake.now = new Date(this.fake.now.getTime() + 200_000);
      res = await this.run();
    }
    return res;
  }
  policyArn() {
    return `arn:aws:iam::123456789012:policy/${policyName(this.meta.namespace, this.meta.name, this.meta.uid)}`;
  }
  grants(): boolean {
    const doc = this.fake.document(this.policyArn());
    return !!doc && JSON.stringify(doc).includes(`arn:aws:s3:::${BUCKET}`);
  }
}

t.test(
  'two namespaces, one bucket name, the first sync killed at each call: one owner, the other refused, no grant to it',
  async (t) => {
    const A = { name: 'data', namespace: 'tenant-a', uid: 'uid-a' };
    const B = { name: 'data', namespace: 'tenant-b', uid: 'uid-b' };
    const total = await new Tenant(new FakeAws(), A).killed(1000);
    const bad: string[] = [];
    for (const order of ['B then A', 'A then B'] as const) {
      for (let n = 0; n <= total; n++) {
        const fake = new FakeAws();
        const a = new Tenant(fake, A);
        const b = new Tenant(fake, B);
        await a.killed(n);
        const [first, second] = order === 'B then A' ? [b, a] : [a, b];
        await first.settle();
        await second.settle();
        await first.settle();
        const ra = await a.run();
        const rb = await b.run();
        const bucket = fake.buckets.get(BUCKET);
        const owner = bucket?.tags.get(OWNER_UID_TAG);
        const claim = fake.policies
          .get(`arn:aws:iam::123456789012:policy/${claimName(BUCKET)}`)
          ?.tags.get(OWNER_UID_TAG);
        const readyA = ready(ra).status === 'True';
        const readyB = ready(rb).status === 'True';
        const problems: string[] = [];
        if (!bucket) problems.push('no bucket');
        if (!owner) problems.push('the bucket is untagged');
        if (owner !== claim) problems.push(`tags say ${owner}, claim says ${claim}`);
        if (readyA === readyB) problems.push(`Ready: A ${ready(ra).reason}, B ${ready(rb).reason}`);
        if (a.grants() && owner !== 'uid-a') problems.push("A's policy grants a bucket it does not own");
        if (b.grants() && owner !== 'uid-b') problems.push("B's policy grants a bucket it does not own");
        if (readyA && owner !== 'uid-a') problems.push('A Ready on a bucket it does not own');
        if (readyB && owner !== 'uid-b') problems.push('B Ready on a bucket it does not own');
        if (problems.length) bad.push(`${order}, A killed after call ${n}: ${problems.join('; ')}`);
      }
    }
    t.same(bad, [], `${2 * (total + 1)} cases`);
  },
);
