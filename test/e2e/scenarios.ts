// The seeds' walkthroughs, run with kubectl against the real control plane. Each scenario asserts on
// `kubectl get ... -o json` and waits with a time limit, never a fixed sleep. Returns notes for the report.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ControlPlane } from './cluster.js';
import { waitFor } from './cluster.js';

export interface Scenario {
  name: string;
  run(plane: ControlPlane): Promise<string[] | void>;
}

const examples = (root: string, file: string) => join(root, 'manifests', 'examples', file);
const secs = (t0: number) => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const condition = (obj: any, type: string) => obj?.status?.conditions?.find((c: any) => c.type === type);

const memcached: Scenario = {
  name: 'Memcached: the tutorial sample gets its Deployment and Service, nodes, kubectl scale, deletion',
  async run(k) {
    const notes: string[] = [];
    let t0 = Date.now();
    await k.kubectl(['apply', '-f', examples(k.repo, 'memcached.yaml')]);
    const deploy = await waitFor('Deployment memcached-sample with 3 replicas', async () => {
      const d = await k.getOrUndefined(['deployment', 'memcached-sample']);
      return d?.spec.replicas === 3 ? d : undefined;
    });
    assert.equal(deploy.spec.template.spec.containers[0].image, 'memcached:1.6-alpine');
    const svc = await waitFor('Service memcached-sample', () => k.getOrUndefined(['service', 'memcached-sample']));
    assert.equal(svc.spec.ports[0].port, 11211);
    notes.push(`Deployment and Service created in ${secs(t0)}`);

    t0 = Date.now();
    const selector = 'app.kubernetes.io/instance=memcached-sample';
    const mc = await waitFor('status.nodes to list 3 ready pods and Available=True', async () => {
      await k.markPodsReady(selector);
      const m = await k.json(['get', 'memcached', 'memcached-sample']);
      return m.status?.nodes?.length === 3 && condition(m, 'Available')?.status === 'True' ? m : undefined;
    }, 90_000);
    const pods = await k.json(['get', 'pods', '-l', selector]);
    assert.deepEqual([...mc.status.nodes].sort(), pods.items.map((p: any) => p.metadata.name).sort());
    assert.equal(mc.status.readyReplicas, 3);
    notes.push(`pods ready -> status.nodes and Available=True in ${secs(t0)}`);

    t0 = Date.now();
    // The scale subresource: kubectl scale (and a HorizontalPodAutoscaler) set spec.size.
    await k.kubectl(['scale', 'memcached', 'memcached-sample', '--replicas=4']);
    const scale = JSON.parse(await k.kubectl(['get', '--raw', '/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds/memcached-sample/scale']));
    assert.equal(scale.spec.replicas, 4);
    await waitFor('size 4 reflected in the Deployment, status and nodes', async () => {
      await k.markPodsReady(selector);
      const m = await k.json(['get', 'memcached', 'memcached-sample']);
      const d = await k.json(['get', 'deployment', 'memcached-sample']);
      return d.spec.replicas === 4 && m.status?.nodes?.length === 4 && m.status.ready === '4/4';
    }, 90_000);
    notes.push(`size 3 -> 4 converged in ${secs(t0)}`);
    notes.push(await k.assertQuiet({ parents: ['memcacheds/memcached-sample'], hooks: ['memcached/sync'] }));

    t0 = Date.now();
    await k.kubectl(['delete', 'memcached', 'memcached-sample', '--wait=true', '--timeout=60s']);
    await waitFor('Deployment and Service to be garbage-collected', async () => {
      const d = await k.getOrUndefined(['deployment', 'memcached-sample']);
      const s = await k.getOrUndefined(['service', 'memcached-sample']);
      return !d && !s;
    }, 90_000);
    notes.push(`delete -> children gone in ${secs(t0)}`);
    return notes;
  },
};

