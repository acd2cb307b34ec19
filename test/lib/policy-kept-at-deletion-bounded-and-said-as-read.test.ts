// What a deleted parent keeps of its pods' NetworkPolicy (lib/policy-at-deletion.ts, shared by EtcdCluster, PodSet
// and Memcached), its functions called directly at their edges (the kinds' finalize hooks by
// pods-keep-their-network-policy-until-they-are-gone-on-delete.test.ts).
//
// Must hold: the time since a deletion is never negative (a deletionTimestamp ahead of the hook's clock is a deletion
// just made) and none without a deletionTimestamp that reads as a time; a policy's matchLabels and a pod's labels are
// read as maps of strings (a string, a list or a number is none); a message names at most 5 pods and counts the rest;
// the status says which policy is kept, for which pods, until when (the bound's end without milliseconds); the
// Warning of a release with pods left names them; a finalize that keeps the policy asks again within 5 s and no
// later than the bound ends (rounded up), keeps the parent's other conditions and status, and a release with no pod
// left says nothing.
import t from 'tap';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import {
  complementKeptAtDeletion,
  finalizeKeepingPolicy,
  keepingCondition,
  outlivedNote,
  podList,
  podSelected,
  policyKeptAtDeletion,
  policyMatchLabels,
  secondsSinceDeletion,
  withinDeletionBound,
} from '../../lib/policy-at-deletion.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const DELETED = new Date('2026-01-02T03:04:05.678Z');
const at = (seconds: number) => new Date(DELETED.getTime() + seconds * 1000);

function parent(deletionTimestamp: unknown = DELETED.toISOString(), status?: unknown): ParentObject {
  return {
    apiVersion: 'metaops.io/v1alpha1',
    kind: 'PodSet',
    metadata: { name: 'web', namespace: 'team-a', uid: 'uid-web', generation: 1, deletionTimestamp },
    spec: {},
    ...(status === undefined ? {} : { status }),
  } as ParentObject;
}

/** A parent not being deleted. */
function alive(): ParentObject {
  const p = parent();
  delete p.metadata.deletionTimestamp;
  return p;
}

const pod = (name: unknown, labels?: unknown): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'team-a', labels } }) as KubeObject;
const pods = (n: number) => Array.from({ length: n }, (_, i) => pod(`web-pod-${i}`));

const POLICY: KubeObject = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'web-podset', namespace: 'team-a', uid: 'uid-np' },
  spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Egress'] },
} as KubeObject;

function request(p: ParentObject, children: KubeObject[] = [POLICY]): CompositeSyncRequest {
  return { controller: {}, parent: p, children: objectMap(children) } as CompositeSyncRequest;
}

const answered = (o: KubeObject): KubeObject => ({ metadata: { name: o.metadata.name } }) as KubeObject;

t.test('the time since a deletion: never negative, none without a time', async (t) => {
  t.equal(secondsSinceDeletion(parent(), at(12.5)), 12.5);
  t.equal(secondsSinceDeletion(parent(), at(-30)), 0, 'a deletionTimestamp ahead of the clock: just deleted');
  t.equal(secondsSinceDeletion(alive(), FIXED_NOW), undefined, 'not deleted');
  t.equal(secondsSinceDeletion(parent('yesterday'), FIXED_NOW), undefined, 'no time');
  t.equal(secondsSinceDeletion(parent({ toString: 1 }), FIXED_NOW), undefined, 'no string');
  t.equal(secondsSinceDeletion({} as ParentObject, FIXED_NOW), undefined, 'an object without metadata: not deleted');
  t.equal(withinDeletionBound(parent(), at(119.9)), true);
  t.equal(withinDeletionBound(parent(), at(120)), false, 'the bound itself is past');
  t.equal(withinDeletionBound(parent(), at(-30)), true, 'ahead of the clock: within');
  t.equal(withinDeletionBound(alive(), FIXED_NOW), false, 'not deleted: no policy kept for it');
});

t.test("a policy's matchLabels and a pod's labels are read as maps of strings", async (t) => {
  const withLabels = (matchLabels: unknown) => ({ ...POLICY, spec: { podSelector: { matchLabels } } }) as KubeObject;
  t.same(policyMatchLabels(withLabels({ app: 'web', n: 1 })), { app: 'web' }, 'strings only');
  t.equal(policyMatchLabels(withLabels('app=web')), undefined, 'a string is none');
  t.equal(policyMatchLabels(withLabels(['app', 'web'])), undefined, 'a list is none');
  t.equal(policyMatchLabels(withLabels(null)), undefined);
  t.equal(policyMatchLabels({ ...POLICY, spec: undefined } as any), undefined, 'no spec');
  t.equal(policyMatchLabels({ ...POLICY, spec: {} } as any), undefined, 'no podSelector');
  t.equal(policyMatchLabels(undefined), undefined, 'no policy');
  t.equal(podSelected(pod('a', { app: 'web', x: 'y' }), { app: 'web' }), true);
  t.equal(podSelected(pod('a', { app: 'other' }), { app: 'web' }), false);
  t.equal(podSelected(pod('a', { app: 'web' }), { app: 'web', tier: 'cache' }), false, 'every label of the policy');
  t.equal(podSelected(pod('a', undefined), {}), false, 'a pod without labels is selected by none');
  t.equal(podSelected(pod('a', 'web'), { 0: 'w' }), false, 'labels of a string are none');
  t.equal(podSelected({} as KubeObject, {}), false, 'a pod without metadata is selected by none');
});

