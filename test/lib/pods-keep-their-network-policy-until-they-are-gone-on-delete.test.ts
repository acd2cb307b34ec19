// The NetworkPolicy that keeps the pods running a tenant's image (EtcdCluster members: <name>-members; PodSet:
// <name>-podset; Memcached: <name>-memcached) from the instance metadata service (the node's role, which every
// tenant's pods on that node share) goes away with its parent at the same moment as the pods are asked to stop:
// EtcdCluster's finalize answers no children at all (Metacontroller deletes the policy and the pods together), and
// PodSet and Memcached have no finalize hook (Kubernetes' garbage collector deletes the policy, the pods and the
// Deployment's ReplicaSet in any order). A pod asked to stop keeps running its containers for its grace period
// (30 s by default), while the policy is already gone and the CNI no longer applies it. Tenant A, allowed only to
// create and delete custom resources, writes an image that on SIGTERM waits a second and reads
// 169.254.169.254/latest/meta-data/iam/security-credentials/<role>, then deletes its PodSet (or EtcdCluster): the node's
// role, as often as it likes, at will.
//
// Must hold: while pods of the parent are still observed (running or terminating), the parent's deletion keeps its
// pods' NetworkPolicy: the EtcdCluster's finalize answers it (and is not finalized), and a PodSet's and a Memcached's
// finalize (lib/policy-at-deletion.ts) answer only it (the pods, the Deployment and the Service go), say which pods
// they wait for (Finalized=False KeepingNetworkPolicy), and release the parent once no pod is observed, or 120 s after
// the deletion whatever pods a lost node keeps (a Warning Event names them). Nothing read from the status (a status
// lost answers the same); a policy not the parent's child (its name another owner's) is never answered; a parent
// with no pods, or no policy, is released at once; a Memcached's customize still asks for its pods at deletion.
import t from 'tap';
import { finalize } from '../../hooks/etcdcluster/sync.js';
import { memcached } from '../../hooks/memcached/index.js';
import { podset } from '../../hooks/podset/index.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { POLICY_KEPT_AT_DELETION_SECONDS } from '../../lib/policy-at-deletion.js';
import { running } from '../fixtures/etcd-loop.js';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const terminating = (o: KubeObject): KubeObject => ({
  ...o,
  metadata: { ...o.metadata, deletionTimestamp: '2026-01-02T03:04:05Z', deletionGracePeriodSeconds: 30 } as any,
});
const kinds = (children: any[]) => children.map((c) => `${c.kind}/${c.metadata?.name}`).join(', ') || 'none';

t.test("an EtcdCluster being deleted keeps its members' NetworkPolicy while member pods remain", async (t) => {
  const loop = await running({ size: 3 });
  const observed = loop.children.map((c) => asObserved(c, c.kind === 'Pod' ? readyPod : undefined));
  t.ok(
    observed.some((c) => c.kind === 'NetworkPolicy'),
    'the running cluster has its policy',
  );
  const parent = {
    ...structuredClone(loop.parent()),
    metadata: { ...loop.parent().metadata, deletionTimestamp: '2026-01-02T03:04:05Z' },
  };
  // First finalize call: the members still run; then they are terminating (their grace period).
  for (const pods of ['running', 'terminating'] as const) {
    const children = observed.map((c) => (pods === 'terminating' && c.kind === 'Pod' ? terminating(c) : c));
    const res = finalize({ controller: {}, parent, children: objectMap(children) } as any, {}, FIXED_NOW);
    t.ok(
      (res.children as any[]).some((c) => c.kind === 'NetworkPolicy' && c.metadata.name === 'e-members'),
      `member pods ${pods}: the finalize answer keeps e-members (answered: ${kinds(res.children)})`,
    );
  }
});

const DELETED = new Date(FIXED_NOW.getTime() - 10_000);
const deleting = (req: CompositeSyncRequest, at = DELETED): CompositeSyncRequest => ({
  ...req,
  parent: { ...req.parent, metadata: { ...req.parent.metadata, deletionTimestamp: at.toISOString() } },
});
const policies = (res: CompositeSyncResponse) =>
  res.children.filter((c) => c.kind === 'NetworkPolicy').map((c) => c.metadata.name);
const finalized = (res: CompositeSyncResponse) =>
  (res.status as any)?.conditions?.find((c: any) => c.type === 'Finalized');

async function finalizeOf(def: typeof podset | typeof memcached, req: CompositeSyncRequest, now = FIXED_NOW) {
  const events: EventSpec[] = [];
  const res = (await runHook(def as any, 'finalize', req, {
    now,
    services: { events: () => ({ record: async (_p: unknown, e: EventSpec[]) => void events.push(...e) }) },
  })) as CompositeSyncResponse;
  return { res, events };
}