const podset: Scenario = {
  name: 'PodSet: three pods by ordinal, a deleted pod returns, kubectl scale to 1, printer columns',
  async run(k) {
    const notes: string[] = [];
    let t0 = Date.now();
    await k.kubectl(['apply', '-f', examples(k.repo, 'podset.yaml')]);
    const names = ['podset-sample-0', 'podset-sample-1', 'podset-sample-2'];
    const podsOf = async () =>
      (await k.json(['get', 'pods', '-l', 'app.kubernetes.io/instance=podset-sample'])).items.filter(
        (p: any) => !p.metadata.deletionTimestamp,
      );
    const pods = await waitFor('three pods', async () => {
      const items = await podsOf();
      return items.length === 3 ? items : undefined;
    });
    assert.deepEqual(pods.map((p: any) => p.metadata.name).sort(), names);
    for (const p of pods) {
      assert.equal(p.spec.containers[0].image, 'busybox');
      assert.deepEqual(p.spec.containers[0].command, ['sleep', '3600']);
      assert.equal(p.metadata.ownerReferences?.[0]?.kind, 'PodSet', 'owned directly by the PodSet');
    }
    notes.push(`three pods in ${secs(t0)}`);

    t0 = Date.now();
    const before = pods.find((p: any) => p.metadata.name === 'podset-sample-1').metadata.uid;
    await k.kubectl(['delete', 'pod', 'podset-sample-1', '--wait=true']);
    await waitFor('podset-sample-1 to come back as a new pod', async () => {
      const p = await k.getOrUndefined(['pod', 'podset-sample-1']);
      return p && p.metadata.uid !== before && !p.metadata.deletionTimestamp;
    });
    notes.push(`deleted pod recreated under its name in ${secs(t0)}`);

    t0 = Date.now();
    await k.markPodsReady('app.kubernetes.io/instance=podset-sample');
    await waitFor('status 3/3 ready', async () => (await k.json(['get', 'podset', 'podset-sample'])).status?.ready === '3/3');
    // Three pods under a RollingRecreate strategy: the case that looped ~100 times a second.
    notes.push(await k.assertQuiet({ parents: ['podsets/podset-sample'], hooks: ['podset/sync'] }));
    await k.kubectl(['scale', 'podset', 'podset-sample', '--replicas=1']);
    await waitFor('only podset-sample-0 left', async () => {
      const items = await podsOf();
      return items.length === 1 && items[0].metadata.name === 'podset-sample-0';
    });
    const ps = await waitFor('status to report one pod', async () => {
      const p = await k.json(['get', 'podset', 'podset-sample']);
      return p.status?.nodes?.length === 1 ? p : undefined;
    });
    assert.deepEqual(ps.status.nodes, ['podset-sample-0']);
    notes.push(`scale 3 -> 1 removed the two highest ordinals in ${secs(t0)}`);
    notes.push(await k.assertQuiet({ parents: ['podsets/podset-sample'], hooks: ['podset/sync'] }));
    const updated = condition(await k.json(['get', 'podset', 'podset-sample']), 'Updated');
    assert.ok(!updated || updated.status === 'True', `no stale Updated condition: ${JSON.stringify(updated)}`);

    const table = await k.kubectl(['get', 'podsets']);
    const header = table.split('\n')[0]!.split(/\s+/);
    assert.deepEqual(header, ['NAME', 'SIZE', 'READY', 'STATUS', 'AGE']);
    assert.match(table.split('\n')[1]!, /^podset-sample\s+1\s+1\/1\s+Available\s+\d+s/);
    notes.push(`kubectl get podsets: ${table.split('\n')[1]!.replace(/\s+/g, ' ')}`);
    await k.kubectl(['delete', 'podset', 'podset-sample', '--wait=true']);
    return notes;
  },
};

