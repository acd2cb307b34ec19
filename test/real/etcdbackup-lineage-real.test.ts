// Backups on real etcd and moto (issues 29.6, 30.2, 30.3): a periodic backup prunes only its own lineage (a cluster
// lost and recreated under the same name, two EtcdBackups on one path); a one-off backup is taken once; tenant A
// cannot reach tenant B's snapshots, by the hook's rules and by the credentials' policy; S3 that half-works (no
// delete right, no read right, silent, thousands of objects) costs at most the pruning. The backup command runs as
// a kubelet would run the hook's Job (test/fixtures/backup-kubelet.ts), against the test kubelet's etcd members.
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateAccessKeyCommand, CreateUserCommand, IAMClient, PutUserPolicyCommand } from '@aws-sdk/client-iam';
import t from 'tap';
import { fetchSnapshot } from '../../hooks/etcdbackup/backup.js';
import { etcdrestore } from '../../hooks/etcdbackup/index.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { tenancyFromEnv } from '../../hooks/etcdcommon/tenancy.js';
import { runPure } from '../../lib/operator.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { backupPod, etcdCluster, etcdRestore } from '../fixtures/backup.js';
import type { BackupRig, Credentials } from '../fixtures/backup-kubelet.js';
import { BackupsOnMoto } from '../fixtures/backup-lineage.js';
import type { Moto } from '../fixtures/moto.js';
import { status } from '../fixtures/etcd-status.js';

const on = new BackupsOnMoto(['backups', 'shared']);
const { cluster, objects, periodic, fire } = on;
let moto: Moto;
let admin: S3Client;
let iam: IAMClient;
let rig: BackupRig;
t.before(() => {
  ({ moto, admin, rig } = on);
  iam = new IAMClient({ endpoint: moto.endpoint, region: moto.region, credentials: moto.admin });
});

const uidOf = async (bucket: string, key: string) =>
  (await admin.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).Metadata?.['metaops-backup-uid'];

/** An IAM user with one inline policy and a key: what a tenant's awsSecret holds. */
async function iamUser(name: string, statements: unknown[]): Promise<Credentials> {
  await iam.send(new CreateUserCommand({ UserName: name }));
  await iam.send(
    new PutUserPolicyCommand({
      UserName: name,
      PolicyName: 'backups',
      PolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: statements }),
    }),
  );
  const key = (await iam.send(new CreateAccessKeyCommand({ UserName: name }))).AccessKey!;
  return { accessKeyId: key.AccessKeyId!, secretAccessKey: key.SecretAccessKey! };
}

/** The policy docs/etcdbackup.md gives a namespace's backup credentials on a shared bucket. */
const prefixPolicy = (bucket: string, ns: string, actions = ['s3:PutObject', 's3:GetObject', 's3:DeleteObject']) => [
  { Effect: 'Allow', Action: actions, Resource: `arn:aws:s3:::${bucket}/${ns}/*` },
  {
    Effect: 'Allow',
    Action: 's3:ListBucket',
    Resource: `arn:aws:s3:::${bucket}`,
    Condition: { StringLike: { 's3:prefix': `${ns}/*` } },
  },
];

