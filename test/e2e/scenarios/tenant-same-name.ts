// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane): issue 29, "no custom resource may
// reach past its namespace". Tenant A and tenant B each own a namespace and may create custom resources there, nothing
// else. Tenant B runs an EtcdCluster (here: the simplest kind that shows it, a PodSet) named `orders`. Tenant A creates
// one of the same kind and name in its own namespace, first. Tenant B's parent must still be served: its children made,
// its status written. On Metacontroller v1.5.20 (which metaops ships controllers for and tests) the customize answers
// are cached by the parent's name and generation alone (docs/metacontroller.md), and every answer metaops gives names
// the parent's namespace, which v1.5.20 refuses for the other parent: tenant A's object keeps tenant B's from ever
// being synced (no pod, no status, a finalizer never removed), for as long as their generations agree; tenant A can
// follow tenant B's generation by editing its own spec.
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { secs, type Scenario } from './common.js';

const A = 'tenant-a-same-name';
const B = 'tenant-b-same-name';
const NAME = 'orders';

export const tenantSameName: Scenario = {
  name: 'Tenants: a parent of tenant A named as tenant B\u2019s keeps B\u2019s from nothing (B\u2019s children made, its status written)',
  async run(k) {
    const notes: string[] = [];
    for (const ns of [A, B]) await k.kubectl(['create', 'namespace', ns]);
    const podset = (ns: string) => ({
      apiVersion: 'apps.jicki.cn/v1alpha1',
      kind: 'PodSet',
      metadata: { name: NAME, namespace: ns },
      spec: { size: 1 },
    });
    const podsOf = async (ns: string) =>
      (await k.json(['get', 'pods', '-n', ns, '-l', `app.kubernetes.io/instance=${NAME}`])).items.filter(
        (p: any) => !p.metadata.deletionTimestamp,
      );
    // Tenant A first: its own parent works.
    let t0 = Date.now();
    await k.kubectl(['apply', '-f', '-'], JSON.stringify(podset(A)));
    await waitFor(`tenant A's pod`, async () => ((await podsOf(A)).length === 1 ? true : undefined));
    notes.push(`tenant A's PodSet served in ${secs(t0)}`);
    // Then tenant B, in its own namespace, under the same name: it must be served as if A's did not exist.
    t0 = Date.now();
    await k.kubectl(['apply', '-f', '-'], JSON.stringify(podset(B)));
    let served = true;
    try {
      await waitFor(`tenant B's pod`, async () => ((await podsOf(B)).length === 1 ? true : undefined), 60_000);
    } catch {
      served = false;
    }
    const b = await k.json(['get', 'podset', NAME, '-n', B]);
    const events = await k.kubectl(['get', 'events', '-n', B, '--field-selector', `involvedObject.name=${NAME}`]);
    for (const ns of [A, B]) await k.kubectl(['delete', 'namespace', ns, '--wait=false']);
    assert.ok(
      served,
      `tenant B's PodSet ${B}/${NAME} made no pod in 60 s while tenant A's ${A}/${NAME} exists: status ${JSON.stringify(b.status ?? null).slice(0, 300)}; events: ${events.slice(0, 600)}`,
    );
    notes.push(`tenant B's PodSet served in ${secs(t0)}`);
    return notes;
  },
};