t.test('a message names at most 5 pods, the rest counted, each name read by type', async (t) => {
  t.equal(podList(pods(5)), 'web-pod-0, web-pod-1, web-pod-2, web-pod-3, web-pod-4');
  t.equal(podList(pods(7)), 'web-pod-0, web-pod-1, web-pod-2, web-pod-3, web-pod-4 and 2 more');
  t.equal(podList([pod({ toString: 1 }), pod('b')]), '?, b');
  t.equal(podList([]), '');
  t.equal(podList([{} as KubeObject]), '?', 'a pod without metadata');
});

t.test('the status says which policy is kept, for which pods, until when', async (t) => {
  t.same(keepingCondition(parent(), { policy: 'web-podset', kind: 'PodSet', waiting: pods(2) }), {
    type: 'Finalized',
    status: false,
    reason: 'KeepingNetworkPolicy',
    message:
      'NetworkPolicy web-podset is kept while the pods it keeps from the instance metadata service stop: 2 pod(s) of ' +
      'this PodSet are still observed (web-pod-0, web-pod-1): they run its image until they stop; released once none ' +
      'is observed, at the latest 120 s after the deletion (2026-01-02T03:06:05Z)',
  });
  const alone = keepingCondition(parent(), { policy: 'cache-memcached', kind: 'Memcached', waiting: undefined });
  t.equal(
    alone.message,
    'NetworkPolicy cache-memcached is kept while the pods it keeps from the instance metadata service stop: its pods ' +
      'are not listed to this hook (docs), so it is kept for 120 s after the deletion; released once none is ' +
      'observed, at the latest 120 s after the deletion (2026-01-02T03:06:05Z)',
  );
  const untimed = keepingCondition(parent('soon'), { policy: 'web-podset', kind: 'PodSet', waiting: [] });
  t.match(untimed.message, /at the latest 120 s after the deletion$/, 'no end told without a time to count from');
  const bare = keepingCondition({} as ParentObject, { policy: 'web-podset', kind: 'PodSet', waiting: [] });
  t.match(bare.message, /at the latest 120 s after the deletion$/, 'nor without metadata');
  t.equal(
    outlivedNote({ policy: 'web-podset', kind: 'PodSet', pods: pods(1) }),
    'released 120 s after the deletion with 1 pod(s) of this PodSet still observed (web-pod-0): NetworkPolicy ' +
      'web-podset goes, and they reach the instance metadata service until they stop (a pod on a node that stopped ' +
      'reporting stops when the node is back or removed)',
  );
});

t.test('the policy kept: only its own, only while pods wait, only within the bound', async (t) => {
  const options = (waiting: KubeObject[] | undefined) => ({ name: 'web-podset', waiting, answer: answered });
  t.same(policyKeptAtDeletion(request(parent()), options(pods(1)), at(10)), { metadata: { name: 'web-podset' } });
  t.same(policyKeptAtDeletion(request(parent()), options(undefined), at(10)), { metadata: { name: 'web-podset' } });
  t.equal(policyKeptAtDeletion(request(parent()), options([]), at(10)), undefined, 'no pod waits');
  t.equal(policyKeptAtDeletion(request(parent()), options(pods(1)), at(120)), undefined, 'past the bound');
  t.equal(policyKeptAtDeletion(request(parent(), []), options(pods(1)), at(10)), undefined, 'none observed');
});

