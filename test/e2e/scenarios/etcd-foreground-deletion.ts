// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
//
// While a parent is deleted its pods run their grace period with the spec's image, and the NetworkPolicy that keeps
// them from the instance metadata service (an EtcdCluster's `<name>-members`, a PodSet's `<name>-podset`) must stay
// while a pod it selects is observed, however the parent is deleted. Deleted the default way (background), the
// parent's finalize keeps it (lib/policy-at-deletion.ts). Deleted with `kubectl delete --cascade=foreground`, the
// garbage collector deletes every child at once, whatever the finalize answers: the DecoratorController
// `metaops-pod-network-policy` (lib/policy-finalizer.ts) holds the policy Terminating (Metacontroller's finalizer)
// while a pod it selects is observed. The control plane has no kubelet: a pod bound to a node by hand stays
// Terminating for its grace period (30 s), and is ended by a forced delete; then the policy and the parent go
// (nothing waits for good). Before the decorator, the policy was gone 1.0 s after a foreground delete.
import assert from 'node:assert/strict';
import { waitFor, type ControlPlane } from '../cluster.js';
import { secs, type Scenario } from './common.js';

const NS = 'foreground-deletion';

interface Case {
  kind: string;
  cascade: 'background' | 'foreground';
  name: string;
  object: Record<string, unknown>;
  pod: string;
  policy: string;
}

const cases: Case[] = [
  ...(['background', 'foreground'] as const).map((cascade) => ({
    kind: 'etcdcluster',
    cascade,
    name: `fg-${cascade}`,
    object: {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdCluster',
      metadata: { name: `fg-${cascade}`, namespace: NS },
      spec: { size: 1, version: '3.5.0' },
    },
    pod: `fg-${cascade}-0`,
    policy: `fg-${cascade}-members`,
  })),
  {
    kind: 'podset',
    cascade: 'foreground',
    name: 'fgp',
    object: {
      apiVersion: 'apps.jicki.cn/v1alpha1',
      kind: 'PodSet',
      metadata: { name: 'fgp', namespace: NS },
      spec: { size: 1, image: 'busybox', command: ['sleep', '3600'] },
    },
    pod: 'fgp-pod-0',
    policy: 'fgp-podset',
  },
];

const state = (o: any) => (o ? (o.metadata.deletionTimestamp ? 'terminating' : 'present') : 'gone');

/** One case: made, its pod bound to a node, deleted with its cascade; what is seen for 20 s of the pod's grace. */
async function deleteWatching(k: ControlPlane, c: Case): Promise<{ without?: string; seen: string[]; notes: string }> {
  await k.kubectl(['apply', '-f', '-'], JSON.stringify(c.object));
  await waitFor(`${c.kind} pod`, () => k.getOrUndefined(['pod', '-n', NS, c.pod]));
  await waitFor(`${c.kind} NetworkPolicy`, () => k.getOrUndefined(['networkpolicy', '-n', NS, c.policy]));
  await waitFor(`${c.policy} carries Metacontroller's finalizer`, async () => {
    const p = await k.getOrUndefined(['networkpolicy', '-n', NS, c.policy]);
    return (p?.metadata.finalizers ?? []).includes('metacontroller.io/decoratorcontroller-metaops-pod-network-policy');
  });
  // The pod runs on a node (no scheduler here: bound by hand), so its deletion takes its grace period.
  const binding = {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: c.pod, namespace: NS },
    target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
  };
  await k.kubectl(
    ['create', '--raw', `/api/v1/namespaces/${NS}/pods/${c.pod}/binding`, '-f', '-'],
    JSON.stringify(binding),
  );
  const t0 = Date.now();
  await k.kubectl(['delete', c.kind, c.name, '-n', NS, `--cascade=${c.cascade}`, '--wait=false']);
  const seen: string[] = [];
  let without: string | undefined;
  // 20 s of the pod's 30 s grace period (no kubelet ends it here).
  while (Date.now() - t0 < 20_000) {
    const p = await k.getOrUndefined(['pod', '-n', NS, c.pod]);
    const policy = await k.getOrUndefined(['networkpolicy', '-n', NS, c.policy]);
    const parent = await k.getOrUndefined([c.kind, '-n', NS, c.name]);
    const what = `pod ${state(p)}, policy ${state(policy)}, ${c.kind} ${state(parent)}`;
    if (!seen.at(-1)?.endsWith(what)) seen.push(`${secs(t0)} ${what}`);
    if (p && !policy && without === undefined) without = `${secs(t0)} ${what}`;
    await new Promise((r) => setTimeout(r, 500));
  }
  // The pod ended as a kubelet would end it: then the policy goes, and the parent.
  const ended = Date.now();
  await k.kubectl(['delete', 'pod', c.pod, '-n', NS, '--grace-period=0', '--force', '--ignore-not-found']);
  await waitFor(
    `${c.policy} gone once its pod is`,
    async () => !(await k.getOrUndefined(['networkpolicy', '-n', NS, c.policy])),
    60_000,
  );
  const policyGone = secs(ended);
  await waitFor(`the ${c.kind} gone`, async () => !(await k.getOrUndefined([c.kind, '-n', NS, c.name])), 90_000);
  return {
    ...(without ? { without } : {}),
    seen,
    notes: `${c.kind} --cascade=${c.cascade}: ${seen.join('; ')}; pod ended: policy gone in ${policyGone}, ${c.kind} in ${secs(ended)}`,
  };
}

export const etcdForegroundDeletion: Scenario = {
  name: 'Foreground deletion: an EtcdCluster and a PodSet deleted with --cascade=foreground keep their pods NetworkPolicy while a pod runs its grace period',
  async run(k) {
    await k.kubectl(['create', 'namespace', NS]);
    const results: Array<{ c: Case; without?: string; seen: string[]; notes: string }> = [];
    for (const c of cases) results.push({ c, ...(await deleteWatching(k, c)) });
    await k.kubectl(['delete', 'namespace', NS, '--wait=false']);
    for (const r of results)
      assert.equal(
        r.without,
        undefined,
        `${r.c.kind} --cascade=${r.c.cascade}: a pod ran without its NetworkPolicy from ${r.without} (${r.seen.join('; ')})`,
      );
    return results.map((r) => r.notes);
  },
};
