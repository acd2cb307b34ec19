// Additions that keep failing stop (issue 30, the kind of a failed upgrade: a member that cannot run is not made
// again and again). A member added (a scale-up, or the replacement of a member lost) whose etcd keeps exiting is
// cancelled; after MAX_FAILED_ADDITIONS failed additions with one spec, none is added: Scaling=False/ScaleUpFailed
// and a Warning event name the members and how the last one exited, the cluster stays at the members it has, and
// the answer is the same at every sync (no membership change). The record survives a status lost (it is on the
// member pods too), is bound to the EtcdCluster's UID, and ends when the spec (but its size) or the annotation
// etcd.metaops.io/retry-additions changes, or spec.size is lowered to the members there are.
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import {
  ADDITIONS_FAILED,
  additionSpec,
  additionsMemory,
  howItFailed,
  MAX_FAILED_ADDITIONS,
  RETRY_ADDITIONS,
  withFailedAddition,
} from '../../hooks/etcdcluster/additions.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { OOM_KILLED as CRASHING, running, STARTING, type Loop } from '../fixtures/etcd-loop.js';
import { EtcdClusterStatus } from '../../hooks/etcdcluster/schema.js';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

/**
 * Runs the loop every 5 s from `from` to `to` seconds after FIXED_NOW: every member pod but `healthy` runs its
 * etcd for 10 s without serving (or, with `serves`, serving for that many seconds) and then keeps exiting
 * (OOMKilled). `born`: when each pod was first seen, kept across calls. Returns the membership calls made.
 */
async function crashNew(
  loop: Loop,
  healthy: string[],
  from: number,
  to: number,
  born = new Map<string, number>(),
  serves = 0,
) {
  const before = loop.etcd.calls.length;
  for (let s = from; s <= to; s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    for (const p of loop.pods()) {
      if (healthy.includes(p)) continue;
      if (!born.has(p)) born.set(p, s);
      const age = s - born.get(p)!;
      if (age < serves) loop.etcd.up.add(p);
      else loop.etcd.up.delete(p);
      if (age < serves) loop.podStatus.delete(p);
      else loop.podStatus.set(p, age < 10 ? STARTING : CRASHING);
    }
    await loop.step();
  }
  return loop.etcd.calls.slice(before);
}

const HEALTHY = ['e-0', 'e-1', 'e-2'];
const adds = (calls: string[]) => calls.filter((c) => c.startsWith('add '));

/** A cluster of three scaled to four whose new members keep exiting, for ten minutes: additions stopped. */
async function stopped(): Promise<Loop> {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, size: 4 };
  await crashNew(loop, HEALTHY, 0, 600);
  return loop;
}

t.test('after three failed additions no member is added, and the status says which, how and what to do', async (t) => {
  const loop = await stopped();
  t.same(adds(loop.etcd.calls), ['add e-3', 'add e-4', 'add e-5'], 'three attempts');
  t.same(
    loop.etcd.members.map((m) => m.name),
    HEALTHY,
    'the cluster is at its healthy members, every one kept',
  );
  t.same(loop.pods(), HEALTHY);
  t.match(condition(loop.last, 'Scaling'), {
    status: 'False',
    reason: 'ScaleUpFailed',
    message:
      /^adding a member failed 3 times since \S+ \(e-3, e-4, e-5; the last: OOMKilled, exit code 137\): no member is added, the cluster runs 3 of 4 members \(1 failure tolerated\)\. .*etcd\.metaops\.io\/retry-additions.*spec\.size to 3$/,
  });
  t.match(condition(loop.last, 'Available'), { status: 'True', reason: 'QuorumAvailable' });
  t.match(loop.s().additionsFailed, {
    uid: 'uid-e',
    members: ['e-3', 'e-4', 'e-5'],
    reason: 'OOMKilled, exit code 137',
  });
  for (const p of loop.children.filter((c) => c.kind === 'Pod'))
    t.same(JSON.parse(p.metadata.annotations![ADDITIONS_FAILED]!), loop.s().additionsFailed, 'on every member pod');
  t.equal(loop.last.resyncAfterSeconds, undefined, 'nothing left to do: no resync asked');
});

t.test(
  'stopped additions are quiet: the same answer at every sync, no membership call, for half an hour',
  async (t) => {
    const loop = await stopped();
    const calls = await crashNew(loop, HEALTHY, 605, 2400);
    t.same(calls, [], 'no membership change');
    const a = structuredClone(loop.last);
    await loop.step();
    t.same(loop.last.children, a.children, 'the same children');
    t.same(loop.last.status, a.status, 'the same status');
  },
);

