// An end-to-end scenario: a parent that names a StorageClass gets it among its related objects on both releases.
// MySQLCluster (`spec.storage.storageClassName`) and EtcdCluster (`spec.pod.persistentVolumeClaimSpec.storageClassName`)
// make no new claim until the class they name is seen (lib/storage-class.ts claimClassUnseen, `StorageClassNotSeen`),
// and customize asks for it by name (storageClassRule). On Metacontroller v4.17.2 a namespaced parent's rule for a
// cluster-scoped object was once never answered (a-tenant7's finding, 2026-11-30): the cluster waited for good.
import assert from 'node:assert/strict';
import { waitFor, type ControlPlane } from '../cluster.js';
import { condition, secs, type Scenario } from './common.js';

const NS = 'named-class';
const CLASS = 'named-fast';

export const namedStorageClass: Scenario = {
  name: 'named storage class: a MySQLCluster and an EtcdCluster naming an existing StorageClass make their claims of it',
  async run(k: ControlPlane) {
    const notes: string[] = [];
    await k.kubectl(['create', 'namespace', NS]);
    await k.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: CLASS },
        provisioner: 'ebs.csi.aws.com',
        volumeBindingMode: 'WaitForFirstConsumer',
      }),
    );
    const t0 = Date.now();
    await k.kubectl(
      ['apply', '-n', NS, '-f', '-'],
      JSON.stringify({
        apiVersion: 'database.example.com/v1alpha1',
        kind: 'MySQLCluster',
        metadata: { name: 'classdb', namespace: NS },
        spec: { size: 1, version: '8.0', storage: { size: '1Gi', storageClassName: CLASS } },
      }),
    );
    const sts = await waitFor(
      'StatefulSet classdb-mysql (the class seen by the hook)',
      () => k.getOrUndefined(['statefulset', 'classdb-mysql', '-n', NS]),
      60_000,
    );
    assert.equal(sts.spec.volumeClaimTemplates[0].spec.storageClassName, CLASS, 'the claim template names the class');
    const db = await k.json(['get', 'mysqlcluster', 'classdb', '-n', NS]);
    assert.equal(condition(db, 'ClaimsHeld')?.status ?? 'False', 'False', 'no claim held for a class not seen');
    notes.push(`MySQLCluster: StatefulSet with a claim template of class ${CLASS} in ${secs(t0)}`);

    // EtcdCluster: its member claims (made before their pods) name the class.
    const t1 = Date.now();
    await k.kubectl(
      ['apply', '-n', NS, '-f', '-'],
      JSON.stringify({
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdCluster',
        metadata: { name: 'classetcd', namespace: NS },
        spec: {
          size: 1,
          version: '3.5.17',
          pod: {
            persistentVolumeClaimSpec: {
              storageClassName: CLASS,
              accessModes: ['ReadWriteOnce'],
              resources: { requests: { storage: '1Gi' } },
            },
          },
        },
      }),
    );
    const claim = await waitFor(
      'the first member claim of EtcdCluster classetcd',
      async () =>
        ((await k.json(['get', 'persistentvolumeclaims', '-n', NS])).items as any[]).find((c) =>
          c.metadata.name.startsWith('classetcd-'),
        ),
      60_000,
    );
    assert.equal(claim.spec.storageClassName, CLASS, 'the member claim names the class');
    const etcd = await k.json(['get', 'etcdcluster', 'classetcd', '-n', NS]);
    assert.notEqual(condition(etcd, 'ClaimsHeld')?.reason, 'StorageClassNotSeen', 'no claim held for a class not seen');
    notes.push(`EtcdCluster: member claim ${claim.metadata.name} of class ${CLASS} in ${secs(t1)}`);
    return notes;
  },
};
