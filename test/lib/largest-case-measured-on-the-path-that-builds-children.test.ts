// Issue 29, "Done when": "The memory bound holds: for each kind the largest object the CRD accepts, and two at once,
// answered under the Deployment's limit (measured RSS in docs/operating.md)". bench/memory.ts and
// test/lib/budget.test.ts take each kind's largest case from test/<folder>/largest.ts (fixtures/worst.ts) under
// WORST_SETTINGS / WORST_ENV. For the measurement to say anything about the bound, the largest case must be
// answered on the path that builds the kind's children (its Job/CronJob, its restore record, its injection), not
// refused before any work: a refused object costs nothing, so the row in docs/operating.md would measure the refusal.
// Each largest case therefore carries the server settings that let it act (the endpoints on the backup allowlists,
// the tool's image on the debug allowlist, the author check's stand-in), as EtcdCluster's allows `*` prefixes.
import t from 'tap';
import { operators } from '../../main/operators.js';
import type { DebugPolicy } from '../../hooks/podbuggertool/match.js';
import { jsonBytes } from '../../lib/budget.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import { FakeApi, inject, pod, status, tool } from '../fixtures/pbt.js';
import {
  LONGEST_NAME,
  LONGEST_NAMESPACE,
  longestLabelKey,
  readyOf,
  settledRequest,
  WORST_SETTINGS,
  WORST_SPECS,
  worstAnswer,
  worstParent,
} from '../fixtures/worst.js';

const composites = operators.filter((d): d is CompositeHookDefinition => d.type === 'composite');
/** Reasons that mean the object was refused before its children were built (nothing of its size was worked on). */
const REFUSALS = new Set([
  'NotAllowed',
  'ProfileNotAllowed',
  'ImageNotAllowed',
  'InvalidSpec',
  'NamespaceExcluded',
  'AuthorNotAllowed',
  'AuthorUnverified',
]);

for (const kind of ['etcdbackup', 'etcdrestore', 'podbuggertool']) {
  t.test(`${kind}: its largest case is answered past the server's refusals`, async (t) => {
    const def = composites.find((d) => d.name === kind)!;
    const res = await worstAnswer(def, worstParent(kind, structuredClone(WORST_SPECS[kind]!)));
    const ready = readyOf(res);
    t.notOk(
      REFUSALS.has(ready?.reason),
      `the largest ${kind} is answered ${ready?.reason}: ${String(ready?.message ?? '').slice(0, 160)}`,
    );
  });
}

t.test('etcdbackup: the largest case builds its Job or CronJob, with every field of its spec', async (t) => {
  const def = composites.find((d) => d.name === 'etcdbackup')!;
  const spec = structuredClone(WORST_SPECS['etcdbackup']!) as any;
  const res = await worstAnswer(def, worstParent('etcdbackup', structuredClone(spec)));
  const kinds = (res.children ?? []).map((c: any) => c.kind);
  t.ok(kinds.includes('CronJob') || kinds.includes('Job'), `children: ${JSON.stringify(kinds)}`);
  const text = JSON.stringify(res.children);
  // Its path, S3 endpoint, Secrets and every etcd endpoint are in what the child runs.
  for (const field of [spec.s3.path, spec.s3.endpoint, spec.s3.awsSecret, spec.clientTLSSecret, ...spec.etcdEndpoints])
    t.ok(text.includes(field), `the child carries ${field.slice(0, 40)}...`);
});

t.test('etcdrestore: the largest case waits for its EtcdCluster, its source not refused', async (t) => {
  // An EtcdRestore builds no child of its own: the EtcdCluster hook acts on it. Its answer is its record (status).
  const def = composites.find((d) => d.name === 'etcdrestore')!;
  const res = await worstAnswer(def, worstParent('etcdrestore', structuredClone(WORST_SPECS['etcdrestore']!)));
  t.equal(readyOf(res)?.reason, 'ClusterNotFound');
  t.equal(res.resyncAfterSeconds !== undefined, true, 'looked at again: not refused for good');
});

t.test('podbuggertool: the largest tool adds its ephemeral container, whole, to a pod it selects', async (t) => {
  const spec = structuredClone(WORST_SPECS['podbuggertool']!) as any;
  const policy = WORST_SETTINGS['policy'] as DebugPolicy;
  // A pod with every label the selector asks for, and the tool's target container.
  const labels = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [longestLabelKey(i), 'v'.repeat(63)]));
  const target = pod(
    'p',
    labels,
    { containers: [{ name: spec.targetContainerName, image: 'nginx' }] },
    LONGEST_NAMESPACE,
  );
  const api = new FakeApi().put(tool(LONGEST_NAME, spec, LONGEST_NAMESPACE)).put(target);
  await inject(api, [LONGEST_NAMESPACE, 'p'], { policy });
  t.equal(api.patches.length, 1, 'one PATCH of the pod’s ephemeral containers');
  const [container] = api.patches[0]?.containers ?? [];
  t.match(container, {
    image: spec.image,
    command: spec.command,
    args: spec.args,
    env: spec.env,
    targetContainerName: spec.targetContainerName,
    securityContext: { runAsNonRoot: true, runAsUser: spec.runAsUser, capabilities: { drop: ['ALL'] } },
  });
  // The tool's own hook counts it there.
  const res = await status(api, [LONGEST_NAMESPACE, LONGEST_NAME], { policy });
  t.match((res.status as any)?.injected, 1, `status: ${JSON.stringify(res.status).slice(0, 300)}`);
});

t.test('the request measured is the one with every child made, and its answer is within the estimate', async (t) => {
  // bench/memory.ts sends each kind's largest parent with its children as observed once they stop growing: a PodSet
  // makes its pods in bursts (32 first), an EtcdCluster its first member before the others; the first answer fed
  // back once is a request of a fraction of the children.
  const count = (children: object | undefined, type: string) =>
    Object.keys((children as Record<string, object> | undefined)?.[type] ?? {}).length;
  const podset = composites.find((d) => d.name === 'podset')!;
  const parent = worstParent('podset', structuredClone(WORST_SPECS['podset']!));
  const settled = await settledRequest(podset, parent);
  t.equal(count(settled.children, 'Pod.v1'), (WORST_SPECS['podset'] as { size: number }).size, 'every pod observed');
  const res = await worstAnswer(podset, parent, settled.children);
  const actual = res.children.reduce((n, c) => n + jsonBytes(c), 0);
  const { bytes } = podset.answerBudget!.estimate(parent.spec, parent);
  t.ok(actual <= bytes, `podset: ${actual} bytes of children with every pod observed, estimated ${bytes}`);
  const etcd = composites.find((d) => d.name === 'etcdcluster')!;
  const cluster = await settledRequest(etcd, worstParent('etcdcluster', structuredClone(WORST_SPECS['etcdcluster']!)));
  t.equal(
    count(cluster.children, 'Pod.v1'),
    (WORST_SPECS['etcdcluster'] as { size: number }).size,
    'every member pod observed',
  );
});
