// Every condition message that tells the user what to do is tested by doing exactly that: the instruction is read
// from the message, followed in the hook's world (the spec edited, the object made, the tag set), and the condition
// must clear. (The MySQL CredentialsLost commands are run word for word on a real control plane: test/e2e,
// "MySQLCluster deleted and created again over its volumes"; a replacement pod that cannot be created, whose
// message sends the user to kubectl get events: test/e2e, "PodSet rollout whose replacement cannot be created".)
import t from 'tap';
import { OWNER_TAG, OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { podsetSync } from '../fixtures/hooks.js';
import { request as hookRequest } from '../fixtures/requests.js';
import { decide, upgradeRefusal } from '../../hooks/etcdcluster/plan.js';
import { restoreSync } from '../fixtures/hooks.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { etcdHealthy, etcdParent, etcdSnapshot, etcdSpec } from '../fixtures/etcd.js';
import { restoreObject, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { s3Request } from '../fixtures/s3.js';

const cond = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any)?.conditions as any[] | undefined)?.find((c) => c.type === type);

/** The S3 resource `app` of namespace `ns`, its answers fed back as Metacontroller would. */
class Bucket {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  constructor(
    readonly aws: FakeAws,
    public spec: Record<string, unknown>,
    readonly uid = 'uid-app',
  ) {}
  request() {
    return s3Request(
      { name: 'app', namespace: 'ns', uid: this.uid },
      { deletionPolicy: 'Retain', forceDelete: false, ...this.spec },
      { status: this.status, children: this.children },
    );
  }
  async sync() {
    const res = await sync(this.request(), this.aws, FIXED_NOW);
    this.status = res.status as Record<string, unknown>;
    this.children = res.children;
    return res;
  }
  async finalize() {
    const res = await finalize(this.request(), this.aws, FIXED_NOW);
    this.status = res.status as Record<string, unknown>;
    return res;
  }
}

t.test('PodSet, answer too large: "shorten spec.command or lower spec.size", each, is accepted', async (t) => {
  const spec = { size: 512, image: 'busybox', command: ['x'.repeat(4096), 'y'.repeat(3444)] };
  // The framework refuses it (lib/budget.ts): Ready=False InvalidSpec with the kind's advice.
  const ready = (s: Record<string, unknown>) =>
    ((podsetSync(hookRequest('podset', s), FIXED_NOW).status as any).conditions as any[]).find(
      (c) => c.type === 'Ready',
    );
  const refused = ready(spec);
  t.equal(refused.reason, 'InvalidSpec');
  t.match(refused.message, /: shorten spec\.command or lower spec\.size$/);
  t.not(ready({ ...spec, command: ['x'.repeat(2048)] }).reason, 'InvalidSpec', 'shortened');
  t.not(ready({ ...spec, size: 256 }).reason, 'InvalidSpec', 'lowered');
});

t.test(
  'S3 finalize, a bucket not empty: "empty it, set forceDelete: true, or set deletionPolicy: Retain", each, finalizes',
  async (t) => {
    const ways: Array<[string, (b: Bucket) => void, boolean]> = [
      ['empty it', (b) => (b.aws.buckets.get('full')!.objects = 0), false],
      ['set forceDelete: true', (b) => (b.spec = { ...b.spec, forceDelete: true }), false],
      ['set deletionPolicy: Retain', (b) => (b.spec = { ...b.spec, deletionPolicy: 'Retain' }), true],
    ];
    for (const [what, follow, kept] of ways) {
      const aws = new FakeAws();
      const b = new Bucket(aws, { bucketName: 'full', deletionPolicy: 'Delete' });
      await b.sync();
      aws.buckets.get('full')!.objects = 2;
      const held = await b.finalize();
      t.equal(held.finalized, false);
      const message = cond(held, 'Finalized').message as string;
      t.ok(message.includes(what), `the message says "${what}": ${message}`);
      follow(b);
      const done = await b.finalize();
      t.equal(done.finalized, true, `${what}: finalized`);
      t.equal(aws.buckets.has('full'), kept, `${what}: the bucket ${kept ? 'kept' : 'deleted'}`);
    }
  },
);

