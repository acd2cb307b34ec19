// What Memcached and MySQLCluster say in `kubectl describe`: conditions that follow their workload's observed
// generation, a Degraded condition when pods fail (the Operator SDK sample's), Events for what was created, scaled
// and what fails; MySQL versions the scripts cannot run and downgrades refused; a primary that will not open for
// writes named in the status, with what the user can do.
import t from 'tap';
import { parentLabelValue } from '../../lib/parent-label.js';
import { memcached } from '../../hooks/memcached/index.js';
import { degraded } from '../../hooks/memcached/sync.js';
import { podFailure } from '../../lib/replicas.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import { namesOf, primaryRefusal } from '../../hooks/mysqlcluster/sync.js';
import { PRIMARY_BEHIND, PRIMARY_UNVERIFIED, REPLICATION_SCRIPT } from '../../hooks/mysqlcluster/scripts.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { runHook } from '../../lib/operator.js';
import { memcachedSync, mysqlSync } from '../fixtures/hooks.js';
import { member0Pod } from '../fixtures/mysql-pods.js';
import { asObserved, deploymentPod, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';
import { execFileSync } from 'node:child_process';

const now = FIXED_NOW;
const cond = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

/** A sync whose Events are recorded (as for an authenticated caller). */
async function withEvents(def: CompositeHookDefinition, req: CompositeSyncRequest) {
  const events: EventSpec[] = [];
  const res = await runHook(def, 'sync', req, {
    now,
    services: { randomSecret: () => 'pw', events: () => ({ record: async (_p, e) => void events.push(...e) }) },
  });
  return { res, events: events.map((e) => `${e.type} ${e.reason}: ${e.note}`) };
}

/** A Deployment as the API server holds it after Metacontroller applied `desired`: its last-applied annotation. */
function applied(desired: KubeObject, status: Record<string, unknown>, generation = 1): KubeObject {
  const obj = asObserved(desired, status);
  obj.metadata.generation = generation;
  obj.metadata.annotations = { [LAST_APPLIED]: JSON.stringify(desired) };
  return obj;
}

t.test('Memcached: not Complete until its Deployment runs the spec, and Complete then', async (t) => {
  const first = memcachedSync(request('memcached', { size: 3 }), now);
  const deploy = first.children.find((c) => c.kind === 'Deployment')!;
  const svc = asObserved(first.children.find((c) => c.kind === 'Service')!);
  const settled = { replicas: 3, readyReplicas: 3, updatedReplicas: 3, observedGeneration: 1 };
  const at = (size: number, d: KubeObject) =>
    memcachedSync(request('memcached', { size }, { children: objectMap([d, svc]) }), now);
  t.match(cond(at(3, applied(deploy, settled)), 'Progressing'), { status: 'False', reason: 'Complete' });
  // The case: scaled to 4; the Deployment still has 3 replicas and reports 3/3 as its status.
  const scaled = at(4, applied(deploy, settled));
  t.match(cond(scaled, 'Progressing'), {
    status: 'True',
    reason: 'Updating',
    message: 'Deployment memcached-sample is given the new spec',
  });
  t.match(cond(scaled, 'Available'), { status: 'False' });
  // Applied (generation 2) but not yet observed by the Deployment controller.
  const wanted4 = scaled.children.find((c) => c.kind === 'Deployment')!;
  const unseen = at(4, applied(wanted4, settled, 2));
  t.match(cond(unseen, 'Progressing'), {
    status: 'True',
    reason: 'Updating',
    message: 'Deployment memcached-sample has not observed generation 2 yet',
  });
  // A new image: the same until the Deployment reports the generation.
  const image = memcachedSync(
    request(
      'memcached',
      { size: 3, image: 'memcached:1.6.38' },
      { children: objectMap([applied(deploy, settled), svc]) },
    ),
    now,
  );
  t.match(cond(image, 'Progressing'), { status: 'True', reason: 'Updating' });
  const done = at(
    4,
    applied(wanted4, { ...settled, replicas: 4, readyReplicas: 4, updatedReplicas: 4, observedGeneration: 2 }, 2),
  );
  t.match(cond(done, 'Progressing'), { status: 'False', reason: 'Complete' });
  t.match(cond(done, 'Available'), { status: 'True' });
  // Without a last-applied annotation (server-side apply), the replicas are compared.
  const ssa = asObserved(deploy, settled);
  ssa.metadata.generation = 1;
  t.match(cond(at(4, ssa), 'Progressing'), { reason: 'Updating', message: /is given the new spec/ });
  t.match(cond(at(3, ssa), 'Progressing'), { reason: 'Complete' });
});

t.test('Memcached: Degraded when pods fail, with their names and reasons, stable across resyncs', async (t) => {
  const pod = (name: string, status: Record<string, unknown>) =>
    ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, status }) as KubeObject;
  const waiting = (reason: string) => ({
    phase: 'Running',
    containerStatuses: [{ name: 'memcached', state: { waiting: { reason, message: `x ${Math.random()}` } } }],
  });
  t.same(degraded(undefined, [pod('a', readyPod)]), {
    type: 'Degraded',
    status: false,
    reason: 'AsExpected',
    message: 'no pod is failing',
  });
  const failing = [
    pod('d', waiting('CrashLoopBackOff')),
    pod('a', waiting('ImagePullBackOff')),
    pod('b', { phase: 'Failed' }),
    pod('c', waiting('ContainerCreating')),
    pod('e', waiting('ErrImagePull')),
    { ...pod('f', waiting('CrashLoopBackOff')), metadata: { name: 'f', deletionTimestamp: 'x' } } as KubeObject,
  ];
  t.same(degraded(undefined, failing), {
    type: 'Degraded',
    status: true,
    reason: 'PodsFailing',
    message: '4 pods failing: a: ImagePullBackOff, b: Failed, d: CrashLoopBackOff and 1 more',
  });
  t.equal(podFailure(pod('x', { containerStatuses: [null, { state: null }] })), undefined);
  const refused = {
    ...asObserved(memcachedSync(request('memcached', { size: 1 }), now).children[0]!),
    status: { conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'forbidden' }] },
  } as KubeObject;
  t.match(degraded(refused, []), { status: true, reason: 'FailedCreate', message: /forbidden/ });
  const stalled = {
    ...refused,
    status: { conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] },
  } as KubeObject;
  t.match(degraded(stalled, []), { status: true, reason: 'ProgressDeadlineExceeded' });
  // The pods of its own Deployment, observed as its child (another owner's Deployment of its name has none of its).
  const owned = failing.slice(0, 2).map((p) => deploymentPod(p, 'memcached-sample'));
  const deployment = asObserved(memcachedSync(request('memcached', { size: 2 }), now).children[0]!);
  const res = memcachedSync(
    request('memcached', { size: 2 }, { children: objectMap([deployment]), related: objectMap(owned) }),
    now,
  );
  t.match(cond(res, 'Degraded'), { status: 'True', reason: 'PodsFailing' });
});

