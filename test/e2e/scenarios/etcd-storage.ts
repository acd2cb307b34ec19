// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane): an EtcdCluster with storage, as
// Metacontroller really sends it. A member's pod is answered only once its claim is observed as the cluster's own
// (docs/etcdcluster.md: the claim first, the pod at the next sync), which depends on Metacontroller sending the claims'
// group, empty before the first claim exists: this runs that path on both releases.
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { secs, type Scenario } from './common.js';

const NS = 'etcd-storage';
const NAME = 'vol';

interface Item {
  metadata: { name: string; uid: string; ownerReferences?: Array<{ uid: string; controller?: boolean }> };
  spec?: { volumes?: Array<{ persistentVolumeClaim?: { claimName?: string } }> };
}

export const etcdStorage: Scenario = {
  name: 'EtcdCluster with persistentVolumeClaimSpec: each member claim is made before its pod, every pod runs on the claim of its name, quiet at rest',
  async run(k) {
    const notes: string[] = [];
    await k.kubectl(['create', 'namespace', NS]);
    const t0 = Date.now();
    await k.kubectl(
      ['apply', '-n', NS, '-f', '-'],
      JSON.stringify({
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdCluster',
        metadata: { name: NAME },
        spec: {
          size: 3,
          version: '3.5.17',
          pod: {
            persistentVolumeClaimSpec: {
              accessModes: ['ReadWriteOnce'],
              resources: { requests: { storage: '1Gi' } },
            },
          },
        },
      }),
    );
    const cluster = await k.json(['get', 'etcdcluster', NAME, '-n', NS]);
    const uid = cluster.metadata.uid as string;
    const ownedByCluster = (o: Item) =>
      (o.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid);
    const members = [0, 1, 2].map((i) => `${NAME}-${i}`);
    // Pods are listed before claims at every look: a pod seen without its claim in the later list was made before
    // its claim (claims are not deleted here).
    let looks = 0;
    let podsFirstSeen = 0;
    const madeBeforeClaim = new Set<string>();
    const { pods, claims } = await waitFor(
      'three member pods, each on its own claim',
      async () => {
        looks++;
        const pods: Item[] = (await k.json(['get', 'pods', '-n', NS])).items;
        const claims: Item[] = (await k.json(['get', 'persistentvolumeclaims', '-n', NS])).items;
        const claimNames = new Set(claims.filter(ownedByCluster).map((c) => c.metadata.name));
        for (const p of pods) {
          if (!podsFirstSeen) podsFirstSeen = Date.now();
          if (!claimNames.has(p.metadata.name)) madeBeforeClaim.add(p.metadata.name);
        }
        const names = pods.map((p) => p.metadata.name).sort();
        return JSON.stringify(names) === JSON.stringify(members) ? { pods, claims } : undefined;
      },
      90_000,
    );
    assert.deepEqual([...madeBeforeClaim], [], 'no member pod is seen before its claim is the cluster`s');
    for (const p of pods) {
      assert.ok(ownedByCluster(p), `pod ${p.metadata.name} is the cluster's`);
      const volumes = (p.spec?.volumes ?? []).filter((v) => v.persistentVolumeClaim);
      assert.deepEqual(
        volumes.map((v) => v.persistentVolumeClaim!.claimName),
        [p.metadata.name],
        `pod ${p.metadata.name} mounts the claim of its name, and no other`,
      );
    }
    assert.deepEqual(
      claims
        .filter(ownedByCluster)
        .map((c) => c.metadata.name)
        .sort(),
      members,
      'one claim per member, each the cluster`s',
    );
    notes.push(
      `3 claims, then 3 member pods on them in ${secs(t0)} (${looks} looks, no pod ever seen before its claim; first pod after ${((podsFirstSeen - t0) / 1000).toFixed(1)}s)`,
    );
    notes.push(await k.assertQuiet({ namespace: NS, parents: [`etcdclusters/${NAME}`], hooks: ['etcdcluster/sync'] }));
    await k.kubectl(['delete', 'etcdcluster', NAME, '-n', NS, '--wait=true', '--timeout=90s']);
    await k.kubectl(['delete', 'namespace', NS, '--wait=false']);
    return notes;
  },
};
