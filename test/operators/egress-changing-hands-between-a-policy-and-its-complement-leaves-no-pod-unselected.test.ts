// Where the namespace's egress policies start to select some of a parent's pods (whole -> split), metaops' answer
// takes the Egress of its pods' policy away (PodSet `<name>-podset`, Memcached `<name>-memcached`: the policy itself;
// EtcdCluster `<name>-members`: its Egress) and gives the pods no such policy selects the complement policies
// `<policy>-egress-<i>`; where they stop (split -> whole), the reverse. Metacontroller applies an answer's creations,
// updates and deletions one by one, in no promised order: before, between the two a pod no namespace policy selects
// could be selected for egress by no policy at all, and reach the instance metadata service (the node's
// credentials). Must hold: whatever part of each answer is applied, every such pod is selected for egress by a policy
// of metaops' that keeps the metadata service out; the answers settle (the same observed state, the same answer) with
// nothing extra kept at rest, and the namespace's governed pods are not widened at rest.
import t from 'tap';
import { adminEgress, forEgress, meshedPods } from '../fixtures/egress-policies.js';
import { running } from '../fixtures/etcd-loop.js';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { selectorSelects } from '../fixtures/label-selector.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';

const policies = (children: any[]) => children.filter((c) => c?.kind === 'NetworkPolicy');

/** Whether a policy's egress keeps 169.254.169.254 out (every ipBlock rule excepts it; pod peers carry no IP). */
const keepsMetadataOut = (p: any) =>
  (p.spec.egress ?? []).every((rule: any) =>
    (rule.to ?? []).every(
      (peer: any) =>
        !peer.ipBlock || !peer.ipBlock.cidr.includes('.') || (peer.ipBlock.except ?? []).includes('169.254.169.254/32'),
    ),
  );

/**
 * Every state between the observed policies `before` and the answer's `after`, as Metacontroller may leave it for a
 * moment (each subset of the creations, updates and deletions applied): the names of those in which the pod of
 * `labels` is selected for egress by no policy of metaops' that keeps the metadata service out.
 */
function windows(before: any[], after: any[], labels: Record<string, string>): string[] {
  const names = [...new Set([...before, ...after].map((p) => p.metadata.name as string))].sort();
  const changes = names.filter((n) => {
    const b = before.find((p) => p.metadata.name === n);
    const a = after.find((p) => p.metadata.name === n);
    return !b || !a || JSON.stringify(b.spec) !== JSON.stringify(a.spec);
  });
  const bad: string[] = [];
  for (let mask = 0; mask < 1 << changes.length; mask++) {
    const applied = new Set(changes.filter((_, i) => mask & (1 << i)));
    const state = names.flatMap((n) => {
      const p = (applied.has(n) ? after : before).find((x) => x.metadata.name === n);
      return p ? [p] : [];
    });
    const selected = state.some(
      (p) => forEgress(p) && keepsMetadataOut(p) && selectorSelects(p.spec.podSelector, labels),
    );
    if (!selected) bad.push(`[${[...applied].join(', ') || 'nothing'} applied]`);
  }
  return bad;
}

/**
 * Metacontroller's loop over a parent's policies: each answer (`sync` of the observed policies) checked for its
 * windows, then applied whole, until an answer changes nothing (at most 5 rounds).
 */
function settle(
  t: any,
  what: string,
  start: any[],
  sync: (observed: any[]) => any[],
  labels: Record<string, string>,
): any[] {
  let observed = start;
  for (let round = 0; round < 5; round++) {
    const answer = policies(sync(observed));
    // (Made at first: nothing selected the pods before.)
    if (observed.length > 0)
      t.same(windows(observed, answer, labels), [], `${what}, answer ${round + 1}: the pod is selected in every state`);
    const same =
      answer.length === observed.length &&
      answer.every(
        (a) =>
          JSON.stringify(observed.find((o) => o.metadata.name === a.metadata.name)?.spec) === JSON.stringify(a.spec),
      );
    observed = answer;
    if (same) return observed;
  }
  t.fail(`${what}: the answers never settle`);
  return observed;
}

/** At rest: no policy of metaops' selects the governed pod for egress (never widened), the other pod is selected. */
function atRest(t: any, what: string, ours: any[], governed: Record<string, string>, free: Record<string, string>) {
  t.same(
    ours.filter((p) => forEgress(p) && selectorSelects(p.spec.podSelector, governed)).map((p) => p.metadata.name),
    [],
    `${what}: at rest no policy of metaops' adds a way out to the pod the namespace governs`,
  );
  t.ok(
    ours.some((p) => forEgress(p) && selectorSelects(p.spec.podSelector, free)),
    `${what}: at rest the other pod is selected by metaops' policy`,
  );
}

/**
 * A parent's pods, `governed` and `free`, through both changes of hands: its answers (`sync` of the related objects,
 * then of the observed policies) settled with nothing related (whole: its one policy `policy`), beside the namespace's
 * egress policy `admin` (split), and without it again (whole, nothing else kept). The policies at rest while split.
 */