t.test(
  'a cluster lost and recreated under the same name while a periodic EtcdBackup runs with maxBackups 2: every snapshot of the first lineage survives',
  async (t) => {
    const path = 'backups/default/lost/snap';
    const first = await cluster('lost');
    // The hook makes the CronJob once the cluster records its etcd cluster ID (given to the Job to check).
    const cron = rig.hook(periodic(path, 2, 'lost'), { clusters: ['lost'] }).children[0]!;
    t.equal(cron.kind, 'CronJob');
    await first.put('the real data', 'first life');
    const firstResults = [];
    for (let i = 0; i < 3; i++) firstResults.push(await fire(first, cron));
    t.ok(
      firstResults.every((r) => r.succeeded),
      'three backups of the first cluster',
    );
    const lineage1 = await objects('backups', 'default/lost/');
    t.equal(lineage1.size, 2, `pruned to two in its lineage: ${[...lineage1.keys()].join(', ')}`);
    await first.shutdown(); // lost: pods and data gone

    // Recreated under the same name: a new object (new UID), an empty etcd.
    const second = await cluster('lost', 'default', 'uid-lost-recreated');
    // The old CronJob's Job refuses it: the new cluster answers with another ID than the one it was given.
    t.match(await fire(second, cron), { succeeded: false, reason: /answered as etcd cluster .*, not / });
    // Its status records the new ID: the hook's next answer (the EtcdCluster is related: it syncs the backup again).
    const cron2 = rig.hook(periodic(path, 2, 'lost'), { clusters: ['lost'] }).children[0]!;
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await fire(second, cron2));
    t.ok(
      results.every((r) => r.succeeded),
      'four backups of the new cluster',
    );
    t.match(results[0], {
      lineageBreak: { reason: 'EtcdClusterChanged', clusterId: firstResults[2].clusterId },
      pruned: [],
    });
    t.not(results[0].clusterId, firstResults[0].clusterId, 'etcd reports a new cluster ID');
    t.ok(results[0].etcdRevision < firstResults[2].etcdRevision, 'and a lower revision');
    const after = await objects('backups', 'default/lost/');
    for (const [key, etag] of lineage1)
      t.equal(after.get(key), etag, `${key} of the first lineage survives, unchanged`);
    t.equal(after.size, 4, 'its two and the new lineage’s two');
    // The snapshot of the real data is still a snapshot of it.
    const newest = [...lineage1.keys()].sort().pop()!;
    const file = `${second.dir}/check.db`;
    const size = await fetchSnapshot(admin, `backups/${newest}`, file);
    t.ok(size > 10_000, `the first lineage's newest snapshot fetches whole (${size} bytes)`);

    // The hook reports the break, and keeps reporting it.
    const seen = rig.hook(periodic(path, 2, 'lost'), {
      clusters: ['lost'],
      pods: [backupPod('nightly', 'default', results[0], '2026-01-01T00:00:00Z')],
    });
    t.match(
      status(seen).conditions.find((c: any) => c.type === 'Lineage'),
      {
        status: 'False',
        reason: 'EtcdClusterChanged',
        message: /kept, never pruned/,
      },
    );
    await second.shutdown();
  },
);

t.test(
  'the same cluster rebuilt with its identity (same UID and members): the revision went back, nothing pruned over it',
  async (t) => {
    const path = 'backups/default/rebuilt/snap';
    const first = await cluster('rebuilt');
    const cron = rig.hook(periodic(path, 1, 'rebuilt'), { clusters: ['rebuilt'] }).children[0]!;
    for (let i = 0; i < 20; i++) await first.put(`k${i}`, 'v');
    const before = await fire(first, cron);
    await first.shutdown();
    const again = await cluster('rebuilt');
    t.teardown(() => again.shutdown());
    const r = await fire(again, cron);
    t.equal(r.clusterId, before.clusterId, 'the same cluster ID (same members, same token)');
    t.match(r, { succeeded: true, lineageBreak: { reason: 'RevisionWentBack', revision: before.etcdRevision } });
    await fire(again, cron);
    const left = await objects('backups', 'default/rebuilt/');
    t.ok(left.has(before.key), `${before.key} (revision ${before.etcdRevision}) kept`);
    t.equal(left.size, 2, 'the old one and the newest of the new lineage (maxBackups 1)');
  },
);

t.test('two EtcdBackups on one path keep each other’s backups', async (t) => {
  const k = await cluster('shared-path');
  t.teardown(() => k.shutdown());
  const path = 'backups/default/shared-path/snap';
  const a = rig.hook(periodic(path, 2, 'shared-path'), { clusters: ['shared-path'], name: 'hourly', uid: 'uid-a' });
  const b = rig.hook(periodic(path, 3, 'shared-path'), { clusters: ['shared-path'], name: 'daily', uid: 'uid-b' });
  for (let i = 0; i < 5; i++) {
    t.equal((await fire(k, a.children[0]!)).succeeded, true);
    t.equal((await fire(k, b.children[0]!)).succeeded, true);
  }
  const left = await objects('backups', 'default/shared-path/');
  const owners = await Promise.all([...left.keys()].map((key) => uidOf('backups', key)));
  t.equal(owners.filter((o) => o === 'uid-a').length, 2, 'hourly keeps its 2');
  t.equal(owners.filter((o) => o === 'uid-b').length, 3, 'daily keeps its 3');
  t.equal(left.size, 5);
});