const mysql: Scenario = {
  name: 'MySQLCluster: seed YAML verbatim, password kept across resyncs and a hook restart, invalid spec deletes nothing',
  async run(k) {
    const notes: string[] = [];
    let t0 = Date.now();
    await k.kubectl(['apply', '-f', examples(k.repo, 'mysqlcluster.yaml')]);
    const sts = await waitFor('StatefulSet my-mysql', () => k.getOrUndefined(['statefulset', 'my-mysql']));
    assert.equal(sts.spec.replicas, 3);
    assert.equal(sts.spec.template.spec.containers[0].image, 'mysql:8.0');
    assert.equal(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage, '1Gi');
    const headless = await waitFor('headless Service', () => k.getOrUndefined(['service', 'my-mysql-headless']));
    assert.equal(headless.spec.clusterIP, 'None');
    const client = await waitFor('client Service', () => k.getOrUndefined(['service', 'my-mysql']));
    assert.equal(client.spec.ports[0].port, 3306);
    const secret = await waitFor('Secret', () => k.getOrUndefined(['secret', 'my-mysql-mysql']));
    const password = secret.data['root-password'];
    assert.ok(password && Buffer.from(password, 'base64').length >= 24);
    const read = await waitFor('read Service', () => k.getOrUndefined(['service', 'my-mysql-read']));
    assert.equal(client.spec.selector['statefulset.kubernetes.io/pod-name'], 'my-mysql-0', 'writes go to the primary');
    assert.equal(read.spec.selector['statefulset.kubernetes.io/pod-name'], undefined, 'reads go to every Ready member');
    assert.ok(secret.data['replication-password']);
    notes.push(`StatefulSet, three Services and Secret in ${secs(t0)}`);
    notes.push(await k.assertQuiet({ parents: ['mysqlclusters/my-mysql'], hooks: ['mysqlcluster/sync'] }));

    const uids = async () =>
      Promise.all(
        [['statefulset', 'my-mysql'], ['service', 'my-mysql'], ['service', 'my-mysql-headless'], ['secret', 'my-mysql-mysql']].map(
          async (args) => (await k.json(['get', ...args])).metadata.uid as string,
        ),
      );
    const before = await uids();

    // Resyncs: a label change on the parent makes Metacontroller call the hook again.
    t0 = Date.now();
    // At rest no child is written again: Metacontroller logs "Updating" for each child it updates.
    const updates = () => (k.readLog('metacontroller').match(/"Updating" parent="default\/my-mysql"/g) ?? []).length;
    await new Promise((r) => setTimeout(r, 3000)); // the creation's own syncs settle
    const updatesBefore = updates();
    for (let i = 1; i <= 3; i++) {
      await k.kubectl(['label', 'mysqlcluster', 'my-mysql', `resync=${i}`, '--overwrite']);
      await waitFor(`sync ${i} observed`, async () => {
        const log = k.readLog('metaops');
        return (log.match(/"hook":"mysqlcluster\/sync"/g) ?? []).length > i;
      });
    }
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(updates(), updatesBefore, 'no child updated by the resyncs of a settled cluster');
    assert.equal((await k.json(['get', 'secret', 'my-mysql-mysql'])).data['root-password'], password);

    // A restart of the hook server: nothing of the password lives in it.
    await k.stopHooks();
    await k.startHooks();
    await k.kubectl(['scale', 'mysqlcluster', 'my-mysql', '--replicas=2']);
    await waitFor('size 2 applied after the restart', async () => (await k.json(['get', 'statefulset', 'my-mysql'])).spec.replicas === 2);
    assert.equal((await k.json(['get', 'secret', 'my-mysql-mysql'])).data['root-password'], password);
    assert.deepEqual(await uids(), before, 'no child was recreated');
    notes.push(`password unchanged and no child updated over 3 resyncs, and a hook restart (${secs(t0)})`);

    // An invalid spec: the hook reports it and keeps every child as it is.
    t0 = Date.now();
    await k.kubectl(['patch', 'mysqlcluster', 'my-mysql', '--type=merge', '-p', '{"spec":{"version":"eight"}}']);
    const invalid = await waitFor('Ready=False InvalidSpec', async () => {
      const m = await k.json(['get', 'mysqlcluster', 'my-mysql']);
      const ready = condition(m, 'Ready');
      return ready?.reason === 'InvalidSpec' && ready.observedGeneration === m.metadata.generation ? m : undefined;
    });
    assert.match(condition(invalid, 'Ready').message, /spec\.version is "eight"/);
    const after = await k.json(['get', 'statefulset', 'my-mysql']);
    assert.equal(after.spec.template.spec.containers[0].image, 'mysql:8.0');
    assert.equal(after.spec.replicas, 2);
    assert.deepEqual(await uids(), before, 'no child deleted or recreated');
    notes.push(`invalid version -> InvalidSpec condition in ${secs(t0)}, all four children kept`);

    const table = await k.kubectl(['get', 'mysqlclusters']);
    assert.deepEqual(table.split('\n')[0]!.split(/\s+/), ['NAME', 'SIZE', 'READY', 'VERSION', 'STATUS', 'AGE']);
    notes.push(`kubectl get mysqlclusters: ${table.split('\n')[1]!.replace(/\s+/g, ' ')}`);
    await k.kubectl(['delete', 'mysqlcluster', 'my-mysql', '--wait=true']);
    return notes;
  },
};

const hookDown: Scenario = {
  name: 'Hook server down: a change made meanwhile is applied once it is back, nothing deleted meanwhile',
  async run(k) {
    const notes: string[] = [];
    await k.kubectl(['apply', '-f', examples(k.repo, 'podset.yaml')]);
    const selector = 'app.kubernetes.io/instance=podset-sample';
    const live = async () =>
      (await k.json(['get', 'pods', '-l', selector])).items.filter((p: any) => !p.metadata.deletionTimestamp);
    await waitFor('three pods', async () => (await live()).length === 3);
    const uids = (await live()).map((p: any) => p.metadata.uid).sort();

    await k.stopHooks();
    const t0 = Date.now();
    const errorsBefore = (k.readLog('metacontroller').match(/connection refused/g) ?? []).length;
    await k.kubectl(['patch', 'podset', 'podset-sample', '--type=merge', '-p', '{"spec":{"size":5}}']);
    // Wait until Metacontroller has tried the hook and failed, then check that nothing changed.
    await waitFor('Metacontroller to fail reaching the hook', async () =>
      (k.readLog('metacontroller').match(/connection refused/g) ?? []).length > errorsBefore,
    );
    assert.deepEqual((await live()).map((p: any) => p.metadata.uid).sort(), uids, 'no pod touched while the hook was down');
    notes.push(`Metacontroller saw the hook down after ${secs(t0)}; the three pods were untouched`);

    const t1 = Date.now();
    await k.startHooks();
    await waitFor('five pods once the hook is back', async () => (await live()).length === 5, 120_000);
    const now = (await live()).map((p: any) => p.metadata.uid);
    for (const uid of uids) assert.ok(now.includes(uid), 'the original pods are still there');
    notes.push(`change applied ${secs(t1)} after the hook came back (Metacontroller's retry back-off)`);
    notes.push(await k.assertQuiet({ parents: ['podsets/podset-sample'], hooks: ['podset/sync'] }));
    await k.kubectl(['delete', 'podset', 'podset-sample', '--wait=true']);
    return notes;
  },
};