t.test('Memcached Events: created, scaled, pods failing, a name taken; nothing when fed back', async (t) => {
  const created = await withEvents(memcached, request('memcached', { size: 3 }));
  t.same(created.events, [
    'Normal Created: created Deployment memcached-sample of 3 pods and Service memcached-sample-memcached',
  ]);
  const observed = created.res.children.map((c) => asObserved(c));
  const fed = request('memcached', { size: 3 }, { children: objectMap(observed) });
  fed.parent.status = created.res.status as never;
  t.same((await withEvents(memcached, fed)).events, [], 'at rest: nothing');
  const scaled = request('memcached', { size: 5 }, { children: objectMap(observed) });
  scaled.parent.status = created.res.status as never;
  t.same((await withEvents(memcached, scaled)).events, [
    'Normal Scaled: scaled Deployment memcached-sample from 3 to 5 pods',
  ]);
  const crash = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'm-1', namespace: 'default' },
    status: { containerStatuses: [{ name: 'memcached', state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
  };
  const failing = request(
    'memcached',
    { size: 3 },
    { children: objectMap(observed), related: objectMap([deploymentPod(crash as KubeObject, 'memcached-sample')]) },
  );
  failing.parent.status = created.res.status as never;
  const fails = await withEvents(memcached, failing);
  t.same(fails.events, ['Warning PodsFailing: Degraded: 1 pod failing: m-1: CrashLoopBackOff']);
  failing.parent.status = fails.res.status as never;
  t.same((await withEvents(memcached, failing)).events, [], 'told once, not at every resync');
  const invalid = request('memcached', { size: 3, image: 'x y' }, { children: objectMap(observed) });
  invalid.parent.status = created.res.status as never;
  t.match((await withEvents(memcached, invalid)).events, [/^Warning InvalidSpec: Ready: spec.image "x y"/]);
  const taken = request(
    'memcached',
    { size: 3 },
    {
      related: objectMap([
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'memcached-sample-memcached', namespace: 'default' },
        } as KubeObject,
      ]),
    },
  );
  t.match((await withEvents(memcached, taken)).events, [
    /^Warning ServiceNameTaken: Ready: Service memcached-sample-memcached belongs to no controller/,
  ]);
});

