// A restored member needs its restore's awsSecret for its first fetch only (issue 30.1 with 30.5): afterwards a tenant
// deletes it, and the member's pod keeps its restore steps and the Secret's volume for life. The volume is optional,
// so that a recreated sandbox (a node reboot) starts the steps that find the data kept (main/cli.ts) instead of
// waiting on a mount for ever; a first fetch without the Secret fails naming it (etcdbackup/credentials.test.ts,
// "a restored member's fetch step run again ..."). The real case: etcd-restored-members-restart-without-restore-
// secret-real.test.ts.
import t from 'tap';
import { memberPod } from '../../hooks/etcdcluster/members.js';
import { restoreCheckPod } from '../../hooks/etcdcluster/restore.js';
import { s3Access } from '../../hooks/etcdcommon/index.js';

const parent: any = {
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdCluster',
  metadata: { name: 'web', namespace: 'team-a', uid: 'uid-web' },
  spec: { size: 1, version: '3.5.17' },
};
const source = { s3: { path: 'bucket/team-a/snap.db', awsSecret: 'aws' }, image: 'metaops:test' };

t.test("a restored member's restore Secret volume is optional; its mount and steps are as before", async (t) => {
  const pod = memberPod({
    parent,
    spec: parent.spec,
    name: 'web-0',
    initialCluster: '',
    state: 'new',
    restore: source,
  })['spec'] as any;
  t.same(
    pod.volumes.filter((v: any) => v.secret),
    [{ name: 'aws', secret: { secretName: 'aws', optional: true } }],
    'the only Secret volume, optional',
  );
  const fetch = pod.initContainers.find((c: any) => c.name === 'fetch-snapshot');
  t.match(fetch.volumeMounts, [{ name: 'etcd-data' }, { name: 'aws', mountPath: '/etc/metaops/aws', readOnly: true }]);
  t.ok(fetch.args.includes('--aws-dir'), 'the fetch reads only that directory');
  t.ok(
    fetch.env.every((e: any) => !e.valueFrom || e.valueFrom.secretKeyRef.optional === true),
    'each key optional too',
  );
  const check = restoreCheckPod(parent, parent.spec, source, 'uid-r')['spec'] as any;
  t.same(check.volumes[0], { name: 'aws', secret: { secretName: 'aws', optional: true } }, 'the check: optional too');
});

t.test('a member without a restore, or a restore without a Secret, mounts none', async (t) => {
  const plain = memberPod({ parent, spec: parent.spec, name: 'web-1', initialCluster: '', state: 'existing' })[
    'spec'
  ] as any;
  t.same(
    plain.volumes.filter((v: any) => v.secret),
    [],
  );
  const ambient = memberPod({
    parent,
    spec: parent.spec,
    name: 'web-0',
    initialCluster: '',
    state: 'new',
    restore: { s3: { path: 'b/k' }, image: 'i' },
  })['spec'] as any;
  t.same(
    ambient.volumes.filter((v: any) => v.secret),
    [],
  );
  // The backup Job's volume stays required (its pod runs once, with the Secret it is given).
  t.same(s3Access({ awsSecret: 'aws' }).volumes, [{ name: 'aws', secret: { secretName: 'aws' } }]);
});