/** A running PodSet `web` of two pods and its policy, as Metacontroller observes them. */
function podsetWorld(): { req: CompositeSyncRequest; pods: KubeObject[]; policy: KubeObject } {
  const req = request('podset', { size: 2, image: 'attacker.example/x:1', command: ['sleep', '9'] });
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'team-a', uid: 'uid-web' };
  const answer = podsetSync(req, FIXED_NOW);
  const pods = answer.children.filter((c) => c.kind === 'Pod').map((c) => asObserved(c, readyPod));
  const policy = asObserved(answer.children.find((c) => c.kind === 'NetworkPolicy')!);
  return { req: { ...req, children: objectMap([...pods, policy]) }, pods, policy };
}

t.test('a PodSet being deleted keeps web-podset while its pods remain, then is released', async (t) => {
  const { req, pods, policy } = podsetWorld();
  t.equal(policy.metadata.name, 'web-podset', 'the running PodSet has its policy');
  t.ok(typeof (podset as any).finalize === 'function', 'PodSet has a finalize hook (the controller gets one)');
  for (const state of ['running', 'terminating'] as const) {
    const observed = state === 'running' ? pods : pods.map(terminating);
    const { res, events } = await finalizeOf(podset, deleting({ ...req, children: objectMap([...observed, policy]) }));
    t.same(policies(res), ['web-podset'], `pods ${state}: the policy answered (answered: ${kinds(res.children)})`);
    t.same(
      res.children.filter((c) => c.kind === 'Pod'),
      [],
      `pods ${state}: no pod answered (Metacontroller deletes them)`,
    );
    t.equal(res.finalized, false, `pods ${state}: not released`);
    t.same(res.children[0]!.spec, policy['spec'], 'answered as stored: the same selector, the same egress');
    const c = finalized(res);
    t.equal(c?.reason, 'KeepingNetworkPolicy', 'the status says it keeps the policy');
    t.match(c?.message, /web-pod-0, web-pod-1/, 'naming the pods it waits for');
    t.ok(
      res.resyncAfterSeconds! > 0 && res.resyncAfterSeconds! <= 5,
      'asks again: a pod that never changes wakes nothing',
    );
    t.same(
      events.filter((e) => e.type === 'Warning'),
      [],
      'no Warning while it waits',
    );
  }
  // Status lost (a restore from backup, a status wiped): the same answer.
  const bare = deleting({ ...req, parent: { ...req.parent, status: undefined as any } });
  const lost = (await finalizeOf(podset, bare)).res;
  t.same(policies(lost), ['web-podset'], 'status lost: the policy still kept');
  t.equal(lost.finalized, false, 'status lost: not released');
  // The pods gone: released, nothing answered (the policy goes).
  const gone = (await finalizeOf(podset, deleting({ ...req, children: objectMap([policy]) }))).res;
  t.equal(gone.finalized, true, 'no pod observed: released');
  t.same(gone.children, [], 'and the policy let go');
});

t.test('a PodSet whose pod outlives the bound (a lost node) is released, and a Warning says which pod', async (t) => {
  const { req, pods, policy } = podsetWorld();
  const stuck = terminating(pods[0]!);
  const world = { ...req, children: objectMap([stuck, policy]) };
  const before = new Date(DELETED.getTime() + (POLICY_KEPT_AT_DELETION_SECONDS - 1) * 1000);
  const within = await finalizeOf(podset, deleting(world), before);
  t.same(policies(within.res), ['web-podset'], `${POLICY_KEPT_AT_DELETION_SECONDS - 1} s after: still kept`);
  t.equal(within.res.resyncAfterSeconds, 1, 'asked again when the bound ends');
  const after = new Date(DELETED.getTime() + POLICY_KEPT_AT_DELETION_SECONDS * 1000);
  const past = await finalizeOf(podset, deleting(world), after);
  t.equal(past.res.finalized, true, 'past the bound: released whatever pods are left');
  t.same(past.res.children, [], 'and nothing answered');
  const warning = past.events.find((e) => e.type === 'Warning');
  t.equal(warning?.reason, 'NetworkPolicyReleased', 'a Warning Event');
  t.match(warning?.note, /web-pod-0/, 'naming the pod that runs on without it');
});

t.test('a PodSet with no pods, or without a policy of its own, is released at once', async (t) => {
  const { req, pods, policy } = podsetWorld();
  const none = (await finalizeOf(podset, deleting({ ...req, children: objectMap([policy]) }))).res;
  t.equal(none.finalized, true, 'no pods: released');
  // Its policy name another owner's (related, not a child) or the server's setting off: nothing to keep, nothing taken.
  const foreign = { ...policy, metadata: { ...policy.metadata, ownerReferences: [{ kind: 'Other', uid: 'x' }] } };
  const held = await finalizeOf(
    podset,
    deleting({ ...req, children: objectMap(pods), related: objectMap([foreign as KubeObject]) }),
  );
  t.equal(held.res.finalized, true, 'no policy among its children: released (the pods go as before)');
  t.same(policies(held.res), [], "another owner's policy of that name is never answered");
});