t.test('a Warning event says the additions stopped', async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, size: 4 };
  // Up to the sync that cancels the third failed addition: the next one stops.
  const born = new Map<string, number>();
  for (let s = 0; s < 600 && loop.s().additionsFailed?.members.length !== 3; s += 5)
    await crashNew(loop, HEALTHY, s, s, born);
  t.equal(condition(loop.last, 'Scaling').reason, 'CancellingAddition');
  const events: EventSpec[] = [];
  const res = await etcdSync(
    {
      controller: {},
      parent: loop.parent(),
      children: objectMap(loop.observed(), 'v1', ['Pod.v1', 'Service.v1', 'PersistentVolumeClaim.v1']),
    },
    { etcd: loop.etcd, now: loop.now, note: (e) => events.push(e) },
  );
  t.equal(condition(res, 'Scaling').reason, 'ScaleUpFailed');
  t.match(
    events.find((e) => e.reason === 'ScaleUpFailed'),
    { type: 'Warning', note: /e-3, e-4, e-5; the last: OOMKilled, exit code 137/ },
  );
});

t.test('the record survives a status lost (a metaops restart, a status rewrite): still no addition', async (t) => {
  const loop = await stopped();
  const record = loop.s().additionsFailed;
  loop.status = undefined;
  const calls = await crashNew(loop, HEALTHY, 605, 1200);
  t.same(calls, [], 'no membership change');
  t.equal(condition(loop.last, 'Scaling').reason, 'ScaleUpFailed');
  t.same(loop.s().additionsFailed, record, 'the record read back from the member pods');
});

t.test('a change of spec.pod, or of the retry annotation, tries again (and stops again)', async (t) => {
  const loop = await stopped();
  loop.spec = { ...loop.spec, pod: { resources: { limits: { memory: '2Gi' } } } };
  const calls = await crashNew(loop, HEALTHY, 605, 1800);
  t.same(adds(calls), ['add e-6', 'add e-7', 'add e-8'], 'three new attempts with the new spec');
  t.equal(condition(loop.last, 'Scaling').reason, 'ScaleUpFailed');
  t.same(loop.s().additionsFailed.members, ['e-6', 'e-7', 'e-8']);

  const parent = loop.parent.bind(loop);
  loop.parent = () => {
    const p = parent();
    p.metadata.annotations = { [RETRY_ADDITIONS]: '1' };
    return p;
  };
  const again = await crashNew(loop, HEALTHY, 1805, 2400);
  t.same(adds(again), ['add e-9', 'add e-10', 'add e-11'], 'the annotation asks for new attempts');
  t.equal(condition(loop.last, 'Scaling').reason, 'ScaleUpFailed');
  t.same(
    loop.etcd.members.map((m) => m.name),
    HEALTHY,
  );
});

t.test('a fixed spec is taken: the added member starts and the record goes', async (t) => {
  const loop = await stopped();
  loop.spec = { ...loop.spec, pod: { resources: { limits: { memory: '2Gi' } } } };
  await loop.step();
  t.same(adds(loop.etcd.calls).at(-1), 'add e-6');
  loop.etcd.up.add('e-6');
  for (let i = 0; i < 4; i++) await loop.step();
  t.equal(condition(loop.last, 'Scaling').reason, 'AtSize');
  t.equal(loop.s().additionsFailed, undefined, 'no record in status');
  for (const p of loop.children.filter((c) => c.kind === 'Pod'))
    t.equal(p.metadata.annotations?.[ADDITIONS_FAILED], undefined, `none on ${p.metadata.name}`);
});

t.test('spec.size lowered to the members there are ends the scale-up; raised again, it tries again', async (t) => {
  const loop = await stopped();
  loop.spec = { ...loop.spec, size: 3 };
  await loop.step();
  t.equal(condition(loop.last, 'Scaling').reason, 'AtSize');
  t.equal(loop.s().additionsFailed, undefined);
  loop.spec = { ...loop.spec, size: 4 };
  const calls = await crashNew(loop, HEALTHY, 605, 700);
  t.same(adds(calls)[0], 'add e-6', 'a new scale-up is a new request');
});

t.test('a crashed member replaced by members that crash too: replaced once, then no churn', async (t) => {
  // e-2's etcd keeps exiting (its node, its memory limit): after 10 minutes it is replaced; every replacement
  // exits the same way. 40 minutes, then half an hour quiet.
  const loop = await running({ size: 3 });
  const calls = await crashNew(loop, ['e-0', 'e-1'], 0, 2400);
  t.same(
    calls.filter((c) => c.startsWith('remove ') && ['remove 1', 'remove 2'].includes(c)),
    [],
    'no healthy member removed',
  );
  t.ok(adds(calls).length <= MAX_FAILED_ADDITIONS, `replacements added: ${adds(calls).length}`);
  const lastHour = await crashNew(loop, ['e-0', 'e-1'], 2405, 4200);
  t.same(lastHour, [], 'quiet once stopped');
  t.same(
    loop.etcd.members.map((m) => m.name),
    ['e-0', 'e-1'],
  );
  t.match(condition(loop.last, 'Scaling'), {
    status: 'False',
    reason: 'ScaleUpFailed',
    message: /the cluster runs 2 of 3 members \(0 failures tolerated\)/,
  });
  t.match(condition(loop.last, 'Available'), { status: 'True' });
});