t.test('MySQLCluster Events: created, scaled, credentials lost, a primary that will not open', async (t) => {
  const created = await withEvents(mysqlcluster, request('mysqlcluster', { size: 3, version: '8.0' }));
  t.same(created.events, [
    'Normal Created: created StatefulSet my-mysql-mysql of 3 members, Services my-mysql-mysql (writes), my-mysql-mysql-read (reads) and my-mysql-mysql-headless',
  ]);
  const observed = created.res.children.map((c) => asObserved(c));
  const scaled = request('mysqlcluster', { size: 2, version: '8.0' }, { children: objectMap(observed) });
  scaled.parent.status = created.res.status as never;
  t.match((await withEvents(mysqlcluster, scaled)).events, [
    'Normal Scaled: scaled StatefulSet my-mysql-mysql from 3 to 2 members',
  ]);
  const lost = request(
    'mysqlcluster',
    { size: 3, version: '8.0' },
    { children: objectMap(observed.filter((c) => c.kind !== 'Secret')) },
  );
  // The status of a cluster whose Secret was observed (it records the Secret), then the Secret is gone.
  const settled = request('mysqlcluster', { size: 3, version: '8.0' }, { children: objectMap(observed) });
  settled.parent.status = created.res.status as never;
  lost.parent.status = (await withEvents(mysqlcluster, settled)).res.status as never;
  t.match((await withEvents(mysqlcluster, lost)).events, [/^Warning CredentialsLost: /]);
  const blocked = request(
    'mysqlcluster',
    { size: 3, version: '8.0' },
    {
      children: objectMap(observed),
      related: objectMap([
        member0({
          message: `${PRIMARY_BEHIND} member 0 has 0-100-1; my-mysql-mysql-1.my-mysql-mysql-headless has 0-100-57;`,
        }),
      ]),
    },
  );
  blocked.parent.status = created.res.status as never;
  // Its sidecar exits at each refusal (CrashLoopBackOff): told as a failing member too, then why.
  t.match((await withEvents(mysqlcluster, blocked)).events, [
    /^Warning PodsFailing: Degraded: 1 pod failing: my-mysql-mysql-0: CrashLoopBackOff/,
    /^Warning PrimaryBehind: Ready: my-mysql-mysql-0 holds fewer transactions/,
  ]);
});

/** Member 0 as the kubelet reports it when its replication sidecar exited with `message`. */
function member0(opts: { message?: string; ready?: boolean; field?: 'state' | 'lastState' } = {}): KubeObject {
  const terminated = { terminated: { exitCode: 3, reason: 'Error', message: opts.message ?? '' } };
  return member0Pod(
    {
      ready: opts.ready ?? false,
      ...(opts.field === 'state'
        ? { state: terminated }
        : { state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: terminated }),
    },
    { owner: 'uid-StatefulSet-my-mysql-mysql', conditions: [{ type: 'Ready', status: 'False' }] },
  );
}