/** A running Memcached `cache` of two pods (related, by its parent label), its Deployment, Service and policy. */
function memcachedWorld(): { req: CompositeSyncRequest; pods: KubeObject[]; children: KubeObject[] } {
  const req = request('memcached', { size: 2, image: 'attacker.example/x:1' });
  req.parent.metadata = { ...req.parent.metadata, name: 'cache', namespace: 'team-a', uid: 'uid-cache' };
  const answer = memcachedSync(req, FIXED_NOW);
  const children = answer.children.map((c) => asObserved(c));
  const deploy = answer.children.find((c) => c.kind === 'Deployment') as any;
  const labels = deploy.spec.template.metadata.labels as Record<string, string>;
  const pods = [0, 1].map((i) =>
    asObserved(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `cache-7d9f-${i}`,
          namespace: 'team-a',
          labels: { ...labels, 'pod-template-hash': '7d9f' },
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cache-7d9f', uid: 'rs', controller: true },
          ],
        },
        spec: deploy.spec.template.spec,
      } as KubeObject,
      readyPod,
    ),
  );
  return { req: { ...req, children: objectMap(children), related: objectMap(pods) }, pods, children };
}

t.test('a Memcached being deleted keeps cache-memcached while its pods remain, then is released', async (t) => {
  const { req, pods, children } = memcachedWorld();
  const policy = children.find((c) => c.kind === 'NetworkPolicy')!;
  t.equal(policy.metadata.name, 'cache-memcached', 'the running Memcached has its policy');
  t.ok(typeof (memcached as any).finalize === 'function', 'Memcached has a finalize hook');
  const deleted = deleting(req);
  const rules = (memcached.customize as any)({ controller: {}, parent: deleted.parent }, {}).relatedResources;
  t.ok(
    rules.length > 0 && rules.every((r: any) => r.apiVersion === 'v1' && r.resource === 'pods'),
    'being deleted, customize still asks for its pods (and nothing else)',
  );
  for (const state of ['running', 'terminating'] as const) {
    const related = objectMap(state === 'running' ? pods : pods.map(terminating));
    const { res, events } = await finalizeOf(memcached, { ...deleted, related });
    t.same(
      kinds(res.children),
      'NetworkPolicy/cache-memcached',
      `pods ${state}: only the policy answered (the Deployment and the Service go)`,
    );
    t.same(res.children[0]!.spec, policy['spec'], 'answered as stored');
    t.equal(res.finalized, false, `pods ${state}: not released`);
    t.equal(finalized(res)?.reason, 'KeepingNetworkPolicy');
    t.match(finalized(res)?.message, /cache-7d9f-0, cache-7d9f-1/, 'naming its pods');
    t.same(
      events.filter((e) => e.reason === 'Scaled'),
      [],
      'no "scaled" Event for the Deployment let go',
    );
  }
  // The Deployment and Service gone, a pod left: still kept.
  const one = { ...deleted, children: objectMap([policy]), related: objectMap([terminating(pods[0]!)]) };
  t.same(policies((await finalizeOf(memcached, one)).res), ['cache-memcached'], 'one pod left: still kept');
  // A pod of the namespace its policy does not select (another workload's): not waited for.
  const stranger = { ...pods[1]!, metadata: { ...pods[1]!.metadata, name: 'other', labels: { app: 'other' } } };
  const strangers = await finalizeOf(memcached, { ...one, related: objectMap([stranger as KubeObject]) });
  t.equal(strangers.res.finalized, true, 'only a pod its policy does not select: released');
  const none = await finalizeOf(memcached, { ...one, related: {} });
  t.equal(none.res.finalized, true, 'no pod: released');
  t.same(none.res.children, [], 'the policy let go');
});

t.test('a Memcached whose pods are not listed (too many to send) keeps its policy for the bound alone', async (t) => {
  const { MAX_SIZE } = await import('../../hooks/memcached/schema.js');
  const { podsListed } = await import('../../hooks/memcached/sync.js');
  const req = request('memcached', { size: MAX_SIZE, image: 'attacker.example/x:1' });
  req.parent.metadata = { ...req.parent.metadata, name: 'big', namespace: 'team-a', uid: 'uid-big' };
  t.notOk(
    podsListed(req.parent, {
      size: MAX_SIZE,
      image: 'attacker.example/x:1',
      port: 11211,
      progressDeadlineSeconds: 600,
    }),
    'not listed',
  );
  const policy = asObserved(memcachedSync(req, FIXED_NOW).children.find((c) => c.kind === 'NetworkPolicy')!);
  const world = deleting({ ...req, children: objectMap([policy]), related: {} });
  const rules = (memcached.customize as any)({ controller: {}, parent: world.parent }, {}).relatedResources;
  t.same(rules, [], 'no pods asked for at deletion either');
  const within = (await finalizeOf(memcached, world)).res;
  t.same(policies(within), ['big-memcached'], 'kept within the bound');
  t.match(finalized(within)?.message, /not listed/, 'the status says it waits on time alone');
  const after = new Date(DELETED.getTime() + POLICY_KEPT_AT_DELETION_SECONDS * 1000);
  const past = await finalizeOf(memcached, world, after);
  t.equal(past.res.finalized, true, 'released at the bound');
  t.same(past.events, [], 'no pod known to name: no Warning');
});