const etcd: Scenario = {
  name: 'EtcdCluster: the seed etcd-cluster-cr.yaml applies verbatim; seed member pod and Services; columns; finalize',
  async run(k) {
    const notes: string[] = [];
    const t0 = Date.now();
    await k.kubectl(['apply', '-f', examples(k.repo, 'etcd-cluster-cr.yaml')]);
    // No kubelet runs etcd here, so the cluster stays at its bootstrap (the initial members start together);
    // the real membership changes are proven on real etcd in npm test.
    const pod = await waitFor('seed member pod', () => k.getOrUndefined(['pod', 'example-etcd-cluster-0']));
    const c = pod.spec.containers[0];
    assert.equal(c.image, 'quay.io/coreos/etcd:v3.1.10');
    assert.equal(pod.spec.hostname, 'example-etcd-cluster-0');
    assert.equal(pod.spec.subdomain, 'example-etcd-cluster');
    assert.equal(pod.spec.restartPolicy, 'Never');
    assert.equal(pod.metadata.labels.etcd_cluster, 'example-etcd-cluster');
    assert.equal(pod.metadata.annotations['etcd.version'], '3.1.10');
    assert.ok(c.command.includes('--initial-cluster-state=new'));
    const peerOf = (i: number) => `example-etcd-cluster-${i}=http://example-etcd-cluster-${i}.example-etcd-cluster.default.svc:2380`;
    assert.ok(c.command.includes(`--initial-cluster=${[0, 1, 2].map(peerOf).join(',')}`));
    const peer = await waitFor('peer Service', () => k.getOrUndefined(['service', 'example-etcd-cluster']));
    assert.equal(peer.spec.clusterIP, 'None');
    assert.equal(peer.spec.publishNotReadyAddresses, true);
    assert.deepEqual(peer.spec.ports.map((p: any) => p.port), [2379, 2380]);
    const client = await waitFor('client Service', () => k.getOrUndefined(['service', 'example-etcd-cluster-client']));
    assert.deepEqual(client.spec.ports.map((p: any) => p.port), [2379]);
    assert.notEqual(client.spec.clusterIP, 'None');
    const cluster = await waitFor('status reported', async () => {
      const e = await k.json(['get', 'etcdcluster', 'example-etcd-cluster']);
      return e.status?.phase ? e : undefined;
    });
    // The suite's kubelet marks pods Ready without running etcd. A Ready member means a formed cluster to the hook
    // (its readiness probe asks etcd), which it then cannot reach: Running / EtcdUnreachable, never a new
    // bootstrap. Before the pods are Ready: Creating / Bootstrapping. Which one is read depends on timing.
    const formed = cluster.status.phase === 'Running';
    assert.equal(cluster.status.phase, formed ? 'Running' : 'Creating');
    assert.equal(cluster.status.serviceName, 'example-etcd-cluster-client');
    assert.equal(condition(cluster, 'Available').reason, formed ? 'EtcdUnreachable' : 'Bootstrapping');
    notes.push(`seed pod and both Services in ${secs(t0)}; phase ${cluster.status.phase}`);
    notes.push(await k.assertQuiet({ parents: ['etcdclusters/example-etcd-cluster'], hooks: ['etcdcluster/sync'] }));

    const table = await k.kubectl(['get', 'etcdclusters']);
    assert.deepEqual(table.split('\n')[0]!.split(/\s+/), ['NAME', 'SIZE', 'READY', 'VERSION', 'AGE']);
    notes.push(`kubectl get etcdclusters: ${table.split('\n')[1]!.replace(/\s+/g, ' ')}`);
    const scale = JSON.parse(await k.kubectl(['get', '--raw', '/apis/etcd.database.coreos.com/v1beta2/namespaces/default/etcdclusters/example-etcd-cluster/scale']));
    assert.equal(scale.spec.replicas, 3, 'the scale subresource reads spec.size');
    await waitFor('status.selector in the scale subresource', async () =>
      JSON.parse(await k.kubectl(['get', '--raw', '/apis/etcd.database.coreos.com/v1beta2/namespaces/default/etcdclusters/example-etcd-cluster/scale'])).status.selector === 'app=etcd,etcd_cluster=example-etcd-cluster');
    // kubectl scale sets spec.size (the members follow as the membership rules allow; no kubelet runs etcd here).
    await k.kubectl(['scale', 'etcdcluster', 'example-etcd-cluster', '--replicas=5']);
    assert.equal((await k.json(['get', 'etcdcluster', 'example-etcd-cluster'])).spec.size, 5, 'kubectl scale set spec.size');
    const short = await k.kubectl(['get', 'etcd']);
    assert.match(short, /example-etcd-cluster/, 'short name etcd works');

    const t1 = Date.now();
    await k.kubectl(['delete', 'etcdcluster', 'example-etcd-cluster', '--wait=true', '--timeout=90s']);
    assert.equal(await k.getOrUndefined(['pod', 'example-etcd-cluster-0']), undefined);
    await waitFor('Services gone', async () => !(await k.getOrUndefined(['service', 'example-etcd-cluster'])) && !(await k.getOrUndefined(['service', 'example-etcd-cluster-client'])));
    notes.push(`finalize removed the pod and Services before the EtcdCluster went (${secs(t1)})`);
    return notes;
  },
};