t.test(
  'without learners (etcd 3.3) a voter that crashes is cancelled with quorum kept, three times at most',
  async (t) => {
    const loop = await running({ size: 3, version: '3.3.0' });
    loop.etcd.clusterVersion = '3.3.0';
    loop.etcd.version = '3.3.0';
    loop.spec = { ...loop.spec, size: 4 };
    const calls = await crashNew(loop, HEALTHY, 0, 3600);
    t.ok(adds(calls).length <= MAX_FAILED_ADDITIONS, `voters added: ${adds(calls).length}`);
    t.ok(
      loop.etcd.members.filter((m) => HEALTHY.includes(m.name)).length === 3,
      'the three healthy members stay members',
    );
    t.equal(condition(loop.last, 'Scaling').reason, 'ScaleUpFailed');
  },
);

// The decision, with fakes: what counts as a failed addition and whose record is read.
const podOf = (name: string, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...(annotations ? { annotations } : {}) },
});

t.test(
  'a record of another EtcdCluster (recreated under the same name), or of another spec, is not read',
  async (t) => {
    const loop = await stopped();
    const parent = loop.parent();
    const spec = parent.spec as any;
    const pods = loop.children.filter((c) => c.kind === 'Pod');
    t.equal(additionsMemory(parent, spec, pods).record?.members.length, 3, 'its own, from its pods');
    const recreated = { ...parent, metadata: { ...parent.metadata, uid: 'uid-e-again' } };
    delete recreated.status;
    t.equal(additionsMemory(recreated, spec, pods).record, undefined, 'another UID: not read');
    t.equal(
      additionsMemory({ ...recreated, metadata: parent.metadata }, { ...spec, version: '3.5.1' }, pods).record,
      undefined,
      'another spec: not read',
    );
    t.not(additionSpec(parent, spec), additionSpec(parent, { ...spec, pod: { nodeSelector: { a: 'b' } } }));
    t.equal(
      additionSpec(parent, spec),
      additionSpec(parent, { ...spec, size: 7, paused: true }),
      'size and paused do not count',
    );
    t.equal(
      additionsMemory(parent, spec, [
        podOf('e-0', { [ADDITIONS_FAILED]: 'not json' }),
        podOf('e-1', { [ADDITIONS_FAILED]: 'x'.repeat(3000) }),
      ]).record?.members.length,
      3,
      'a record that is not ours on a pod is ignored (the status still holds)',
    );
    delete parent.status;
    t.equal(
      additionsMemory(parent, spec, [podOf('e-0', { [ADDITIONS_FAILED]: '{"uid":"uid-e","members":[]}' })]).record,
      undefined,
      'an incomplete record is none',
    );
  },
);

t.test('the same member counts once; how a member failed is read from its etcd container', async (t) => {
  const memory = { uid: 'u', spec: 's' };
  const one = withFailedAddition(memory, { member: 'e-3', reason: 'r1', now: 'T1' });
  const same = withFailedAddition({ ...memory, record: one }, { member: 'e-3', reason: 'r2', now: 'T2' });
  t.same(same, { uid: 'u', spec: 's', members: ['e-3'], reason: 'r2', since: 'T1' });
  const pod = (status: unknown) => ({ ...podOf('e-3'), status }) as KubeObject;
  t.equal(howItFailed(pod(CRASHING), 'x'), 'OOMKilled, exit code 137');
  t.equal(
    howItFailed(pod({ containerStatuses: [{ name: 'etcd', state: { terminated: { exitCode: 1 } } }] }), 'x'),
    'exited, exit code 1',
  );
  t.equal(
    howItFailed(
      pod({ containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'ImagePullBackOff' } } }] }),
      'x',
    ),
    'ImagePullBackOff',
  );
  t.equal(howItFailed(pod({ phase: 'Pending' }), 'x'), 'pod Pending');
  t.equal(howItFailed(pod({ phase: 'Running' }), 'fallback'), 'fallback');
  t.equal(howItFailed(undefined, 'fallback'), 'fallback');
});

t.test('an addition cancelled for a change of spec or size is no failure', async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, size: 4 };
  await loop.step();
  t.same(adds(loop.etcd.calls), ['add e-3']);
  // The new member's etcd keeps exiting, but the user lowered the size meanwhile.
  loop.podStatus.set('e-3', CRASHING);
  loop.spec = { ...loop.spec, size: 3 };
  await loop.step();
  t.match(condition(loop.last, 'Scaling'), {
    reason: 'CancellingAddition',
    message: /^member e-3 never started: its addition is cancelled$/,
  });
  t.equal(loop.s().additionsFailed, undefined, 'not recorded');
});

