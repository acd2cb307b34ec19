// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane): issue 29, "no custom resource may
// reach past its namespace". Tenant A and tenant B each own a namespace and may create custom resources there, nothing
// else. Tenant B runs an EtcdCluster (here: the simplest kind that shows it, a PodSet) named `orders`. Tenant A creates
// one of the same kind and name in its own namespace, first.
// - v4.17.2 (what users run) keeps customize answers per parent uid and generation: tenant B's parent is served as if
//   A's did not exist (its children made, its status written).
// - v1.5.20 keeps them per parent name and generation alone (pkg/controller/common/customize/manager.go L73-91), and
//   no answer can be right for both parents: every kind whose children's names are checked asks for objects by name,
//   and a rule by name either names the namespace (refused for the other parent, L332-334) or lists every namespace
//   (L282-287, L335): docs/metacontroller.md and test/operators/customize-answer-shared-by-name.test.ts. What the
//   scenario holds there: tenant B's parent is refused, in plain words on its own object (Metacontroller's SyncError
//   Event naming the two namespaces), nothing is made in B's namespace from A's answer, A's parent keeps working,
//   and B's parent is served once its generation differs from A's (the documented workaround: a spec change).
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { secs, type Scenario } from './common.js';

const A = 'tenant-a-same-name';
const B = 'tenant-b-same-name';
const NAME = 'orders';

export const tenantSameName: Scenario = {
  name: 'Tenants: a parent of tenant A named as tenant B\u2019s (v4: B\u2019s served as if A\u2019s did not exist; v1.5.20: B\u2019s refused in plain words, nothing made, served once its generation differs)',
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
    if (!k.mc.features.customizeByUid) {
      // v1.5.20: A's answer, kept under the name `orders` at generation 1, is handed to B's parent and refused.
      const refusal = await waitFor(
        `the SyncError Event of tenant B's PodSet`,
        async () => {
          const events = await k.json(['get', 'events', '-n', B, '--field-selector', `involvedObject.name=${NAME}`]);
          return events.items.find(
            (e: any) =>
              e.reason === 'SyncError' &&
              String(e.message).includes(
                `requested related object namespace ${A} differs from parent object namespace ${B}`,
              ),
          );
        },
        60_000,
      );
      notes.push(
        `v1.5.20: tenant B's PodSet refused in ${secs(t0)}: ${refusal.type} ${refusal.reason} "${refusal.message}"`,
      );
      assert.equal((await podsOf(B)).length, 0, "nothing is made in B's namespace from A's answer");
      assert.equal((await k.json(['get', 'podset', NAME, '-n', B])).status, undefined, "B's status is not written");
      assert.equal((await podsOf(A)).length, 1, "tenant A's PodSet keeps its pod");
      // The workaround: a spec change gives B's parent a generation of its own, whose answer is asked for.
      t0 = Date.now();
      await k.kubectl(['patch', 'podset', NAME, '-n', B, '--type=merge', '-p', JSON.stringify({ spec: { size: 2 } })]);
      await waitFor(`tenant B's pods at generation 2`, async () => ((await podsOf(B)).length === 2 ? true : undefined));
      notes.push(`v1.5.20: tenant B's PodSet served ${secs(t0)} after a spec change (generation 2, A's at 1)`);
      await waitFor(`tenant A's pod still there`, async () => ((await podsOf(A)).length === 1 ? true : undefined));
      for (const ns of [A, B]) await k.kubectl(['delete', 'namespace', ns, '--wait=false']);
      return notes;
    }
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