const s3: Scenario = {
  name: 'S3 (systek.no/v1, the seed\'s API): kubectl apply -f s3.yaml makes the bucket and Secret; the finalizer holds the resource until cleanup is done',
  async run(k) {
    const notes: string[] = [];
    let t0 = Date.now();
    await k.kubectl(['apply', '-f', examples(k.repo, 's3.yaml')]);
    const ready = await waitFor('Ready=True', async () => {
      const r = await k.json(['get', 's3', 's3-bucket-v1']);
      return condition(r, 'Ready')?.status === 'True' ? r : undefined;
    });
    assert.equal(ready.apiVersion, 'systek.no/v1', '`kubectl get s3` is the seed\'s S3');
    assert.equal(ready.status.bucketName, 'systek-s3-bucket-v1');
    assert.match(ready.status.iamUser, /^metaops-default-s3-bucket-v1-[0-9a-f]{12}$/);
    assert.deepEqual(ready.status.createdBuckets, ['systek-s3-bucket-v1']);
    const kinds = (await k.kubectl(['api-resources', '--no-headers', '-o', 'name'])).split('\n').filter((n) => /^s3s?\./.test(n));
    assert.deepEqual(kinds, ['s3s.systek.no'], '`kubectl get s3` is unambiguous');
    const secret = await waitFor('credentials Secret', () => k.getOrUndefined(['secret', 's3-bucket-v1-credentials']));
    const data = (key: string) => Buffer.from(secret.data[key], 'base64').toString();
    assert.equal(data('BUCKET_NAME'), 'systek-s3-bucket-v1');
    assert.match(data('AWS_ACCESS_KEY_ID'), /^[A-Z0-9]{16,}$/);
    const table = await k.kubectl(['get', 's3']);
    assert.deepEqual(table.split('\n')[0]!.split(/\s+/), ['NAME', 'BUCKET', 'READY', 'AGE']);
    notes.push(`bucket, IAM user, policy, key and Secret in ${secs(t0)}; kubectl get s3: ${table.split('\n')[1]!.replace(/\s+/g, ' ')}`);
    notes.push(await k.assertQuiet({ parents: ['s3s/s3-bucket-v1'], hooks: ['s3/sync'] }));

    // An object in the bucket and deletionPolicy Delete without forceDelete: deletion must wait.
    const { S3Client, PutObjectCommand, HeadBucketCommand } = await import('@aws-sdk/client-s3');
    const client = new S3Client({
      endpoint: k.moto!.endpoint, region: k.moto!.region, forcePathStyle: true,
      credentials: { accessKeyId: data('AWS_ACCESS_KEY_ID'), secretAccessKey: data('AWS_SECRET_ACCESS_KEY') },
    });
    await client.send(new PutObjectCommand({ Bucket: 'systek-s3-bucket-v1', Key: 'report.csv', Body: 'a,b' }));
    await k.kubectl(['patch', 's3', 's3-bucket-v1', '--type=merge', '-p', '{"spec":{"deletionPolicy":"Delete"}}']);
    t0 = Date.now();
    await k.kubectl(['delete', 's3', 's3-bucket-v1', '--wait=false']);
    const held = await waitFor('the finalizer to hold the resource with BucketNotEmpty', async () => {
      const r = await k.getOrUndefined(['s3', 's3-bucket-v1']);
      return r?.metadata.deletionTimestamp && condition(r, 'Finalized')?.reason === 'BucketNotEmpty' ? r : undefined;
    });
    assert.ok(held.metadata.finalizers.length > 0);
    notes.push(`delete held by the finalizer: ${condition(held, 'Finalized').message}`);

    await k.kubectl(['patch', 's3', 's3-bucket-v1', '--type=merge', '-p', '{"spec":{"forceDelete":true}}']);
    await waitFor('the S3 resource to disappear', async () => !(await k.getOrUndefined(['s3', 's3-bucket-v1'])), 90_000);
    const admin = new S3Client({ endpoint: k.moto!.endpoint, region: k.moto!.region, forcePathStyle: true, credentials: k.moto!.admin });
    await assert.rejects(admin.send(new HeadBucketCommand({ Bucket: 'systek-s3-bucket-v1' })), 'the bucket is gone');
    notes.push(`forceDelete -> bucket emptied and deleted, user and policy removed, resource gone in ${secs(t0)}`);
    return notes;
  },
};