t.test(
  'S3 renamed, the old bucket not empty: "set spec.bucketName back to use it again, empty it yourself, or set deletionPolicy: Retain", each, clears it',
  async (t) => {
    const ways: Array<[string, (b: Bucket) => void]> = [
      // A rename never empties a bucket (forceDelete is the deletion's): reverted, the old one is taken back.
      ['set spec.bucketName back to use it again', (b) => (b.spec = { ...b.spec, bucketName: 'b-old' })],
      ['empty it yourself', (b) => (b.aws.buckets.get('b-old')!.objects = 0)],
      ['set deletionPolicy: Retain', (b) => (b.spec = { ...b.spec, deletionPolicy: 'Retain' })],
    ];
    for (const [what, follow] of ways) {
      const aws = new FakeAws();
      const b = new Bucket(aws, { bucketName: 'b-old', deletionPolicy: 'Delete' });
      await b.sync();
      aws.buckets.get('b-old')!.objects = 2;
      b.spec = { ...b.spec, bucketName: 'b-new' };
      const waiting = await b.sync();
      t.ok((cond(waiting, 'OldBucketDeleted').message as string).includes(what), `the message says "${what}"`);
      follow(b);
      const done = await b.sync();
      t.notOk(cond(done, 'OldBucketDeleted'), `${what}: the condition is gone`);
      t.match(cond(done, 'Ready'), { status: 'True' }, `${what}: Ready`);
    }
  },
);

t.test('S3, a bucket of an earlier resource of this name: "set its tag ... to <uid>" hands it over', async (t) => {
  const aws = new FakeAws();
  aws.buckets.set('kept', {
    region: 'us-east-1',
    tags: new Map([
      [OWNER_TAG, 'ns/app'],
      [OWNER_UID_TAG, 'uid-old'],
    ]),
    objects: 3,
  });
  const b = new Bucket(aws, { bucketName: 'kept' });
  const refused = await b.sync();
  const message = cond(refused, 'Ready').message as string;
  const [, tag, uid] = /set its tag (\S+) to (\S+)$/.exec(message) ?? [];
  t.equal(tag, OWNER_UID_TAG, `the message names the tag: ${message}`);
  t.equal(uid, 'uid-app', 'and this resource’s uid');
  aws.buckets.get('kept')!.tags.set(tag!, uid!);
  const handed = await b.sync();
  t.match(cond(handed, 'Ready'), { status: 'True' }, 'the bucket is this resource’s now');
  t.equal(aws.buckets.get('kept')!.objects, 3, 'with its objects');
});

t.test('EtcdCluster, a failed restore: "fix the cause and create a new EtcdRestore" restores', async (t) => {
  const failed = { uid: 'r1', name: 'rest', phase: 'Failed', reason: 'restore-snapshot: checksum mismatch' };
  const parent = etcdParent({ size: 3 }, { phase: 'Failed', lastMemberIndex: 5, restore: failed });
  const stuck = decide(parent, etcdSpec({ size: 3 }), { pods: [], terminating: [], health: {} });
  t.match(stuck.conditions[0]!.message, /; fix the cause and create a new EtcdRestore$/);
  const again = decide(parent, etcdSpec({ size: 3 }), {
    pods: [],
    terminating: [],
    health: {},
    restore: { uid: 'r2', name: 'rest-2', source: etcdSnapshot },
  });
  // Taken: since the restore checks before it acts (issue 30.5), its snapshot is checked first.
  t.match(again.restore, { uid: 'r2', phase: 'Checking' }, 'the new EtcdRestore is checked first');
  t.match(again.restore, { uid: 'r2', name: 'rest-2' }, 'the new EtcdRestore is taken');
});