t.test('a one-off backup whose Job is deleted is not taken again', async (t) => {
  const k = await cluster('once');
  t.teardown(() => k.shutdown());
  const spec = {
    clusterName: 'once',
    s3: { path: 'backups/default/once/before-upgrade.db', endpoint: moto.endpoint, awsSecret: 'aws' },
  };
  // Metacontroller's loop: the hook's answer, the Job as observed, its pod's result.
  let res = rig.hook(spec, { clusters: ['once'] });
  const job = res.children[0]!;
  t.equal(job.kind, 'Job');
  await k.put('before', 'the upgrade');
  const { result } = await rig.run(job, k.endpoint(k.livePods()[0]!), moto.admin);
  t.equal(result.succeeded, true);
  const taken = await objects('backups', 'default/once/');
  res = rig.hook(spec, {
    clusters: ['once'],
    status: status(res),
    children: [asObserved(job, { succeeded: 1 })],
    pods: [backupPod('nightly', 'default', result, '2026-01-01T00:00:00Z')],
  });
  t.match(status(res), { succeeded: true, key: 'default/once/before-upgrade.db' });
  // A TTL deletes the finished Job and its pod.
  for (let i = 0; i < 3; i++) {
    res = rig.hook(spec, { clusters: ['once'], status: status(res) });
    t.same(res.children, [], 'no Job made again');
  }
  await k.put('after', 'the upgrade began');
  // Even a Job that runs again (its record lost with the status) leaves the point-in-time snapshot as it was.
  const again = await rig.run(
    rig.hook(spec, { clusters: ['once'] }).children[0]!,
    k.endpoint(k.livePods()[0]!),
    moto.admin,
  );
  t.match(again.result, { succeeded: true, alreadyTaken: true, etcdRevision: result.etcdRevision });
  t.same(await objects('backups', 'default/once/'), taken, 'the snapshot unchanged');
  // Another EtcdBackup on the same path: refused, unchanged.
  const other = await rig.run(
    rig.hook(spec, { clusters: ['once'], name: 'other', uid: 'uid-other' }).children[0]!,
    k.endpoint(k.livePods()[0]!),
    moto.admin,
  );
  t.match(other.result, {
    succeeded: false,
    reason: /already holds a snapshot, written by EtcdBackup default\/nightly/,
  });
  t.same(await objects('backups', 'default/once/'), taken);
});

