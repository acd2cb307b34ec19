// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { assertNotWokenFromAnotherNamespace, examples, secs, condition, type Scenario } from './common.js';

export const eventsRestrictedEtcd: Scenario = {
  name: 'Events and restricted etcd: member pods and a backup Job admitted under restricted; a refused pod in the status; an AWS failure in kubectl describe',
  async run(k) {
    const notes: string[] = [];
    const ns = 'restricted-etcd';
    await k.kubectl(['create', 'namespace', ns]);
    await k.kubectl([
      'label',
      'namespace',
      ns,
      'pod-security.kubernetes.io/enforce=restricted',
      'pod-security.kubernetes.io/enforce-version=latest',
    ]);
    const t0 = Date.now();
    // A cluster that asks for root (spec.pod.securityContext overrides the default): admission refuses its pod.
    await k.kubectl(
      ['apply', '-n', ns, '-f', '-'],
      JSON.stringify({
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdCluster',
        metadata: { name: 'rooted' },
        spec: { size: 1, version: '3.5.17', pod: { securityContext: { runAsUser: 0, runAsNonRoot: false } } },
      }),
    );
    // The seed cluster and a one-off backup of it.
    await k.kubectl(['apply', '-n', ns, '-f', examples(k.repo, 'etcd-cluster-cr.yaml')]);
    await k.kubectl(
      ['apply', '-n', ns, '-f', '-'],
      JSON.stringify({
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdBackup',
        metadata: { name: 'once' },
        spec: {
          clusterName: 'example-etcd-cluster',
          storageType: 'S3',
          backupPolicy: { backupIntervalInSecond: 0 },
          s3: { path: `backups/${ns}/example`, awsSecret: 'aws' },
        },
      }),
    );
    const pods = async (selector: string) => (await k.json(['get', 'pods', '-n', ns, '-l', selector])).items as any[];
    const members = await waitFor(
      '3 member pods admitted under restricted',
      async () => {
        const list = await pods('etcd_cluster=example-etcd-cluster');
        return list.length === 3 ? list : undefined;
      },
      // Three members are made one sync at a time behind a DNS check each; on a busy CI machine (every scenario of
      // the release at once) that has taken 73-90 s.
      180_000,
    );
    assert.deepEqual(members[0].spec.securityContext.seccompProfile, { type: 'RuntimeDefault' });
    assert.equal(members[0].spec.securityContext.runAsNonRoot, true);
    // No kubelet runs the members here, so the cluster's hook never reads its etcd cluster ID; a backup waits for it
    // (ClusterIDUnknown). It is recorded by hand, as the hook records it from its running members (and keeps it).
    const recordId = async () => {
      const c = await k.json(['get', 'etcdcluster', '-n', ns, 'example-etcd-cluster']);
      if (c.status?.clusterID) return;
      await k.kubectl([
        'patch',
        'etcdcluster',
        '-n',
        ns,
        'example-etcd-cluster',
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: { clusterID: '1311768467463790320' } }),
      ]);
    };
    await waitFor(
      "the backup Job's pod admitted under restricted",
      async () => {
        await recordId();
        return (await pods('app.kubernetes.io/name=etcdbackup,app.kubernetes.io/instance=once')).length > 0;
      },
      90_000,
    );
    notes.push(`3 etcd member pods and the backup Job's pod admitted under restricted in ${secs(t0)}`);

    // An AWS failure: the bucket exists in moto, made by someone else.
    const { S3Client, CreateBucketCommand } = await import('@aws-sdk/client-s3');
    const admin = new S3Client({
      endpoint: k.moto!.endpoint,
      region: k.moto!.region,
      forcePathStyle: true,
      credentials: k.moto!.admin,
    });
    await admin.send(new CreateBucketCommand({ Bucket: 'metaops-e2e-taken' }));
    await k.kubectl(
      ['apply', '-n', ns, '-f', '-'],
      JSON.stringify({
        apiVersion: 'systek.no/v1',
        kind: 'S3',
        metadata: { name: 'taken' },
        spec: { bucketName: 'metaops-e2e-taken' },
      }),
    );
    const taken = await waitFor('S3 Ready=False BucketAlreadyExists', async () => {
      const r = await k.json(['get', 's3', 'taken', '-n', ns]);
      return condition(r, 'Ready')?.reason === 'BucketAlreadyExists' ? r : undefined;
    });
    const described = await waitFor('the Warning in kubectl describe s3', async () => {
      const text = await k.kubectl(['describe', 's3', 'taken', '-n', ns]);
      return /Warning\s+BucketAlreadyExists\s+.*metaops/.test(text) ? text : undefined;
    });
    const line = described.split('\n').find((l) => /BucketAlreadyExists/.test(l) && /Warning/.test(l))!;
    notes.push(
      `kubectl describe s3 taken: ${line.trim().replace(/\s+/g, ' ')} (condition: ${condition(taken, 'Ready').message})`,
    );

    // The refused pod: the status says so once it has been absent a minute; both events in describe.
    const rooted = await waitFor(
      'EtcdCluster rooted: PodsCreated=False PodNotCreated',
      async () => {
        const r = await k.json(['get', 'etcdcluster', 'rooted', '-n', ns]);
        return condition(r, 'PodsCreated')?.reason === 'PodNotCreated' ? r : undefined;
      },
      150_000,
    );
    assert.equal(condition(rooted, 'PodsCreated').status, 'False');
    assert.equal((await pods('etcd_cluster=rooted')).length, 0, 'no pod of the root cluster was admitted');
    const why = await waitFor('PodNotCreated and the refusal in kubectl describe etcdcluster', async () => {
      const text = await k.kubectl(['describe', 'etcdcluster', 'rooted', '-n', ns]);
      return /Warning\s+PodNotCreated/.test(text) && /violates PodSecurity/.test(text) ? text : undefined;
    });
    assert.match(why, /SyncError/, "Metacontroller's own event carries the API server's refusal");
    notes.push(
      `refused pod reported ${secs(t0)} after the cluster was created: ${condition(rooted, 'PodsCreated').message.slice(0, 120)}...`,
    );
    assert.deepEqual(rooted.status.memberList ?? [], [], 'no member');
    assert.equal(
      rooted.status.lastMemberIndex,
      0,
      'the refused bootstrap keeps its name (rooted-0), no new ordinal per sync',
    );

    notes.push(
      await k.assertQuiet({
        namespace: ns,
        parents: ['etcdclusters/example-etcd-cluster', 'etcdclusters/rooted', 'etcdbackups/once', 's3s/taken'],
        hooks: [
          { hook: 'etcdcluster/sync', parents: 2 },
          { hook: 'etcdbackup/sync', parents: 1 },
          { hook: 's3/sync', parents: 1 },
        ],
      }),
    );
    // A pod of another namespace carrying every label of the backup's pods but its keyed parent label syncs it no more than its
    // resyncs do (on v1.5.20 a rule by name/instance was matched by labels alone: each write synced it).
    notes.push(
      await assertNotWokenFromAnotherNamespace(k, {
        hook: 'etcdbackup/sync',
        ownPods: ['app.kubernetes.io/name=etcdbackup', 'app.kubernetes.io/instance=once'],
        namespace: ns,
        parentLabel: 'etcdbackup.metaops.io/parent-id',
        parent: { kind: 'EtcdBackup', name: 'once' },
        // Counted as if synced every 2 s (the shortest resyncAfterSeconds a hook answers): generous beside its 5 s resync.
        seconds: 2,
      }),
    );
    await k.kubectl(['delete', 's3', 'taken', '-n', ns, '--wait=true', '--timeout=60s']);
    await k.kubectl(['delete', 'namespace', ns, '--wait=false']);
    return notes;
  },
};
