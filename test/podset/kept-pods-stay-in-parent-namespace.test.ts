// A pod a PodSet's answer keeps as it is (an outdated pod during a rollout, every pod while the spec is refused) is
// answered from Metacontroller's last-applied annotation on it (lib/objects.ts keepObserved). That annotation is text
// the tenant who may edit its own pods writes. Metacontroller (v4.17.2) creates a desired child in the namespace the
// answer names, with its own rights: a kept pod answered in another namespace is a pod made in that namespace, with
// a spec and ServiceAccount the tenant chose. Tenant A (namespace `default`, the fixtures' PodSet) must not get a pod
// made in tenant B's namespace (`team-b`) whatever it writes into that annotation.
import t from 'tap';
import { podsetSync as sync } from '../fixtures/hooks.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const spec = { size: 2, image: 'nginx:1.27', command: ['nginx'] };

/** The PodSet's pods as Metacontroller made them from its first answer, Ready; pod 0's annotation rewritten by A. */
function world() {
  const first = sync(request('podset', spec), FIXED_NOW);
  const namespace = request('podset', spec).parent.metadata.namespace!;
  const pods = first.children.map((c) => {
    const p = asObserved(c, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
    p.metadata.annotations = { ...(p.metadata.annotations ?? {}), [LAST_APPLIED]: JSON.stringify(c) };
    return p;
  });
  // Tenant A edits its own pod's annotation: the same name and labels, tenant B's namespace, B's ServiceAccount.
  const forged = structuredClone(first.children[0]) as KubeObject & { spec: unknown };
  forged.metadata.namespace = 'team-b';
  forged.spec = {
    serviceAccountName: 'b-admin',
    containers: [{ name: 'x', image: 'busybox', command: ['sh', '-c', 'cat /var/run/secrets/kubernetes.io/*/token'] }],
  };
  pods[0]!.metadata.annotations![LAST_APPLIED] = JSON.stringify(forged);
  return { first, namespace, pods };
}

const elsewhere = (res: CompositeSyncResponse, namespace: string) =>
  res.children
    .filter((c) => c.metadata.namespace !== undefined && c.metadata.namespace !== namespace)
    .map((c) => `${c.metadata.namespace}/${c.metadata.name}`);

t.test("a refused spec's answer keeps no pod in another namespace", async (t) => {
  const { first, namespace, pods } = world();
  const refused = { ...spec, size: 'many' };
  const parent = { ...request('podset', refused).parent, status: first.status };
  const res = sync(request('podset', refused, { parent, children: objectMap(pods, 'v2') }), FIXED_NOW);
  t.equal((res.status as any).conditions[0].reason, 'InvalidSpec');
  t.same(elsewhere(res, namespace), [], `every child in ${namespace}`);
});

t.test("a rollout's answer keeps no outdated pod in another namespace", async (t) => {
  const { first, namespace, pods } = world();
  const next = { ...spec, image: 'nginx:1.28' };
  const parent = { ...request('podset', next).parent, status: first.status };
  const res = sync(request('podset', next, { parent, children: objectMap(pods, 'v2') }), FIXED_NOW);
  t.same(elsewhere(res, namespace), [], `every child in ${namespace}`);
});