t.test(
  'EtcdCluster, every member pod gone: "restore from a backup (EtcdRestore) or delete and recreate the EtcdCluster", each, starts again',
  async (t) => {
    const parent = etcdParent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 });
    const lost = decide(parent, etcdSpec({ size: 3 }), { pods: [], terminating: [], health: {} });
    t.equal(lost.reason, 'AllMembersLost');
    t.match(
      lost.conditions[0]!.message,
      /restore from a backup \(EtcdRestore\) or delete and recreate the EtcdCluster$/,
    );
    const restored = decide(parent, etcdSpec({ size: 3 }), {
      pods: [],
      terminating: [],
      health: {},
      restore: { uid: 'r1', name: 'rest', source: etcdSnapshot },
    });
    t.match(
      restored.restore,
      { name: 'rest', phase: 'Checking' },
      'an EtcdRestore is taken (checked before it replaces)',
    );
    // Deleted and created again: a new parent (no status) bootstraps its members.
    const fresh = decide(etcdParent({ size: 3 }), etcdSpec({ size: 3 }), { pods: [], terminating: [], health: {} });
    t.equal(fresh.pods.length, 3, 'the recreated cluster starts its members');
    t.not(fresh.reason, 'AllMembersLost');
  },
);

t.test('EtcdCluster, NOSPACE: once space is freed and the alarm disarmed, it is Available again', async (t) => {
  const parent = etcdParent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 });
  const full = etcdHealthy(3);
  full.health['e-1'] = { healthy: false, alarm: 'NOSPACE', version: '3.5.0' } as any;
  const alarm = decide(parent, etcdSpec({ size: 3 }), full);
  t.match(alarm.conditions[0]!.message, /compact, defragment every member, then etcdctl alarm disarm\)/);
  const freed = decide(parent, etcdSpec({ size: 3 }), etcdHealthy(3));
  t.match(freed.conditions[0], { type: 'Available', status: true });
  // "A higher quota in pod.etcdEnv ... reaches only member pods made after it is set": a member made with it carries it.
  const env = [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '8589934592' }];
  const raised = decide(etcdParent({ size: 1 }), etcdSpec({ size: 1, pod: { etcdEnv: env } }), {
    pods: [],
    terminating: [],
    health: {},
  });
  t.same((raised.pods[0] as any).spec.containers[0].env, [{ name: 'ETCDCTL_API', value: '3' }, ...env]);
});

t.test('EtcdCluster, an upgrade two minors ahead: "3.x to 3.x+1 first" is accepted', async (t) => {
  const refusal = upgradeRefusal('3.3', '3.5')!;
  const [, from, to] = /\((\d+\.\d+) to (\d+\.\d+) first\)/.exec(refusal) ?? [];
  t.equal(from, '3.3');
  t.equal(to, '3.4');
  t.equal(upgradeRefusal(from!, to!), undefined, 'the step it names is accepted');
  t.equal(upgradeRefusal(to!, '3.5'), undefined, 'and the next one');
});

t.test('EtcdRestore made before its cluster: "create a new EtcdRestore", and the cluster acts on it', async (t) => {
  const cluster = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns', creationTimestamp: '2026-06-01T00:00:00Z' },
    status: {},
  };
  const stale = restoreSync(
    {
      controller: {},
      parent: restoreObject('old', '2026-05-01T00:00:00Z') as ParentObject,
      related: objectMap([cluster], 'v1', ['EtcdCluster.etcd.database.coreos.com/v1beta2']),
    },
    FIXED_NOW,
  );
  t.match(cond(stale, 'Ready'), { reason: 'OlderThanCluster', message: /; create a new EtcdRestore$/ });
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('new', '2026-06-02T00:00:00Z')];
  await loop.step();
  t.match(loop.s().restore, { name: 'new', phase: 'Checking' }, 'the new EtcdRestore is acted on (checked first)');
});
