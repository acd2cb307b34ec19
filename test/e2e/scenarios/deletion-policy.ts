// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
//
// A PodSet or a Memcached being deleted keeps its pods' NetworkPolicy (`<name>-podset`, `<name>-memcached`) while its
// pods are still there (lib/policy-at-deletion.ts): their finalize deletes the pods (a Memcached's Deployment and
// Service), answers only the policy, and releases the parent once no pod is observed. The control plane has no
// kubelet: a pod carrying a finalizer of the scenario's own stands in for a pod in its grace period, or on a node
// that stopped reporting (Terminating until the finalizer is removed).
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import type { ControlPlane } from '../cluster.js';
import { condition, secs, type Scenario } from './common.js';

const HOLD = 'e2e.metaops.io/hold';
const ns = 'deletion-policy';

async function apply(k: ControlPlane, obj: unknown): Promise<void> {
  await k.kubectl(['apply', '-n', ns, '-f', '-'], JSON.stringify(obj));
}

/** Holds one pod of `selector` Terminating once deleted (a finalizer); returns its name. */
async function holdOnePod(k: ControlPlane, selector: string): Promise<string> {
  const pod = await waitFor(`a pod of ${selector}`, async () => {
    const items = (await k.json(['get', 'pods', '-n', ns, '-l', selector])).items as any[];
    return items.find((p) => !p.metadata.deletionTimestamp);
  });
  const name = pod.metadata.name as string;
  await k.kubectl([
    'patch',
    'pod',
    name,
    '-n',
    ns,
    '--type=merge',
    '-p',
    JSON.stringify({ metadata: { finalizers: [HOLD] } }),
  ]);
  return name;
}

async function release(k: ControlPlane, pod: string): Promise<void> {
  await k.kubectl(['patch', 'pod', pod, '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
}

/**
 * Deletes the parent while `pod` is held: the parent and its policy stay, the parent says which pod it waits for;
 * `others` (children besides the pods) are gone meanwhile. Released: the parent and its policy go.
 */
async function deleteWhileHeld(
  k: ControlPlane,
  o: { kind: string; name: string; policy: string; pod: string; others: string[][] },
): Promise<string[]> {
  const notes: string[] = [];
  const t0 = Date.now();
  await k.kubectl(['delete', o.kind, o.name, '-n', ns, '--wait=false']);
  const waiting = await waitFor(`${o.kind} ${o.name} to say it keeps ${o.policy} for ${o.pod}`, async () => {
    const p = await k.getOrUndefined(['-n', ns, o.kind, o.name]);
    const c = condition(p, 'Finalized');
    return c?.reason === 'KeepingNetworkPolicy' && String(c.message).includes(o.pod) ? p : undefined;
  });
  assert.ok(waiting.metadata.deletionTimestamp, `${o.kind} being deleted`);
  const pod = await k.getOrUndefined(['-n', ns, 'pod', o.pod]);
  assert.ok(pod?.metadata?.deletionTimestamp, `${o.pod} deleted by the finalize, held Terminating`);
  for (const other of o.others)
    await waitFor(`${other.join(' ')} deleted while the pod terminates`, async () =>
      (await k.getOrUndefined(['-n', ns, ...other])) ? undefined : true,
    );
  // Still there a while later: nothing but the pod's end releases it (within the 120 s bound).
  await new Promise((r) => setTimeout(r, 5000));
  assert.ok(
    await k.getOrUndefined(['-n', ns, 'networkpolicy', o.policy]),
    `${o.policy} kept while ${o.pod} terminates`,
  );
  assert.ok(
    await k.getOrUndefined(['-n', ns, o.kind, o.name]),
    `${o.kind} ${o.name} not released while ${o.pod} terminates`,
  );
  notes.push(`${o.kind}: ${o.policy} kept ${secs(t0)} while ${o.pod} terminated; Finalized=False KeepingNetworkPolicy`);
  const t1 = Date.now();
  await release(k, o.pod);
  await waitFor(`${o.kind} ${o.name} released once ${o.pod} is gone`, async () =>
    (await k.getOrUndefined(['-n', ns, o.kind, o.name])) ? undefined : true,
  );
  await waitFor(`${o.policy} gone with it`, async () =>
    (await k.getOrUndefined(['-n', ns, 'networkpolicy', o.policy])) ? undefined : true,
  );
  notes.push(`${o.kind}: released and ${o.policy} gone ${secs(t1)} after ${o.pod} ended`);
  return notes;
}

export const deletionPolicy: Scenario = {
  name: "Deletion keeps the pods' NetworkPolicy: a PodSet and a Memcached keep <name>-podset / <name>-memcached while a pod terminates",
  async run(k) {
    const notes: string[] = [];
    if (!(await k.getOrUndefined(['namespace', ns]))) await k.kubectl(['create', 'namespace', ns]);
    await apply(k, {
      apiVersion: 'apps.jicki.cn/v1alpha1',
      kind: 'PodSet',
      metadata: { name: 'npdel' },
      spec: { size: 2, image: 'busybox', command: ['sleep', '3600'] },
    });
    await waitFor('NetworkPolicy npdel-podset', () => k.getOrUndefined(['-n', ns, 'networkpolicy', 'npdel-podset']));
    await waitFor('two pods of the PodSet', async () => {
      const items = (await k.json(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/instance=npdel'])).items;
      return items.length === 2 ? items : undefined;
    });
    const held = await holdOnePod(k, 'app.kubernetes.io/name=podset,app.kubernetes.io/instance=npdel');
    const other = held === 'npdel-pod-0' ? 'npdel-pod-1' : 'npdel-pod-0';
    notes.push(
      ...(await deleteWhileHeld(k, {
        kind: 'podset',
        name: 'npdel',
        policy: 'npdel-podset',
        pod: held,
        others: [['pod', other]],
      })),
    );

    await apply(k, {
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name: 'npdel' },
      spec: { size: 1 },
    });
    await waitFor('NetworkPolicy npdel-memcached', () =>
      k.getOrUndefined(['-n', ns, 'networkpolicy', 'npdel-memcached']),
    );
    const mpod = await holdOnePod(k, 'app.kubernetes.io/name=memcached,app.kubernetes.io/instance=npdel');
    // Its pod listed among the related objects: the Memcached's status names it.
    await waitFor('the Memcached to list its pod', async () => {
      const m = await k.getOrUndefined(['-n', ns, 'memcached', 'npdel']);
      return (m?.status?.nodes ?? []).includes(mpod) ? m : undefined;
    });
    notes.push(
      ...(await deleteWhileHeld(k, {
        kind: 'memcached',
        name: 'npdel',
        policy: 'npdel-memcached',
        pod: mpod,
        others: [
          ['deployment', 'npdel'],
          ['service', 'npdel-memcached'],
        ],
      })),
    );
    await k.kubectl(['delete', 'namespace', ns, '--wait=false']);
    return notes;
  },
};