t.test('a primary with less data than its replicas: the status names the case and the way out', async (t) => {
  const message = `${PRIMARY_BEHIND} member 0 has 0-100-1; my-mysql-mysql-1.my-mysql-mysql-headless has 0-100-57;`;
  const res = mysqlSync(
    request('mysqlcluster', { size: 3, version: '8.0' }, { related: objectMap([member0({ message })]) }),
    now,
  );
  const ready = cond(res, 'Ready');
  t.equal(ready.status, 'False');
  t.equal(ready.reason, 'PrimaryBehind');
  t.match(
    ready.message,
    /^my-mysql-mysql-0 holds fewer transactions than a replica \(its data directory was lost or replaced\): member 0 has 0-100-1; my-mysql-mysql-1\.my-mysql-mysql-headless has 0-100-57;\. It stays read-only and takes no writes/,
  );
  t.match(
    ready.message,
    /give member 0 the data of the replica that has the most \(clone it, or restore a backup into its volume\)/,
  );
  t.match(ready.message, /docs\/mysqlcluster\.md, "A primary with less data than its replicas"/);
  t.ok(
    res.children.some((c) => c.kind === 'StatefulSet'),
    'the cluster itself is kept',
  );
  const unverified = mysqlSync(
    request(
      'mysqlcluster',
      { size: 3, version: '8.0' },
      {
        related: objectMap([
          member0({ message: `${PRIMARY_UNVERIFIED} member 0 has no transactions; no answer from x`, field: 'state' }),
        ]),
      },
    ),
    now,
  );
  t.match(cond(unverified, 'Ready'), {
    reason: 'PrimaryUnverified',
    message: /has no data yet and cannot ask every replica/,
  });
  // Opened since (the container is ready): its last message is over.
  t.equal(primaryRefusal(member0({ message, ready: true })), undefined);
  t.equal(primaryRefusal(member0({ message: 'OOMKilled' })), undefined, 'another termination says nothing');
  t.equal(primaryRefusal(undefined), undefined);
  const long = primaryRefusal(member0({ message: `${PRIMARY_BEHIND} ${'x'.repeat(1000)}` }))!;
  t.equal(long.detail.length, 400, 'the sidecar\u2019s words are cut to fit a condition');
  t.same(namesOf('my-mysql').member(0), 'my-mysql-mysql-0');
});

t.test('the sidecar compares MariaDB positions per replication domain', async (t) => {
  // The function as the script holds it, run by bash.
  const fn = /lacks_mariadb\(\) \{[\s\S]*?\n\}\n/.exec(REPLICATION_SCRIPT)![0];
  const lacks = (theirs: string, mine: string) => {
    try {
      execFileSync('bash', ['-c', `set -u\n${fn}lacks_mariadb "$1" "$2"`, 'x', theirs, mine]);
      return 0;
    } catch (err) {
      return (err as { status: number }).status;
    }
  };
  t.equal(lacks('0-100-57', '0-100-1'), 0, 'the replica has more in domain 0');
  t.equal(lacks('0-100-57', '0-100-57'), 1, 'the same');
  t.equal(lacks('0-100-5', '0-100-57'), 1, 'the primary has more');
  t.equal(lacks('', ''), 1, 'both empty');
  t.equal(lacks('0-100-3', ''), 0, 'an empty primary lacks what the replica has');
  t.equal(lacks('0-100-3,1-101-9', '0-100-3'), 0, 'a domain the primary lacks');
  t.equal(lacks('1-101-9,0-100-3', '0-100-3,1-101-10'), 1, 'per domain, whatever the order');
  t.equal(
    lacks('1-101-9,0-100-3', '0-100-3,1-102-10'),
    0,
    "a domain another server wrote last is not held, whatever its sequence number (another server id's history is not ahead)",
  );
  t.equal(lacks('0-100', '0-100-1'), 2, 'a position that cannot be read');
  t.equal(lacks('0-100-x', '0-100-1'), 2);
});

t.test('MySQL versions: 8.0.23 or later (the replication the scripts use), and never a downgrade', async (t) => {
  for (const version of ['5.7', '8.0.22', '8.0.22-debian', '7', 5.7])
    t.match(
      cond(mysqlSync(request('mysqlcluster', { size: 1, version }), now), 'Ready'),
      { reason: 'InvalidSpec', message: /the members need MySQL 8\.0\.23 or later/ },
      `${version} is refused`,
    );
  for (const version of ['8.0.23', '8', '8.0', 8, '8.4.2', '9', '8.0.40-oracle'])
    t.not(
      cond(mysqlSync(request('mysqlcluster', { size: 1, version }), now), 'Ready').reason,
      'InvalidSpec',
      `${version}`,
    );
  // Running 8.4: its StatefulSet says so; 8.0 is a downgrade, refused, the StatefulSet kept as it is.
  const running = mysqlSync(request('mysqlcluster', { size: 1, version: '8.4' }), now);
  const observed = objectMap(running.children.map((c) => asObserved(c)));
  const down = mysqlSync(request('mysqlcluster', { size: 1, version: '8.0' }, { children: observed }), now);
  t.match(cond(down, 'Ready'), {
    reason: 'InvalidSpec',
    message:
      /^spec\.version "8\.0" is older than 8\.4, which the members run: MySQL cannot open a data directory a newer version wrote/,
  });
  t.equal(
    (down.children.find((c) => c.kind === 'StatefulSet') as any).spec.template.spec.containers[0].image,
    'mysql:8.4',
  );
  t.not(
    cond(mysqlSync(request('mysqlcluster', { size: 1, version: '8' }, { children: observed }), now), 'Ready').reason,
    'InvalidSpec',
    '8 names the newest 8.x: not older',
  );
  t.not(
    cond(mysqlSync(request('mysqlcluster', { size: 1, version: '9.1' }, { children: observed }), now), 'Ready').reason,
    'InvalidSpec',
    'an upgrade',
  );
  // The pods run a newer patch than the spec asks for (a rollout under way): refused too.
  const pod = {
    ...member0({ ready: true }),
    spec: { containers: [{ name: 'mysql', image: 'mysql:8.0.36' }] },
  } as KubeObject;
  const patch = mysqlSync(request('mysqlcluster', { size: 1, version: '8.0.30' }, { related: objectMap([pod]) }), now);
  t.match(cond(patch, 'Ready'), { reason: 'InvalidSpec', message: /older than 8\.0\.36/ });
});