/** Observed pods carry a creationTimestamp: the time each was first seen, the three first ones made long ago. */
function withAges(loop: Loop): void {
  const made = new Map(HEALTHY.map((p) => [p, '2026-01-01T00:00:00Z']));
  const observed = loop.observed.bind(loop);
  loop.observed = () =>
    observed().map((o) => {
      if (o.kind !== 'Pod') return o;
      if (!made.has(o.metadata.name!)) made.set(o.metadata.name!, loop.now.toISOString());
      o.metadata.creationTimestamp = made.get(o.metadata.name!)!;
      return o;
    });
}

t.test('new members that start, then keep exiting, are replaced three times at most', async (t) => {
  // Each new member serves for a minute (it is promoted, the cluster is at size), then its etcd keeps exiting:
  // replaced after 10 minutes unhealthy. Before, one add, promote and remove every 11 minutes, for ever.
  const loop = await running({ size: 3 });
  withAges(loop);
  loop.spec = { ...loop.spec, size: 4 };
  const born = new Map<string, number>();
  const run = (from: number, to: number) => crashNew(loop, HEALTHY, from, to, born, 60);
  const calls = await run(0, 2700);
  t.same(adds(calls), ['add e-3', 'add e-4', 'add e-5'], 'three members added');
  t.same(
    calls.filter((c) => c.startsWith('remove ')),
    ['remove 100', 'remove 101', 'remove 102'],
    'each removed once, no healthy member removed',
  );
  t.same(await run(2705, 4500), [], 'quiet once stopped');
  t.match(condition(loop.last, 'Scaling'), {
    status: 'False',
    reason: 'ScaleUpFailed',
    message: /\(e-3, e-4, e-5; the last: OOMKilled, exit code 137\)/,
  });
  t.same(
    loop.etcd.members.map((m) => m.name),
    HEALTHY,
  );
});

t.test(
  'a member made long ago replaced as unhealthy is no failed addition; a new one at size keeps the record an hour',
  async (t) => {
    const loop = await running({ size: 3 });
    withAges(loop);
    // e-2 (made long ago) stops answering: replaced after 10 minutes, not counted.
    loop.etcd.up.delete('e-2');
    loop.podStatus.set('e-2', CRASHING);
    for (let s = 0; s <= 610 && !loop.etcd.calls.includes('remove 3'); s += 5) {
      loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
      await loop.step();
    }
    t.ok(loop.etcd.calls.includes('remove 3'), 'e-2 replaced');
    t.equal(loop.s().additionsFailed, undefined, 'not counted');
    // Its replacement e-3 never starts once (counted), then e-4 starts: at size with a new member, the record stays.
    const born = new Map<string, number>();
    const calls: string[] = [];
    for (let s = 615; s < 1200 && !loop.s().additionsFailed; s += 5)
      calls.push(...(await crashNew(loop, ['e-0', 'e-1'], s, s, born)));
    t.same(adds(calls), ['add e-3']);
    t.same(loop.s().additionsFailed?.members, ['e-3']);
    loop.etcd.up.add('e-4');
    for (let i = 0; i < 4; i++) await loop.step();
    t.equal(condition(loop.last, 'Scaling').reason, 'AtSize');
    t.same(loop.s().additionsFailed?.members, ['e-3'], 'kept while e-4 is new');
    loop.now = new Date(loop.now.getTime() + 3600 * 1000);
    await loop.step();
    t.equal(loop.s().additionsFailed, undefined, 'gone once every member is an hour old');
  },
);

t.test('the CRD bounds the record as the hook does', async (t) => {
  const record = (EtcdClusterStatus.properties as any).additionsFailed;
  t.equal(record.properties.members.maxItems, MAX_FAILED_ADDITIONS);
  t.match(record.description, new RegExp(`after ${MAX_FAILED_ADDITIONS}, no member is added`));
});

t.test(
  'the cluster domain the sync fills in (the server’s, no spec naming one) is no change of what members are made from',
  async (t) => {
    const parent = { metadata: { name: 'e', namespace: 'ns', uid: 'uid-e' } } as any;
    const spec = { size: 3, version: '3.5.0' } as any;
    t.equal(additionSpec(parent, { ...spec, pod: { clusterDomain: 'cluster.local' } }), additionSpec(parent, spec));
    t.equal(
      additionSpec(parent, { ...spec, pod: { nodeSelector: { a: 'b' }, clusterDomain: 'corp.example' } }),
      additionSpec(parent, { ...spec, pod: { nodeSelector: { a: 'b' } } }),
    );
    t.not(additionSpec(parent, { ...spec, pod: { nodeSelector: { a: 'b' } } }), additionSpec(parent, spec));
  },
);
