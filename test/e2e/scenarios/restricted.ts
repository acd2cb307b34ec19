// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { examples, secs, type Scenario } from './common.js';

export const restricted: Scenario = {
  name: "Restricted namespace: the pods of the seeds' Memcached and PodSet are admitted under Pod Security restricted",
  async run(k) {
    const notes: string[] = [];
    const ns = 'restricted';
    await k.kubectl(['create', 'namespace', ns]);
    await k.kubectl([
      'label',
      'namespace',
      ns,
      'pod-security.kubernetes.io/enforce=restricted',
      'pod-security.kubernetes.io/enforce-version=latest',
    ]);
    // The namespace refuses what `restricted` forbids (so the check below means something).
    await assert.rejects(
      k.kubectl(
        ['apply', '-n', ns, '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'root' },
          spec: { containers: [{ name: 'c', image: 'busybox' }] },
        }),
      ),
      /violates PodSecurity "restricted/,
    );
    const t0 = Date.now();
    await k.kubectl([
      'apply',
      '-n',
      ns,
      '-f',
      examples(k.repo, 'memcached.yaml'),
      '-f',
      examples(k.repo, 'podset.yaml'),
    ]);
    const running = async (selector: string) => (await k.json(['get', 'pods', '-n', ns, '-l', selector])).items.length;
    await waitFor(
      '3 Memcached pods admitted (created by the ReplicaSet)',
      async () => (await running('app.kubernetes.io/instance=memcached-sample')) === 3,
      90_000,
    );
    await waitFor(
      '3 PodSet pods admitted (created by Metacontroller)',
      async () => (await running('app.kubernetes.io/instance=podset-sample')) === 3,
      90_000,
    );
    notes.push(`Memcached and PodSet pods admitted under restricted in ${secs(t0)}`);
    notes.push(
      await k.assertQuiet({
        namespace: ns,
        parents: ['memcacheds/memcached-sample', 'podsets/podset-sample'],
        hooks: ['memcached/sync', 'podset/sync'],
      }),
    );
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