const podbuggertool: Scenario = {
  name: 'PodBuggerTool: matching pods get exactly one ephemeral container; others untouched; allowlist enforced',
  async run(k) {
    const notes: string[] = [];
    const pod = (name: string, ns: string, labels: Record<string, string>) =>
      JSON.stringify({
        apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      });
    await k.kubectl(['create', 'namespace', 'dbg']);
    await k.kubectl(['create', 'namespace', 'elsewhere']);
    await k.kubectl(['apply', '-f', '-'], pod('web-1', 'dbg', { app: 'web' }));
    await k.kubectl(['apply', '-f', '-'], pod('plain', 'dbg', { app: 'db' }));
    await k.kubectl(['apply', '-f', '-'], pod('web-other', 'elsewhere', { app: 'web' }));
    let t0 = Date.now();
    await k.kubectl(['apply', '-f', examples(k.repo, 'podbuggertool.yaml')]);
    const ephemeral = async (ns: string, name: string) =>
      ((await k.json(['get', 'pod', name, '-n', ns])).spec.ephemeralContainers ?? []) as any[];
    const injected = await waitFor('web-1 to get the debug container', async () => {
      const list = await ephemeral('dbg', 'web-1');
      return list.length > 0 ? list : undefined;
    });
    assert.equal(injected.length, 1);
    assert.equal(injected[0].name, 'debug-busybox-debugger');
    assert.equal(injected[0].image, 'busybox:1.36');
    assert.deepEqual(injected[0].securityContext?.capabilities?.add, ['SYS_PTRACE']);
    notes.push(`existing matching pod injected ${secs(t0)} after the tool was created`);

    t0 = Date.now();
    await k.kubectl(['apply', '-f', '-'], pod('web-2', 'dbg', { app: 'web' }));
    await waitFor('a pod created later gets it too', async () => (await ephemeral('dbg', 'web-2')).length === 1);
    notes.push(`pod created later injected in ${secs(t0)}`);
    // The record is the container itself and the tool's status: no pod annotation is written.
    const annotations = (await k.json(['get', 'pod', 'web-2', '-n', 'dbg'])).metadata.annotations ?? {};
    assert.equal(Object.keys(annotations).filter((a) => a.startsWith('debug.metaops.dev/')).length, 0);
    // No controller watches every pod: the hook is only called about the tools, with the pods they select.
    const decorators = (await k.json(['get', 'decoratorcontrollers'])).items.map((d: any) => d.metadata.name);
    assert.ok(!decorators.includes('metaops-podbuggertool'), `no DecoratorController on pods: ${decorators}`);

    // Re-syncs add nothing: relabel to trigger syncs, then check once more.
    for (let i = 0; i < 3; i++) await k.kubectl(['label', 'pod', 'web-1', '-n', 'dbg', `resync=${i}`, '--overwrite']);
    const tool = await waitFor('tool status matched=2 injected=2', async () => {
      const t = await k.json(['get', 'pbt', 'busybox-debugger', '-n', 'dbg']);
      return t.status?.matched === 2 && t.status?.injected === 2 ? t : undefined;
    });
    assert.deepEqual([...tool.status.lastInjected].sort(), ['web-1', 'web-2']);
    assert.equal((await ephemeral('dbg', 'web-1')).length, 1, 're-syncs do not duplicate');
    assert.equal((await ephemeral('dbg', 'plain')).length, 0, 'an unlabelled pod is untouched');
    assert.equal((await ephemeral('elsewhere', 'web-other')).length, 0, 'a pod in another namespace is untouched');
    notes.push(
      await k.assertQuiet({
        namespace: 'dbg',
        parents: ['pods/web-1', 'pods/web-2', 'pods/plain', 'podbuggertools/busybox-debugger'],
        hooks: [{ hook: 'podbuggertool/sync', parents: 1 }],
      }),
    );
    const table = await k.kubectl(['get', 'pbt', '-n', 'dbg']);
    assert.deepEqual(table.split('\n')[0]!.split(/\s+/), ['NAME', 'IMAGE', 'MATCHED', 'INJECTED', 'AGE']);
    notes.push(`kubectl get pbt: ${table.split('\n')[1]!.replace(/\s+/g, ' ')}`);

    // An image outside the server's allowlist (busybox* here): a condition, and nothing injected.
    await k.kubectl(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'debug.metaops.dev/v1alpha1', kind: 'PodBuggerTool', metadata: { name: 'netshoot', namespace: 'dbg' },
      spec: { label: 'app=web', image: 'nicolaka/netshoot:latest', securityProfile: 'netadmin' },
    }));
    const refused = await waitFor('ImageNotAllowed', async () => {
      const t = await k.json(['get', 'pbt', 'netshoot', '-n', 'dbg']);
      return condition(t, 'Ready')?.reason === 'ImageNotAllowed' ? t : undefined;
    });
    assert.equal(refused.status.injected, 0);
    const syncs = () => (k.readLog('metaops').match(/"hook":"podbuggertool\/sync".*"name":"netshoot"/g) ?? []).length;
    const before = syncs();
    await k.kubectl(['label', 'pod', 'web-1', '-n', 'dbg', 'resync=after', '--overwrite']);
    await waitFor('the refused tool synced again after its pod changed', async () => syncs() > before);
    assert.deepEqual((await ephemeral('dbg', 'web-1')).map((c) => c.name), ['debug-busybox-debugger']);
    notes.push(`disallowed image refused: ${condition(refused, 'Ready').message}`);
    return notes;
  },
};