t.test(
  'Memcached Degraded: every failing reason, odd pod statuses, the limits of the list, the whole conditions',
  async (t) => {
    const pod = (name: string, status: unknown) =>
      ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, status }) as KubeObject;
    const waiting = (reason: string) => ({
      containerStatuses: [{ name: 'memcached', state: { waiting: { reason } } }],
    });
    for (const reason of [
      'CrashLoopBackOff',
      'ImagePullBackOff',
      'ErrImagePull',
      'InvalidImageName',
      'CreateContainerConfigError',
      'CreateContainerError',
      'RunContainerError',
    ])
      t.equal(podFailure(pod('p', waiting(reason))), reason === 'ErrImagePull' ? 'ImagePullBackOff' : reason);
    t.equal(podFailure(pod('p', undefined)), undefined, 'no status yet');
    t.equal(podFailure(pod('p', { containerStatuses: 5 })), undefined, 'statuses that are no list');
    t.equal(
      podFailure(
        pod('p', { phase: 'Pending', containerStatuses: [{ state: { waiting: { reason: 'ContainerCreating' } } }] }),
      ),
      undefined,
    );
    t.same(
      degraded(
        undefined,
        ['a', 'b', 'c'].map((n) => pod(n, waiting('ErrImagePull'))),
      ),
      {
        type: 'Degraded',
        status: true,
        reason: 'PodsFailing',
        message: '3 pods failing: a: ImagePullBackOff, b: ImagePullBackOff, c: ImagePullBackOff',
      },
    );
    t.same(degraded(undefined, [pod('a', { phase: 'Failed' })]).message, '1 pod failing: a: Failed');
    const deployment = (conditions: unknown[]) =>
      ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'm' }, status: { conditions } }) as KubeObject;
    t.same(
      degraded(deployment([{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota' }]), []),
      { type: 'Degraded', status: true, reason: 'FailedCreate', message: 'pods cannot be created: quota' },
    );
    t.same(degraded(deployment([{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }]), []), {
      type: 'Degraded',
      status: true,
      reason: 'ProgressDeadlineExceeded',
      message: 'Deployment m did not progress within its deadline',
    });
    for (const other of [
      { type: 'Progressing', status: 'False', reason: 'Paused' },
      { type: 'Progressing', status: 'True', reason: 'ProgressDeadlineExceeded' },
      null,
      'Progressing',
    ])
      t.equal(degraded(deployment([other]), []).status, false, JSON.stringify(other));
  },
);

t.test(
  'Memcached Events whole: created, scaled, Degraded on a new one and when its reason changes; none for nothing created',
  async (t) => {
    const told = async (req: CompositeSyncRequest) => {
      const events: EventSpec[] = [];
      const res = await runHook(memcached, 'sync', req, {
        now,
        services: { events: () => ({ record: async (_p, e) => void events.push(...e) }) },
      });
      return { res, events };
    };
    const created = await told(request('memcached', { size: 2 }));
    t.same(created.events, [
      {
        type: 'Normal',
        reason: 'Created',
        action: 'Create',
        note: 'created Deployment memcached-sample of 2 pods and Service memcached-sample-memcached',
        subject: 'memcached-sample',
      },
    ]);
    const observed = created.res.children.map((c) => asObserved(c));
    const scaled = request('memcached', { size: 4 }, { children: objectMap(observed) });
    t.same((await told(scaled)).events, [
      {
        type: 'Normal',
        reason: 'Scaled',
        action: 'Scale',
        note: 'scaled Deployment memcached-sample from 2 to 4 pods',
        subject: '4',
      },
    ]);
    const crash = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'm-1', namespace: 'default' },
      status: { containerStatuses: [{ name: 'memcached', state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
    } as KubeObject;
    // Its Deployment just made (observed as its child, its status not written yet), a pod of it crash-looping.
    const fresh = await told(
      request(
        'memcached',
        { size: 2 },
        { children: objectMap([observed[0]!]), related: objectMap([deploymentPod(crash, 'memcached-sample')]) },
      ),
    );
    t.same(fresh.events[0], {
      type: 'Warning',
      reason: 'PodsFailing',
      action: 'Reconcile',
      note: 'Degraded: 1 pod failing: m-1: CrashLoopBackOff',
      subject: 'Degraded',
    });
    // Still degraded, for another reason: told again.
    const refused = {
      ...observed[0]!,
      status: { conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota' }] },
    } as KubeObject;
    const again = request('memcached', { size: 2 }, { children: objectMap([refused, observed[1]!]) });
    again.parent.status = fresh.res.status as never;
    t.same(
      (await told(again)).events.map((e) => e.reason),
      ['FailedCreate'],
    );
    // An invalid spec of a new Memcached creates nothing: no Created.
    t.same(
      (await told(request('memcached', { size: 2, image: 'a b' }))).events.map((e) => e.reason),
      ['InvalidSpec'],
    );
    // customize asks for its pods by its parent label (unkeyed here: no key in the test), its Deployment, its pods' NetworkPolicy and both Service names by name.
    t.same(memcached.customize!({ controller: {}, parent: request('memcached', { size: 1 }).parent }, {} as never), {
      relatedResources: [
        {
          apiVersion: 'v1',
          resource: 'pods',
          labelSelector: {
            matchLabels: {
              'memcached.metaops.io/parent-id': parentLabelValue(undefined, 'Memcached', 'default', 'memcached-sample'),
            },
          },
        },
        // Every NetworkPolicy of its namespace: where one governs its pods' egress it answers none.
        { apiVersion: 'networking.k8s.io/v1', resource: 'networkpolicies', namespace: 'default' },
        { apiVersion: 'apps/v1', resource: 'deployments', namespace: 'default', names: ['memcached-sample'] },
        {
          apiVersion: 'networking.k8s.io/v1',
          resource: 'networkpolicies',
          namespace: 'default',
          names: ['memcached-sample-memcached'],
        },
        {
          apiVersion: 'v1',
          resource: 'services',
          namespace: 'default',
          names: ['memcached-sample', 'memcached-sample-memcached'],
        },
        // The parents of other kinds whose children can take one of those names, by name (lib/holders.ts): a
        // Memcached of before the suffix, a MySQLCluster's write Service, an EtcdCluster's peer Service.
        ...[
          ['cache.example.com/v1alpha1', 'memcacheds', ['memcached-sample-memcached']],
          ['database.example.com/v1alpha1', 'mysqlclusters', ['memcached-sample', 'memcached-sample-memcached']],
          ['etcd.database.coreos.com/v1beta2', 'etcdclusters', ['memcached-sample', 'memcached-sample-memcached']],
        ].map(([apiVersion, resource, names]) => ({ apiVersion, resource, namespace: 'default', names })),
      ],
    });
  },
);

t.test(
  'MySQLCluster: its status while the StatefulSet takes a spec, member 0 among the pods, running tags that are no version',
  async (t) => {
    const first = mysqlSync(request('mysqlcluster', { size: 2, version: '8.0' }), now);
    const wanted = first.children.find((c) => c.kind === 'StatefulSet')!;
    const sts = applied(wanted, { replicas: 2, readyReplicas: 2, updatedReplicas: 2, observedGeneration: 1 });
    const others = first.children.filter((c) => c.kind !== 'StatefulSet').map((c) => asObserved(c));
    const at = (spec: Record<string, unknown>) =>
      mysqlSync(request('mysqlcluster', spec, { children: objectMap([sts, ...others]) }), now);
    t.match(cond(at({ size: 2, version: '8.0' }), 'Progressing'), { status: 'False', reason: 'Complete' });
    t.same(cond(at({ size: 3, version: '8.0' }), 'Progressing'), {
      ...cond(at({ size: 3, version: '8.0' }), 'Progressing'),
      type: 'Progressing',
      status: 'True',
      reason: 'Updating',
      message: 'StatefulSet my-mysql-mysql is given the new spec',
    });
    t.equal((first.status as any).readService, 'my-mysql-mysql-read');
    t.equal((first.status as any).writeService, 'my-mysql-mysql');
    // Member 0's refusal is read from member 0's pod, whatever order the pods come in.
    const replica = {
      ...member0({ message: `${PRIMARY_BEHIND} x` }),
      metadata: { ...member0().metadata, name: 'my-mysql-mysql-1' },
    };
    const open = member0({ ready: true });
    const req = request(
      'mysqlcluster',
      { size: 2, version: '8.0' },
      { related: objectMap([replica as KubeObject, open]) },
    );
    t.not(
      cond(mysqlSync(req, now), 'Ready').reason,
      'PrimaryBehind',
      'a replica\u2019s message is not member 0\u2019s',
    );
    // Pods running a tag that names no version (latest): not a downgrade of anything.
    const latest = {
      ...member0({ ready: true }),
      spec: { containers: [{ name: 'mysql', image: 'mysql:latest' }] },
    } as KubeObject;
    t.not(
      cond(
        mysqlSync(request('mysqlcluster', { size: 1, version: '8.0' }, { related: objectMap([latest]) }), now),
        'Ready',
      ).reason,
      'InvalidSpec',
    );
    // customize asks for each kind of child by name, with its API version.
    const rules = mysqlcluster.customize!(
      { controller: {}, parent: request('mysqlcluster', {}).parent },
      {} as never,
    ).relatedResources;
    t.same(
      rules.filter((r) => r.names).map((r) => `${r.apiVersion} ${r.resource}`),
      [
        // The children by name, then the parents of other kinds whose children can take one of their names
        // (lib/holders.ts: pods, Services, the StatefulSet, claims).
        'apps/v1 statefulsets',
        'v1 persistentvolumeclaims',
        'v1 pods',
        'v1 secrets',
        'v1 services',
        'apps.jicki.cn/v1alpha1 podsets',
        'cache.example.com/v1alpha1 memcacheds',
        'database.example.com/v1alpha1 mysqlclusters',
        'etcd.database.coreos.com/v1beta2 etcdclusters',
      ],
    );
    // Any S3 resource may name the cluster's Secret (its spec chooses the name), but none is asked for until one is
    // recorded as its holder (status.heldBy): the request never grows with the namespace's S3 resources.
    t.notOk(rules.some((r) => r.resource === 's3s'));
    t.ok(
      rules.every((r) => r.names || r.labelSelector),
      'every rule names its objects or selects by label',
    );
  },
);

t.test('MySQLCluster Events whole: created, scaled; nothing for a new cluster that creates nothing', async (t) => {
  const told = async (req: CompositeSyncRequest) => {
    const events: EventSpec[] = [];
    const res = await runHook(mysqlcluster, 'sync', req, {
      now,
      services: { randomSecret: () => 'pw', events: () => ({ record: async (_p, e) => void events.push(...e) }) },
    });
    return { res, events };
  };
  const created = await told(request('mysqlcluster', { size: 1, version: '8.0' }));
  t.same(created.events, [
    {
      type: 'Normal',
      reason: 'Created',
      action: 'Create',
      note: 'created StatefulSet my-mysql-mysql of 1 members, Services my-mysql-mysql (writes), my-mysql-mysql-read (reads) and my-mysql-mysql-headless',
      subject: 'my-mysql-mysql',
    },
  ]);
  const observed = objectMap(created.res.children.map((c) => asObserved(c)));
  t.same((await told(request('mysqlcluster', { size: 3, version: '8.0' }, { children: observed }))).events, [
    {
      type: 'Normal',
      reason: 'Scaled',
      action: 'Scale',
      note: 'scaled StatefulSet my-mysql-mysql from 1 to 3 members',
      subject: '3',
    },
  ]);
  t.same((await told(request('mysqlcluster', { size: 1, version: '8.0' }, { children: observed }))).events, []);
  t.same(
    (await told(request('mysqlcluster', { size: 1, version: '5.7' }))).events.map((e) => e.reason),
    ['InvalidSpec'],
  );
});