t.test('a finalize that keeps the policy: asked again within 5 s, the rest of the status kept', async (t) => {
  const status = {
    replicas: 2,
    conditions: [{ type: 'Ready', status: 'True', reason: 'AllReady', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  };
  const finalize = (now: Date, waiting: KubeObject[] | undefined, p = parent(DELETED.toISOString(), status)) => {
    const events: EventSpec[] = [];
    const res = finalizeKeepingPolicy(
      request({ ...p, metadata: { ...p.metadata, deletionTimestamp: DELETED.toISOString() } }),
      { name: 'web-podset', kind: 'PodSet', waiting, answer: answered },
      now,
      (e) => events.push(e),
    );
    return { res, events };
  };
  const { res, events } = finalize(at(10), pods(2));
  t.equal(res.resyncAfterSeconds, 5, '10 s after: in 5 s');
  t.same(res.children, [{ metadata: { name: 'web-podset' } }]);
  t.equal(res.finalized, false);
  t.equal((res.status as any).replicas, 2, 'the rest of the status kept');
  const types = ((res.status as any).conditions as Array<{ type: string }>).map((c) => c.type);
  t.ok(types.includes('Finalized') && types.length >= 1, 'Finalized told');
  t.same(events, [], 'nothing to warn of');
  t.equal(finalize(at(116.5), pods(2)).res.resyncAfterSeconds, 4, '3.5 s to the bound: in 4 s (rounded up)');
  t.equal(finalize(at(119.5), pods(2)).res.resyncAfterSeconds, 1, 'half a second: in 1 s, never 0');
  t.equal(finalize(at(-30), pods(2)).res.resyncAfterSeconds, 5, 'deleted ahead of the clock: in 5 s');
  // Released: no pod left says nothing; pods left past the bound are named in a Warning.
  const none = finalize(at(10), []);
  t.same(none.res, { status, children: [], finalized: true }, 'no pod: released, the status as it was');
  t.same(none.events, [], 'no pod left: no Warning');
  const past = finalize(at(120), pods(1));
  t.equal(past.res.finalized, true);
  t.same(past.events, [
    {
      type: 'Warning',
      reason: 'NetworkPolicyReleased',
      action: 'Finalize',
      note: outlivedNote({ policy: 'web-podset', kind: 'PodSet', pods: pods(1) }),
    },
  ]);
  t.same(finalize(at(120), undefined).events, [], 'pods not listed: none to name, no Warning');
});

/** A complement policy of web-podset (`<name>-egress-<i>`), as stored (with what the API server adds). */
const complement = (i: number, labels?: Record<string, string>): KubeObject =>
  ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: `web-podset-egress-${i}`,
      namespace: 'team-a',
      uid: `uid-egress-${i}`,
      resourceVersion: '7',
      ...(labels ? { labels } : {}),
    },
    spec: { podSelector: { matchLabels: { app: 'web', tier: String(i) } }, policyTypes: ['Egress'] },
  }) as KubeObject;

/** The complement as the finalize answers it: its name, namespace, labels and spec, nothing the server added. */
const asAnswered = (o: KubeObject): KubeObject =>
  ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: o.metadata.name,
      namespace: 'team-a',
      ...(o.metadata.labels ? { labels: o.metadata.labels } : {}),
    },
    spec: o['spec'],
  }) as KubeObject;

t.test('the complement policies kept: those observed, as stored, on the terms of the policy', async (t) => {
  const observed = [POLICY, complement(0, { 'app.kubernetes.io/managed-by': 'metaops' }), complement(2)];
  const kept = (p: ParentObject, waiting: KubeObject[] | undefined, now: Date, children = observed) =>
    complementKeptAtDeletion(request(p, children), { name: 'web-podset', waiting }, now);
  const both = [asAnswered(observed[1]!), asAnswered(observed[2]!)];
  t.same(kept(parent(), pods(1), at(10)), both, 'every one observed, in order, as stored');
  t.same(kept(parent(), undefined, at(10)), both, 'pods not listed: kept within the bound');
  t.same(kept(parent(), [], at(10)), [], 'no pod waits');
  t.same(kept(parent(), pods(1), at(120)), [], 'past the bound');
  t.same(kept(alive(), pods(1), at(10)), [], 'a parent not deleted');
  t.same(kept(parent(), pods(1), at(10), [POLICY]), [], 'none observed');
});

t.test('a finalize keeps the complement policies beside the policy, and alone, and says each name', async (t) => {
  const finalize = (children: KubeObject[], now: Date, waiting: KubeObject[] | undefined = pods(1)) => {
    const events: EventSpec[] = [];
    const res = finalizeKeepingPolicy(
      request(parent(), children),
      { name: 'web-podset', kind: 'PodSet', waiting, answer: answered },
      now,
      (e) => events.push(e),
    );
    return { res, events };
  };
  const message = (res: any) => res.status.conditions.find((c: any) => c.type === 'Finalized').message as string;
  const both = finalize([POLICY, complement(1)], at(10));
  t.same(both.res.children, [{ metadata: { name: 'web-podset' } }, asAnswered(complement(1))]);
  t.equal(both.res.finalized, false);
  t.match(message(both.res), /^NetworkPolicy web-podset, web-podset-egress-1 is kept while/, 'both named');
  const alone = finalize([complement(0), complement(3)], at(10));
  t.same(alone.res.children, [asAnswered(complement(0)), asAnswered(complement(3))], 'the complement alone kept');
  t.equal(alone.res.finalized, false);
  t.match(message(alone.res), /^NetworkPolicy web-podset-egress-0, web-podset-egress-3 is kept while/);
  t.equal(alone.res.resyncAfterSeconds, 5);
  // Released past the bound with pods left: said, whether the policy or only a complement of it was observed.
  const past = finalize([complement(2)], at(120));
  t.same(past.res, { status: {}, children: [], finalized: true }, 'released, the status as it was (none)');
  t.same(past.events, [
    {
      type: 'Warning',
      reason: 'NetworkPolicyReleased',
      action: 'Finalize',
      note: outlivedNote({ policy: 'web-podset', kind: 'PodSet', pods: pods(1) }),
    },
  ]);
  t.same(finalize([], at(120)).events, [], 'no policy of its own observed: nothing released, nothing said');
  t.same(finalize([complement(2)], at(10), []).events, [], 'no pod left: released, nothing said');
});
