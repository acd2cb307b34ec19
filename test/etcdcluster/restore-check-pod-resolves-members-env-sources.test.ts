// A restore's check pod starts what the restored members need before any running member is dropped: besides their
// images, the Secrets' and ConfigMaps' values their etcd container takes (spec.pod.etcdEnv valueFrom secretKeyRef,
// configMapKeyRef). Its etcd-image step carries those references, so the kubelet resolves them as it will for the
// members (a Secret or key gone: CreateContainerConfigError, the check waits and is refused at its deadline); a
// check pod made for other references (the spec's etcdEnv edited since) is not the one asked for.
import t from 'tap';
import { restoreCheckPod, sameCheck } from '../../hooks/etcdcluster/restore.js';

const parent: any = {
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdCluster',
  metadata: { name: 'e', namespace: 'n', uid: 'u' },
  spec: {},
};
const source = { s3: { path: 'bucket/n/snap.db', awsSecret: 'aws' }, image: 'metaops:test' };
const checkPod = (etcdEnv: unknown[] | undefined): any =>
  restoreCheckPod(parent, { size: 3, version: '3.5.21', pod: etcdEnv ? { etcdEnv } : {} } as any, source, 'uid-r');
const step = (pod: any, name: string) => pod.spec.initContainers.find((c: any) => c.name === name);

const secret = { secretKeyRef: { name: 'etcd-tuning', key: 'quota' } };
const configMap = { configMapKeyRef: { name: 'etcd-conf', key: 'heartbeat', optional: true } };

t.test(
  "the check's etcd-image step takes the members' Secret and ConfigMap values, under names etcd does not read",
  async (t) => {
    const pod = checkPod([
      { name: 'ETCD_SNAPSHOT_COUNT', valueFrom: secret },
      { name: 'ETCD_LOG_LEVEL', value: 'warn' },
      { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'ETCD_HEARTBEAT_INTERVAL', valueFrom: configMap },
    ]);
    t.same(step(pod, 'etcd-image').env, [
      { name: 'METAOPS_ETCD_ENV_0', valueFrom: secret },
      { name: 'METAOPS_ETCD_ENV_3', valueFrom: configMap },
    ]);
    // Only the check's etcd, started as the restored members' will be (restore.ts etcdStartContainer), takes their
    // env as they take it: etcd reads its variables there as it will in the members.
    for (const c of [...pod.spec.initContainers, ...pod.spec.containers].filter((x: any) => x.name !== 'etcd-start'))
      t.notOk(
        (c.env ?? []).some((e: any) => e.name.startsWith('ETCD_')),
        `${c.name}: no ETCD_ variable (etcd --version reads none)`,
      );
    t.same(pod.spec.containers.find((c: any) => c.name === 'etcd-start').env, [
      { name: 'ETCDCTL_API', value: '3' },
      { name: 'ETCD_SNAPSHOT_COUNT', valueFrom: secret },
      { name: 'ETCD_LOG_LEVEL', value: 'warn' },
      { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'ETCD_HEARTBEAT_INTERVAL', valueFrom: configMap },
    ]);
  },
);

t.test('without such values the check pod is as before', async (t) => {
  t.equal(step(checkPod(undefined), 'etcd-image').env, undefined);
  t.equal(step(checkPod([{ name: 'ETCD_LOG_LEVEL', value: 'warn' }]), 'etcd-image').env, undefined);
});

t.test('a check pod made for other env sources is not the one asked for', async (t) => {
  const asked = checkPod([{ name: 'ETCD_SNAPSHOT_COUNT', valueFrom: secret }]);
  t.match(
    asked.metadata.annotations['etcd.metaops.io/check-env-sources'],
    /^[0-9a-f]{16}$/,
    'the references it was made with, recorded on it',
  );
  t.ok(sameCheck(asked, asked), 'the same');
  t.notOk(sameCheck(checkPod(undefined), asked), 'one made without them');
  t.notOk(
    sameCheck(
      checkPod([{ name: 'ETCD_SNAPSHOT_COUNT', valueFrom: { secretKeyRef: { name: 'other', key: 'quota' } } }]),
      asked,
    ),
    'one made for another Secret',
  );
  const before = checkPod(undefined);
  delete before.metadata.annotations['etcd.metaops.io/check-env-sources'];
  t.ok(sameCheck(before, checkPod(undefined)), 'one made before env sources were checked, when there are none');
});