/**
 * Pod Security `restricted` (enforced by kube-apiserver's PodSecurity admission, on by default): the seeds'
 * resources applied in a namespace labelled to enforce it get their pods admitted.
 */
const restricted: Scenario = {
  name: 'Restricted namespace: the pods of the seeds\' Memcached and PodSet are admitted under Pod Security restricted',
  async run(k) {
    const notes: string[] = [];
    const ns = 'restricted';
    await k.kubectl(['create', 'namespace', ns]);
    await k.kubectl(['label', 'namespace', ns, 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/enforce-version=latest']);
    // The namespace refuses what `restricted` forbids (so the check below means something).
    await assert.rejects(
      k.kubectl(['apply', '-n', ns, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'root' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } })),
      /violates PodSecurity "restricted/,
    );
    const t0 = Date.now();
    await k.kubectl(['apply', '-n', ns, '-f', examples(k.repo, 'memcached.yaml'), '-f', examples(k.repo, 'podset.yaml')]);
    const running = async (selector: string) => (await k.json(['get', 'pods', '-n', ns, '-l', selector])).items.length;
    await waitFor('3 Memcached pods admitted (created by the ReplicaSet)', async () => (await running('app.kubernetes.io/instance=memcached-sample')) === 3, 90_000);
    await waitFor('3 PodSet pods admitted (created by Metacontroller)', async () => (await running('app.kubernetes.io/instance=podset-sample')) === 3, 90_000);
    notes.push(`Memcached and PodSet pods admitted under restricted in ${secs(t0)}`);
    notes.push(await k.assertQuiet({ namespace: ns, parents: ['memcacheds/memcached-sample', 'podsets/podset-sample'], hooks: ['memcached/sync', 'podset/sync'] }));
    await k.kubectl(['delete', 'namespace', ns, '--wait=false']);
    return notes;
  },
};

/**
 * Events and the etcd operands under Pod Security `restricted`: the seed EtcdCluster's member pods and a backup
 * Job's pod are admitted (no kubelet runs them here: admission is what is checked); a cluster that asks to run
 * as root is refused, and its status says so (PodsCreated=False, PodNotCreated) beside Metacontroller's SyncError;
 * an S3 resource whose bucket someone else made (in moto) fails, and `kubectl describe` shows the hook's Warning.
 */