function changingHands(
  t: any,
  policy: string,
  sync: (related: any[]) => (observed: any[]) => any[],
  admin: any,
  governed: Record<string, string>,
  free: Record<string, string>,
): any[] {
  const whole = settle(t, 'at first', [], sync([]), free);
  t.same(
    whole.map((p) => p.metadata.name),
    [policy],
    'whole: its one policy',
  );
  const split = settle(t, 'whole -> split', whole, sync([admin]), free);
  atRest(t, 'split', split, governed, free);
  const back = settle(t, 'split -> whole', split, sync([]), free);
  t.same(
    back.map((p) => p.metadata.name),
    [policy],
    'whole again: its one policy, nothing else kept',
  );
  return split;
}

t.test("a PodSet's pods keep an egress policy while it changes hands, both ways", async (t) => {
  const base = request('podset', { size: 2, image: 'curlimages/curl:8.10.1', command: ['sleep', '3600'] });
  const ns = base.parent.metadata.namespace!;
  const name = base.parent.metadata.name!;
  const first: any = podsetSync(base, FIXED_NOW);
  const template = (first.children as any[]).find((c) => c.kind === 'Pod');
  const governed = { ...template.metadata.labels, tier: 'restricted' };
  const free = { ...template.metadata.labels };
  const pods = [governed, free].map((labels, i) => ({
    ...template,
    metadata: { ...template.metadata, name: `${name}-${i}`, labels },
    status: { phase: 'Running' },
  }));
  const restricted = adminEgress('restricted-egress', ns, { matchLabels: { tier: 'restricted' } });
  const sync = (related: any[]) => (observed: any[]) =>
    (
      podsetSync(
        {
          ...base,
          children: objectMap([...pods, ...observed.map((p) => asObserved(p))], 'v1', [NP]),
          related: objectMap(related, 'v1', [NP]),
        },
        FIXED_NOW,
      ) as any
    ).children;
  const split = changingHands(t, `${name}-podset`, sync, restricted, governed, free);
  t.ok(
    split.every((p) => p.metadata.name.startsWith(`${name}-podset-egress-`)),
    'split: only complement policies at rest',
  );
});

t.test("a Memcached's pods keep an egress policy while it changes hands, both ways", async (t) => {
  const base = request('memcached', { size: 2, image: 'memcached:1.6.38-alpine' });
  const ns = base.parent.metadata.namespace!;
  const name = base.parent.metadata.name!;
  const first: any = memcachedSync(base, FIXED_NOW);
  const deployment = (first.children as any[]).find((c) => c.kind === 'Deployment');
  const pods = meshedPods(deployment, name, ns);
  const [governed, free] = pods.map((p) => p.metadata.labels);
  const meshed = adminEgress('restricted-egress', ns, { matchLabels: { 'security.istio.io/tlsMode': 'istio' } });
  const sync = (related: any[]) => (observed: any[]) =>
    (
      memcachedSync(
        {
          ...base,
          children: objectMap(
            [asObserved(deployment, { replicas: 2, readyReplicas: 2 }), ...observed.map((p) => asObserved(p))],
            'v1',
            [NP],
          ),
          related: { ...base.related, ...objectMap([...related, ...(pods as any[])], 'v1', [NP]) },
        },
        FIXED_NOW,
      ) as any
    ).children;
  changingHands(t, `${name}-memcached`, sync, meshed, governed, free);
});

t.test("an EtcdCluster's members keep an egress policy while it changes hands, both ways", async (t) => {
  // Members made with tier=frontend, then spec.pod.labels changed and the cluster scaled up: both label sets run.
  const loop = await running({ size: 3, pod: { labels: { tier: 'frontend' } } });
  loop.spec = { ...loop.spec, size: 5, pod: { labels: { tier: 'backend' } } };
  for (let i = 0; i < 12; i++) {
    await loop.step();
    for (const p of loop.pods()) loop.etcd.up.add(p);
  }
  const pods = loop.children.filter((c: any) => c.kind === 'Pod') as any[];
  const governed = pods.find((p) => p.metadata.labels?.tier === 'frontend')!.metadata.labels;
  const free = pods.find((p) => p.metadata.labels?.tier === 'backend')!.metadata.labels;
  // Metacontroller's loop, the answer applied whole after its windows are checked (the loop applies answers so).
  const through = async (what: string) => {
    for (let round = 0; round < 5; round++) {
      const before = policies(loop.children);
      await loop.step();
      const after = policies(loop.children);
      t.same(
        windows(before, after, free),
        [],
        `${what}, answer ${round + 1}: a backend member is selected in every state`,
      );
      if (JSON.stringify(before) === JSON.stringify(after)) return after;
    }
    t.fail(`${what}: the answers never settle`);
    return policies(loop.children);
  };
  const whole = await through('at first');
  t.same(
    whole.map((p) => p.metadata.name),
    ['e-members'],
    'whole: the members policy',
  );
  loop.related = [adminEgress('restricted-egress', 'ns', { matchLabels: { tier: 'frontend' } })];
  const split = await through('whole -> split');
  atRest(t, 'split', split, governed, free);
  loop.related = [];
  const back = await through('split -> whole');
  t.same(
    back.map((p) => p.metadata.name),
    ['e-members'],
    'whole again: the members policy, nothing else kept',
  );
});