t.test(
  "tenant A cannot overwrite, prune or restore tenant B's snapshots, nor point a backup at B's etcd or elsewhere",
  async (t) => {
    const credsA = await iamUser('tenant-a', prefixPolicy('shared', 'team-a'));
    const credsB = await iamUser('tenant-b', prefixPolicy('shared', 'team-b'));
    const b = await cluster('orders', 'team-b');
    t.teardown(() => b.shutdown());
    const a = await cluster('web', 'team-a');
    t.teardown(() => a.shutdown());
    await b.put('b-secret', 'only for tenant B');
    const bCron = rig.hook(periodic('shared/team-b/orders', 2, 'orders'), {
      namespace: 'team-b',
      clusters: ['orders'],
    });
    for (let i = 0; i < 2; i++) t.equal((await fire(b, bCron.children[0]!, credsB)).succeeded, true);
    const bObjects = await objects('shared', 'team-b/');
    t.equal(bObjects.size, 2);

    // A's specs that name B's prefix, B's cluster, B's etcd or another endpoint: nothing runs.
    // A's cluster as Metacontroller sends it: with the etcd cluster ID its real cluster recorded.
    const clusters = [rig.clusterOf('web', 'team-a')];
    for (const spec of [
      periodic('shared/team-b/orders', 1, 'web'),
      { clusterName: 'web', s3: { path: 'shared/team-b/orders', awsSecret: 'aws' } },
      { clusterName: 'web', s3: { path: 'shared/team-a/../team-b/orders', awsSecret: 'aws' } },
      { clusterName: 'orders', s3: { path: 'shared/team-a/x', awsSecret: 'aws' } },
      { etcdEndpoints: ['http://orders-client.team-b.svc:2379'], s3: { path: 'shared/team-a/x', awsSecret: 'aws' } },
      { etcdEndpoints: [b.endpoint(b.livePods()[0]!)], s3: { path: 'shared/team-a/x', awsSecret: 'aws' } },
      { clusterName: 'web', s3: { path: 'shared/team-a/x', awsSecret: 'aws', endpoint: 'http://attacker.example' } },
      { clusterName: 'web', s3: { path: 'shared/team-a/x' } },
    ]) {
      const res = rig.hook(spec, { namespace: 'team-a', clusters });
      t.same(res.children, [], `refused: ${JSON.stringify(spec)}`);
    }

    // A's own periodic backups prune only A's.
    const aCron = rig.hook(periodic('shared/team-a/web', 1, 'web'), { namespace: 'team-a', clusters });
    for (let i = 0; i < 3; i++) t.equal((await fire(a, aCron.children[0]!, credsA)).succeeded, true);
    t.equal((await objects('shared', 'team-a/')).size, 1);
    t.same(await objects('shared', 'team-b/'), bObjects, "B's snapshots untouched");

    // The second layer: were the hook to let A's Job at B's prefix, A's credentials could not write or delete there.
    const forced = structuredClone(aCron.children[0]!) as any;
    const args: string[] = forced.spec.jobTemplate.spec.template.spec.containers[0].args;
    args[args.indexOf('--s3-path') + 1] = 'shared/team-b/orders';
    args[args.indexOf('--max-backups') + 1] = '1';
    const denied = await fire(a, forced, credsA);
    t.match(denied, { succeeded: false, reason: /AccessDenied/ });
    t.same(await objects('shared', 'team-b/'), bObjects, "B's snapshots untouched by A's credentials");
    await t.rejects(
      fetchSnapshot(
        new S3Client({ endpoint: moto.endpoint, region: moto.region, credentials: credsA, forcePathStyle: true }),
        `shared/${[...bObjects.keys()][0]}`,
        `${a.dir}/stolen.db`,
      ),
      'and could not read them',
    );

    // A's restore of B's snapshot: refused by the restore's hook; A's cluster is left as it is.
    a.settings = { backup: tenancyFromEnv({ ...rig.serverEnv(), METAOPS_BACKUP_AMBIENT_CREDENTIALS: 'team-a' }) };
    a.nodeEnv = {
      AWS_ACCESS_KEY_ID: credsA.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credsA.secretAccessKey,
      AWS_REGION: moto.region,
    };
    await a.put('a-data', 'kept');
    const steal = etcdRestore(
      'steal',
      'team-a',
      'web',
      { path: `shared/${[...bObjects.keys()][1]}`, endpoint: moto.endpoint },
      '2026-07-01T00:00:00Z',
    );
    a.related = [steal];
    const pods = a.livePods();
    for (let i = 0; i < 4; i++) {
      const res = await a.step();
      t.notOk(status(res).restore, 'no restore started');
    }
    t.same(a.livePods(), pods, 'no member replaced');
    t.equal(await a.get('a-data'), 'kept');
    t.equal(await a.get('b-secret'), undefined, "B's data never reached A's cluster");
    const verdict = runPure(
      etcdrestore,
      'sync',
      {
        controller: {},
        parent: steal as any,
        related: objectMap([etcdCluster('web', 'team-a', a.status)], 'v1', [
          'EtcdCluster.etcd.database.coreos.com/v1beta2',
        ]),
      },
      { now: FIXED_NOW, settings: etcdSettings({ env: rig.serverEnv() }) },
    );
    t.match(status(verdict).conditions[0], { reason: 'NotAllowed', message: /team-a\// });
  },
);

t.test('S3 that half-works costs the pruning, never a snapshot', async (t) => {
  const k = await cluster('half');
  t.teardown(() => k.shutdown());
  const everything = ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'];
  const noDelete = await iamUser('no-delete', prefixPolicy('backups', 'default', ['s3:PutObject', 's3:GetObject']));
  const noRead = await iamUser('no-read', prefixPolicy('backups', 'default', ['s3:PutObject', 's3:DeleteObject']));
  const full = await iamUser('full', prefixPolicy('backups', 'default', everything));

  const cron = rig.hook(periodic('backups/default/half/snap', 1, 'half'), { clusters: ['half'] }).children[0]!;
  t.equal((await fire(k, cron, full)).succeeded, true);
  // No right to delete: every backup is written, once, and says that pruning stopped.
  for (let i = 0; i < 2; i++) {
    const r = await fire(k, cron, noDelete);
    t.match(r, { succeeded: true, pruned: [], pruneProblem: /pruning stopped after 0 deletion\(s\): AccessDenied/ });
  }
  t.equal((await objects('backups', 'default/half/')).size, 3, 'one snapshot per run, none lost');
  const reported = rig.hook(periodic('backups/default/half/snap', 1, 'half'), {
    clusters: ['half'],
    pods: [
      backupPod(
        'nightly',
        'default',
        { ...(await fire(k, cron, noDelete)), backupUid: 'uid-nightly' },
        '2026-01-01T00:00:00Z',
      ),
    ],
  });
  t.match(status(reported), { succeeded: true, pruneProblem: /AccessDenied/ });
  // No right to read an object's metadata: nothing is anyone's, nothing pruned.
  const blind = await fire(k, cron, noRead);
  t.match(blind, { succeeded: true, pruned: [] });
  t.equal((await objects('backups', 'default/half/')).size, 5);
  // Rights back: the lineage is pruned again to one.
  const healed = await fire(k, cron, full);
  t.ok(healed.pruned.length >= 1, `pruned again: ${healed.pruned.length}`);

  // S3 silent (the process stopped): the backup fails within its bound, and writes nothing.
  const before = await objects('backups', 'default/half/');
  const quick = rig.hook(
    {
      ...periodic('backups/default/half/snap', 1, 'half'),
      backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 1, timeoutInSecond: 2 },
    },
    { clusters: ['half'] },
  ).children[0]!;
  moto.pause();
  const started = Date.now();
  let silent: any;
  try {
    silent = await fire(k, quick, full);
  } finally {
    moto.resume();
  }
  const took = (Date.now() - started) / 1000;
  t.equal(silent.succeeded, false);
  t.comment(`silent S3: failed after ${took.toFixed(1)} s (timeoutInSecond 2): ${silent.reason}`);
  t.ok(took < 60, 'bounded: no hang until the Job deadline');
  // Nothing deleted. A PUT whose answer never came may still complete once S3 wakes (S3 semantics too): then it
  // is a whole snapshot of this lineage, never a part of one.
  const after = await objects('backups', 'default/half/');
  for (const [key, etag] of before) t.equal(after.get(key), etag, `${key} kept`);
  for (const key of [...after.keys()].filter((k) => !before.has(k))) {
    const head = await admin.send(new HeadObjectCommand({ Bucket: 'backups', Key: key }));
    t.equal(
      head.Metadata?.['metaops-backup-uid'],
      'uid-nightly',
      `${key}, written late, is a snapshot of this lineage`,
    );
    t.ok((head.ContentLength ?? 0) > 10_000, `${key} is whole (${head.ContentLength} bytes)`);
  }
  t.equal((await fire(k, cron, full)).succeeded, true, 'S3 back: the next backup succeeds');
});

t.test('thousands of objects under the path: correct pruning at a bounded cost', async (t) => {
  const k = await cluster('many');
  t.teardown(() => k.shutdown());
  // A baseline in the same run: the same backups on an empty path.
  const empty = rig.hook(periodic('backups/default/few/snap', 2, 'many'), { clusters: ['many'] }).children[0]!;
  const base: number[] = [];
  for (let i = 0; i < 3; i++) {
    const s = Date.now();
    await fire(k, empty);
    base.push(Date.now() - s - 1050);
  }
  const N = 3000;
  const keys = Array.from(
    { length: N },
    (_, i) =>
      `default/many/snap_v${i}_2025-01-01T${String(Math.floor(i / 3600)).padStart(2, '0')}-${String(Math.floor(i / 60) % 60).padStart(2, '0')}-${String(i % 60).padStart(2, '0')}Z`,
  );
  for (let i = 0; i < N; i += 50)
    await Promise.all(
      keys.slice(i, i + 50).map((Key) => admin.send(new PutObjectCommand({ Bucket: 'backups', Key, Body: 'old' }))),
    );
  const cron = rig.hook(periodic('backups/default/many/snap', 2, 'many'), { clusters: ['many'] }).children[0]!;
  const times: number[] = [];
  for (let i = 0; i < 4; i++) {
    const s = Date.now();
    const r = await fire(k, cron);
    times.push(Date.now() - s - 1050);
    t.equal(r.succeeded, true);
  }
  const left = await objects('backups', 'default/many/');
  t.equal(left.size, N + 2, `the ${N} objects of no lineage kept, 2 of this one`);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  t.comment(
    `a backup over ${N} objects: median ${median(times)} ms per run (runs ${times.join(', ')}), on an empty path ${median(base)} ms (${base.join(', ')})`,
  );
  const object = await admin.send(new GetObjectCommand({ Bucket: 'backups', Key: keys[0] }));
  t.equal(object.ContentLength, 3, 'an object of no lineage is as it was');
});
