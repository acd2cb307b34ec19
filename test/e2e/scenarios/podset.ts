// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { examples, secs, condition, type Scenario, workloadPolicySpec } from './common.js';

export const podset: Scenario = {
  name: 'PodSet: three pods <name>-pod-<ordinal>, a deleted pod returns, kubectl scale to 1, printer columns',
  async run(k) {
    const notes: string[] = [];
    let t0 = Date.now();
    await k.kubectl(['apply', '-f', examples(k.repo, 'podset.yaml')]);
    const names = ['podset-sample-pod-0', 'podset-sample-pod-1', 'podset-sample-pod-2'];
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
    // Their NetworkPolicy as the API server stores it: exactly what the hook answers (lib/network-policy.ts), so that
    // the quiet period below holds; it selects every pod of the PodSet.
    const policy = await waitFor('NetworkPolicy podset-sample-podset', () =>
      k.getOrUndefined(['networkpolicy', 'podset-sample-podset']),
    );
    assert.deepEqual(
      policy.spec,
      workloadPolicySpec({ 'app.kubernetes.io/name': 'podset', 'app.kubernetes.io/instance': 'podset-sample' }),
    );
    assert.equal(policy.metadata.ownerReferences?.[0]?.kind, 'PodSet', 'owned by the PodSet');

    t0 = Date.now();
    const before = pods.find((p: any) => p.metadata.name === 'podset-sample-pod-1').metadata.uid;
    await k.kubectl(['delete', 'pod', 'podset-sample-pod-1', '--wait=true']);
    await waitFor('podset-sample-pod-1 to come back as a new pod', async () => {
      const p = await k.getOrUndefined(['pod', 'podset-sample-pod-1']);
      return p && p.metadata.uid !== before && !p.metadata.deletionTimestamp;
    });
    notes.push(`deleted pod recreated under its name in ${secs(t0)}`);

    t0 = Date.now();
    await k.markPodsReady('app.kubernetes.io/instance=podset-sample');
    await waitFor(
      'status 3/3 ready',
      async () => (await k.json(['get', 'podset', 'podset-sample'])).status?.ready === '3/3',
    );
    // Three pods (under the RollingRecreate of old, the case that looped ~100 times a second on v1.5.20).
    notes.push(await k.assertQuiet({ parents: ['podsets/podset-sample'], hooks: ['podset/sync'] }));
    await k.kubectl(['scale', 'podset', 'podset-sample', '--replicas=1']);
    await waitFor('only podset-sample-pod-0 left', async () => {
      const items = await podsOf();
      return items.length === 1 && items[0].metadata.name === 'podset-sample-pod-0';
    });
    const ps = await waitFor('status to report one pod', async () => {
      const p = await k.json(['get', 'podset', 'podset-sample']);
      return p.status?.nodes?.length === 1 ? p : undefined;
    });
    assert.deepEqual(ps.status.nodes, ['podset-sample-pod-0']);
    notes.push(`scale 3 -> 1 removed the two highest ordinals in ${secs(t0)}`);
    notes.push(await k.assertQuiet({ parents: ['podsets/podset-sample'], hooks: ['podset/sync'] }));
    const updated = condition(await k.json(['get', 'podset', 'podset-sample']), 'Updated');
    assert.ok(!updated || updated.status === 'True', `no stale Updated condition: ${JSON.stringify(updated)}`);

    const table = await k.kubectl(['get', 'podsets']);
    const header = table.split('\n')[0]!.split(/\s+/);
    assert.deepEqual(header, ['NAME', 'SIZE', 'READY', 'UP-TO-DATE', 'STATUS', 'AGE']);
    assert.match(table.split('\n')[1]!, /^podset-sample\s+1\s+1\/1\s+1\s+Available\s+\d+s/);
    notes.push(`kubectl get podsets: ${table.split('\n')[1]!.replace(/\s+/g, ' ')}`);
    await k.kubectl(['delete', 'podset', 'podset-sample', '--wait=true']);
    return notes;
  },
};