const eventsRestrictedEtcd: Scenario = {
  name: 'Events and restricted etcd: member pods and a backup Job admitted under restricted; a refused pod in the status; an AWS failure in kubectl describe',
  async run(k) {
    const notes: string[] = [];
    const ns = 'restricted-etcd';
    await k.kubectl(['create', 'namespace', ns]);
    await k.kubectl(['label', 'namespace', ns, 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/enforce-version=latest']);
    const t0 = Date.now();
    // A cluster that asks for root (spec.pod.securityContext overrides the default): admission refuses its pod.
    await k.kubectl(['apply', '-n', ns, '-f', '-'], JSON.stringify({
      apiVersion: 'etcd.database.coreos.com/v1beta2', kind: 'EtcdCluster', metadata: { name: 'rooted' },
      spec: { size: 1, version: '3.5.17', pod: { securityContext: { runAsUser: 0, runAsNonRoot: false } } },
    }));
    // The seed cluster and a one-off backup of it.
    await k.kubectl(['apply', '-n', ns, '-f', examples(k.repo, 'etcd-cluster-cr.yaml')]);
    await k.kubectl(['apply', '-n', ns, '-f', '-'], JSON.stringify({
      apiVersion: 'etcd.database.coreos.com/v1beta2', kind: 'EtcdBackup', metadata: { name: 'once' },
      spec: { clusterName: 'example-etcd-cluster', storageType: 'S3', backupPolicy: { backupIntervalInSecond: 0 }, s3: { path: 'backups/example', awsSecret: 'aws' } },
    }));
    const pods = async (selector: string) => (await k.json(['get', 'pods', '-n', ns, '-l', selector])).items as any[];
    const members = await waitFor('3 member pods admitted under restricted', async () => {
      const list = await pods('etcd_cluster=example-etcd-cluster');
      return list.length === 3 ? list : undefined;
    }, 90_000);
    assert.deepEqual(members[0].spec.securityContext.seccompProfile, { type: 'RuntimeDefault' });
    assert.equal(members[0].spec.securityContext.runAsNonRoot, true);
    await waitFor('the backup Job\'s pod admitted under restricted', async () => (await pods('app.kubernetes.io/name=etcdbackup,app.kubernetes.io/instance=once')).length > 0, 90_000);
    notes.push(`3 etcd member pods and the backup Job's pod admitted under restricted in ${secs(t0)}`);

    // An AWS failure: the bucket exists in moto, made by someone else.
    const { S3Client, CreateBucketCommand } = await import('@aws-sdk/client-s3');
    const admin = new S3Client({ endpoint: k.moto!.endpoint, region: k.moto!.region, forcePathStyle: true, credentials: k.moto!.admin });
    await admin.send(new CreateBucketCommand({ Bucket: 'metaops-e2e-taken' }));
    await k.kubectl(['apply', '-n', ns, '-f', '-'], JSON.stringify({ apiVersion: 'systek.no/v1', kind: 'S3', metadata: { name: 'taken' }, spec: { bucketName: 'metaops-e2e-taken' } }));
    const taken = await waitFor('S3 Ready=False BucketAlreadyExists', async () => {
      const r = await k.json(['get', 's3', 'taken', '-n', ns]);
      return condition(r, 'Ready')?.reason === 'BucketAlreadyExists' ? r : undefined;
    });
    const described = await waitFor('the Warning in kubectl describe s3', async () => {
      const text = await k.kubectl(['describe', 's3', 'taken', '-n', ns]);
      return /Warning\s+BucketAlreadyExists\s+.*metaops/.test(text) ? text : undefined;
    });
    const line = described.split('\n').find((l) => /BucketAlreadyExists/.test(l) && /Warning/.test(l))!;
    notes.push(`kubectl describe s3 taken: ${line.trim().replace(/\s+/g, ' ')} (condition: ${condition(taken, 'Ready').message})`);

    // The refused pod: the status says so once it has been absent a minute; both events in describe.
    const rooted = await waitFor('EtcdCluster rooted: PodsCreated=False PodNotCreated', async () => {
      const r = await k.json(['get', 'etcdcluster', 'rooted', '-n', ns]);
      return condition(r, 'PodsCreated')?.reason === 'PodNotCreated' ? r : undefined;
    }, 150_000);
    assert.equal(condition(rooted, 'PodsCreated').status, 'False');
    assert.equal((await pods('etcd_cluster=rooted')).length, 0, 'no pod of the root cluster was admitted');
    const why = await waitFor('PodNotCreated and the refusal in kubectl describe etcdcluster', async () => {
      const text = await k.kubectl(['describe', 'etcdcluster', 'rooted', '-n', ns]);
      return /Warning\s+PodNotCreated/.test(text) && /violates PodSecurity/.test(text) ? text : undefined;
    });
    assert.match(why, /SyncError/, 'Metacontroller\'s own event carries the API server\'s refusal');
    notes.push(`refused pod reported ${secs(t0)} after the cluster was created: ${condition(rooted, 'PodsCreated').message.slice(0, 120)}...`);
    assert.deepEqual(rooted.status.memberList ?? [], [], 'no member');
    assert.equal(rooted.status.lastMemberIndex, 0, 'the refused bootstrap keeps its name (rooted-0), no new ordinal per sync');

    notes.push(await k.assertQuiet({
      namespace: ns,
      parents: ['etcdclusters/example-etcd-cluster', 'etcdclusters/rooted', 'etcdbackups/once', 's3s/taken'],
      hooks: [{ hook: 'etcdcluster/sync', parents: 2 }, { hook: 'etcdbackup/sync', parents: 1 }, { hook: 's3/sync', parents: 1 }],
    }));
    await k.kubectl(['delete', 's3', 'taken', '-n', ns, '--wait=true', '--timeout=60s']);
    await k.kubectl(['delete', 'namespace', ns, '--wait=false']);
    return notes;
  },
};

export const scenarios: Scenario[] = [memcached, podset, mysql, hookDown, etcd, s3, podbuggertool, restricted, eventsRestrictedEtcd];
