// The record of a bootstrap's failed starts (hooks/etcdcluster/bootstraps.ts), its functions called directly: the
// fingerprint of the spec a start is made from (the one earlier versions wrote on pods and in status, whatever the order
// of the spec's fields), the record read back by type from the status or the pods (the one of this spec first, then
// the one counting more starts), the next count, how a start failed (the first member by name whose etcd exited, its
// last log lines), what status says once the bootstrap stopped, and the record put on (or taken off) every pod.
import t from 'tap';
import {
  BOOTSTRAP_FAILED,
  type BootstrapFailed,
  bootstrapMemory,
  bootstrapSpec,
  bootstrapStopped,
  bootstrapStoppedMessage,
  currentRecord,
  howStartFailed,
  MAX_BOOTSTRAP_STARTS,
  RETRY_BOOTSTRAP,
  withBootstrapOnPods,
  withFailedStart,
} from '../../hooks/etcdcluster/bootstraps.js';
import type { EtcdClusterSpec } from '../../hooks/etcdcluster/schema.js';
import { type KubeObject, type ParentObject, parseJson } from '../../lib/index.js';

const UID = 'uid-e';

function parent(annotations?: Record<string, string>, status?: Record<string, unknown>): ParentObject {
  return {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns', uid: UID, ...(annotations ? { annotations } : {}) },
    spec: {},
    ...(status ? { status } : {}),
  };
}

const SPEC = {
  size: 3,
  version: '3.5.0',
  repository: 'quay.io/coreos/etcd',
  pod: {
    labels: { b: '2', a: '1' },
    tolerations: [{ key: 'k', operator: 'Exists' }, { key: 'j' }],
    affinity: null,
  },
} as unknown as EtcdClusterSpec;

/** The same spec, its fields at every level in another order. */
const SPEC_REORDERED = {
  pod: {
    affinity: null,
    tolerations: [{ operator: 'Exists', key: 'k' }, { key: 'j' }],
    labels: { a: '1', b: '2' },
  },
  repository: 'quay.io/coreos/etcd',
  version: '3.5.0',
  size: 3,
} as unknown as EtcdClusterSpec;

function memberPod(name: string, status?: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', ...(annotations ? { annotations } : {}) },
    ...(status ? { status } : {}),
  };
}

/** A member whose etcd exits at once: CrashLoopBackOff, its last exit and log lines. */
const crashed = (message?: unknown, more: Record<string, unknown>[] = []) => ({
  phase: 'Running',
  containerStatuses: [
    ...more,
    {
      name: 'etcd',
      restartCount: 4,
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: { exitCode: 1, reason: 'Error', ...(message === undefined ? {} : { message }) } },
    },
  ],
});

const record = (r: Partial<BootstrapFailed> = {}) => ({
  uid: UID,
  spec: bootstrapSpec(parent(), SPEC),
  starts: 2,
  reason: 'r',
  since: '2026-01-01T00:00:00Z',
  ...r,
});
const marked = (name: string, value: unknown) =>
  memberPod(name, undefined, { [BOOTSTRAP_FAILED]: typeof value === 'string' ? value : JSON.stringify(value) });

t.test('the fingerprint of a spec is the one earlier versions wrote, whatever the order of its fields', async (t) => {
  const mine = bootstrapSpec(parent(), SPEC);
  t.equal(mine, '858ff2d39c916e74', 'pinned: records on pods and in status outlive an upgrade of the operator');
  t.equal(bootstrapSpec(parent(), SPEC_REORDERED), mine, 'fields in another order: the same spec');
  t.equal(bootstrapSpec(parent(), { size: 1 } as EtcdClusterSpec), 'd82d514847c04e64', 'pinned: a spec of one field');
  t.not(
    bootstrapSpec(parent(), {
      ...SPEC,
      pod: { ...SPEC.pod, tolerations: [{ key: 'j' }, { key: 'k', operator: 'Exists' }] },
    } as any),
    mine,
    'the order of a list is part of the spec',
  );
  t.equal(bootstrapSpec(parent(), { ...SPEC, paused: true }), mine, 'paused is no change of what a start is made from');
  t.equal(
    bootstrapSpec(parent(), { ...SPEC, pod: { ...SPEC.pod, clusterDomain: 'cluster.local' } } as any),
    mine,
    'nor the cluster domain the server fills in',
  );
  t.equal(
    bootstrapSpec(parent(), { ...SPEC, pod: { ...SPEC.pod, ClusterDomain: 'cluster.local' } } as any),
    mine,
    'in either spelling',
  );
  const bare = { size: 1 } as EtcdClusterSpec;
  t.equal(
    bootstrapSpec(parent(), { ...bare, pod: { clusterDomain: 'x', ClusterDomain: 'y' } } as any),
    bootstrapSpec(parent(), bare),
    'a pod of only the cluster domain is no pod',
  );
  t.not(bootstrapSpec(parent(), { ...SPEC, version: '3.5.1' }), mine, 'a changed spec starts the count afresh');
  t.not(bootstrapSpec(parent({ [RETRY_BOOTSTRAP]: 'x' }), SPEC), mine, 'a retry asked for: a new fingerprint');
  t.not(
    bootstrapSpec(parent({ [RETRY_BOOTSTRAP]: 'y' }), SPEC),
    bootstrapSpec(parent({ [RETRY_BOOTSTRAP]: 'x' }), SPEC),
    'each new retry value another one',
  );
  t.equal(bootstrapSpec(parent({ [RETRY_BOOTSTRAP]: '' }), SPEC), mine, 'an empty retry value asks for nothing');
  t.equal(bootstrapSpec(parent({ other: 'x' }), SPEC), mine, 'another annotation changes nothing');
});

t.test('a record is read only with the fields a start writes, each by type and bounded', async (t) => {
  const read = (r: unknown) => bootstrapMemory(parent(undefined, { bootstrapFailed: r }), SPEC, []).record;
  t.same(read(record({ starts: 1 })), record({ starts: 1 }), 'one failed start is a record');
  t.same(read(record({ starts: MAX_BOOTSTRAP_STARTS })), record({ starts: 3 }), 'the last one too');
  t.strictSame(read({ ...record(), extra: 'x', onPods: true }), record(), 'only the fields of a record');
  t.equal(read(record({ spec: 'z'.repeat(100) }))?.spec, `${'z'.repeat(61)}...`, 'the spec bounded');
  t.equal(read(record({ since: '9'.repeat(100) }))?.since, `${'9'.repeat(37)}...`, 'the time bounded');
  t.equal(read(record({ reason: 'r'.repeat(300) }))?.reason.length, 200, 'the reason bounded');
  t.strictSame(
    read({ ...record(), reason: undefined, since: undefined }),
    record({ reason: '', since: '' }),
    'missing',
  );
  t.strictSame(
    read({ ...record(), reason: { toString: 1 }, since: ['x'] }),
    record({ reason: '', since: '' }),
    'fields of another type read as none',
  );
  t.equal(read({ ...record(), reason: 42, since: true })?.reason, '42', 'a number read as text');
  for (const bad of [undefined, null, 7, 'text', [], { ...record(), uid: undefined }, { ...record(), spec: undefined }])
    t.equal(read(bad), undefined, `no record: ${JSON.stringify(bad)}`);
});

t.test('the record of this spec is found first, then the one counting more, from status or pods', async (t) => {
  const mine = record({ starts: 1 });
  const more = record({ starts: 2, reason: 'more' });
  const other = record({ spec: 'another', starts: 3 });
  const otherFewer = record({ spec: 'another', starts: 1, reason: 'fewer' });
  const memory = (status: unknown, ...pods: KubeObject[]) =>
    bootstrapMemory(status === undefined ? parent() : parent(undefined, { bootstrapFailed: status }), SPEC, pods);
  for (const [a, b] of [
    [mine, other],
    [other, mine],
  ]) {
    t.same(memory(a, marked('e-0', b)).record, mine, "this spec's record before another's counting more (status/pod)");
    t.same(memory(undefined, marked('e-0', a), marked('e-1', b)).record, mine, 'from two pods, in either order');
  }
  for (const [a, b] of [
    [mine, more],
    [more, mine],
  ]) {
    t.same(memory(a, marked('e-0', b)).record, more, 'of this spec, the one counting more');
    t.same(memory(undefined, marked('e-0', a), marked('e-1', b)).record, more);
  }
  for (const [a, b] of [
    [other, otherFewer],
    [otherFewer, other],
  ])
    t.same(
      memory(undefined, marked('e-0', a), marked('e-1', b)).record,
      other,
      'of another spec: the one counting more',
    );
  const m = memory(undefined);
  t.strictSame(m, { uid: UID, spec: bootstrapSpec(parent(), SPEC), onPods: false }, 'no record, nothing on pods');
  t.same(memory(undefined, memberPod('e-0'), memberPod('e-1', undefined, { other: 'x' })).record, undefined);
  t.equal(memory(undefined, memberPod('e-0')).onPods, false, 'a pod without annotations carries none');
  t.equal(memory(undefined, marked('e-0', '')).onPods, false, 'nor one with an empty one');
  t.equal(memory(undefined, marked('e-0', '{not json')).onPods, false, 'nor one that does not parse');
  t.equal(memory(undefined, marked('e-0', { ...mine, uid: 'x' })).onPods, false, "nor another EtcdCluster's");
  t.equal(memory(mine).onPods, false, 'a record in status is not on pods');
  t.equal(memory(undefined, marked('e-0', other)).onPods, true, 'a record of another spec is one on pods');
  // The annotation's bound: 2 KiB read, a byte more not.
  const sized = (n: number) => {
    const base = JSON.stringify({ ...mine, reason: '' });
    return JSON.stringify({ ...mine, reason: 'y'.repeat(n - base.length) });
  };
  t.equal(sized(2048).length, 2048);
  t.equal(memory(undefined, marked('e-0', sized(2048))).onPods, true, '2048 bytes are read');
  t.equal(memory(undefined, marked('e-0', sized(2049))).onPods, false, '2049 are not');
});

t.test('the next failed start counts on from the record of this spec only, keeping its first time', async (t) => {
  const fingerprint = bootstrapSpec(parent(), SPEC);
  const at = (r?: BootstrapFailed) => ({ uid: UID, spec: fingerprint, ...(r ? { record: r } : {}), onPods: false });
  t.equal(currentRecord(undefined), undefined, 'no memory: no record');
  t.equal(currentRecord(at()), undefined);
  t.same(currentRecord(at(record())), record());
  t.equal(currentRecord(at(record({ spec: 'another' }))), undefined, "another spec's record does not hold");
  t.equal(bootstrapStopped(undefined), false);
  t.equal(bootstrapStopped(record({ starts: 2 })), false, 'two failed starts: a third is made');
  t.equal(bootstrapStopped(record({ starts: 3 })), true, 'three: none');
  t.strictSame(withFailedStart(at(), 'why', 'now'), {
    uid: UID,
    spec: fingerprint,
    starts: 1,
    reason: 'why',
    since: 'now',
  });
  t.strictSame(withFailedStart(at(record({ starts: 1 })), 'why', 'now'), record({ starts: 2, reason: 'why' }));
  t.strictSame(withFailedStart(at(record({ starts: 3 })), 'why', 'now'), record({ starts: 3, reason: 'why' }), 'bound');
  t.strictSame(
    withFailedStart(at(record({ spec: 'another', starts: 2 })), 'why', 'now'),
    { uid: UID, spec: fingerprint, starts: 1, reason: 'why', since: 'now' },
    'another spec counts afresh',
  );
  t.equal(withFailedStart(at(record({ since: '' })), 'why', 'now').since, 'now', 'a record without a time: now');
  const long = withFailedStart(at(), `a\u0000b${'x'.repeat(300)}`, 'now').reason;
  t.equal(long.length, 200, 'the reason bounded');
  t.match(long, /^a b/, 'and printable');
});

t.test('how a start failed: the first member by name whose etcd exited, with the end of its log', async (t) => {
  t.equal(
    howStartFailed([memberPod('e-0', { phase: 'Running' }), memberPod('e-1', crashed('bad flag'))], 'none'),
    'e-1: Error, exit code 1: bad flag',
    'a member that runs is not the one that failed',
  );
  for (const order of [
    ['e-1', 'e-0'],
    ['e-0', 'e-1'],
  ])
    t.equal(
      howStartFailed(
        order.map((n) => memberPod(n, crashed(`log of ${n}`))),
        'none',
      ),
      'e-0: Error, exit code 1: log of e-0',
      `by name, whatever the order (${order.join(', ')})`,
    );
  t.equal(howStartFailed([memberPod('e-0'), memberPod('e-1', { phase: 'Running' })], 'none'), 'none', 'none exited');
  // Evicted for its own limits: the kubelet's message, not the log the killed etcd left.
  const evicted = {
    ...crashed('log of e-0'),
    phase: 'Failed',
    reason: 'Evicted',
    message: 'Container etcd exceeded its local ephemeral storage limit "1Gi". ',
  };
  t.equal(
    howStartFailed([memberPod('e-0', evicted)], 'none'),
    'e-0: evicted for its own limits: Container etcd exceeded its local ephemeral storage limit "1Gi".',
    'an eviction for its own limits',
  );
  t.equal(howStartFailed([], 'none'), 'none');
  for (const pods of [
    [memberPod(7 as any, crashed('log of 7')), memberPod('e-0', crashed('log of e-0'))],
    [memberPod('e-0', crashed('log of e-0')), memberPod(7 as any, crashed('log of 7'))],
  ])
    t.equal(
      howStartFailed(pods, 'none'),
      '7: Error, exit code 1: log of 7',
      'a pod whose name is no string is read by type (it sorts as its text), not thrown on',
    );
  const sidecar = { name: 'proxy', lastState: { terminated: { exitCode: 2, message: 'proxy log' } } };
  t.equal(
    howStartFailed([memberPod('e-0', crashed('etcd log', [null as any, sidecar]))], 'none'),
    'e-0: Error, exit code 1: etcd log',
    "the etcd container's log, not another container's",
  );
  t.equal(howStartFailed([memberPod('e-0', crashed())], 'none'), 'e-0: Error, exit code 1', 'no log lines');
  t.equal(howStartFailed([memberPod('e-0', crashed({ toString: 1 }))], 'none'), 'e-0: Error, exit code 1', 'by type');
  t.equal(
    howStartFailed([memberPod('e-0', { phase: 'Failed' })], 'none'),
    'e-0: pod Failed',
    'a pod that ended without container statuses',
  );
  t.equal(
    howStartFailed([memberPod('e-0', { phase: 'Failed', containerStatuses: 'x' })], 'none'),
    'e-0: pod Failed',
    'container statuses that are no list',
  );
  const endedNow = {
    phase: 'Failed',
    containerStatuses: [
      {
        name: 'etcd',
        state: { terminated: { exitCode: 3, reason: 'Error', message: 'now' } },
        lastState: { terminated: { exitCode: 1, reason: 'Error', message: 'before' } },
      },
    ],
  };
  t.equal(howStartFailed([memberPod('e-0', endedNow)], 'none'), 'e-0: Error, exit code 3: now', 'as it ended now');
  const exactly = 'z'.repeat(120);
  t.equal(howStartFailed([memberPod('e-0', crashed(exactly))], 'none'), `e-0: Error, exit code 1: ${exactly}`);
  const longer = `a${'z'.repeat(120)}`;
  t.equal(
    howStartFailed([memberPod('e-0', crashed(longer))], 'none'),
    `e-0: Error, exit code 1: ...${'z'.repeat(117)}`,
    'past 120 characters, the end of the log',
  );
  t.equal(
    howStartFailed([memberPod('e-0', crashed(`bad\u0000\nline${' '.repeat(5)}end`))], 'none'),
    'e-0: Error, exit code 1: bad line end',
    'printable',
  );
  // A name of 100 characters bounded to 64, the log's end to 120, the whole to 200.
  const name64 = `e-${'n'.repeat(59)}...`;
  t.equal(
    howStartFailed([memberPod(`e-${'n'.repeat(100)}`, crashed(`${'x'.repeat(500)}end`))], 'none'),
    `${`${name64}: Error, exit code 1: ...${'x'.repeat(114)}end`.slice(0, 197)}...`,
    'the name, the log and the whole bounded',
  );
  t.equal(
    howStartFailed([memberPod('e-0', crashed(`${'m'.repeat(150)}end`))], 'none'),
    `e-0: Error, exit code 1: ...${'m'.repeat(114)}end`,
    'a short name leaves room for the end of the log',
  );
  const longReason = crashed('m');
  (longReason.containerStatuses[0] as any).lastState.terminated.reason = 'R'.repeat(100);
  t.equal(
    howStartFailed([memberPod('e-0', longReason)], 'none'),
    `e-0: ${'R'.repeat(61)}..., exit code 1: m`,
    "the exit's reason bounded",
  );
});

t.test('how a start failed, from a pod that says little of it', async (t) => {
  const failed = (containerStatuses: unknown[]) => ({ phase: 'Failed', containerStatuses });
  t.equal(
    howStartFailed([memberPod('e-0', failed([{ name: 'proxy', state: { terminated: { exitCode: 2 } } }]))], 'none'),
    'e-0: pod Failed',
    'no status of its etcd container',
  );
  t.equal(
    howStartFailed(
      [memberPod('e-0', failed([{ name: 'etcd', lastState: { terminated: { exitCode: 1, message: 'before' } } }]))],
      'none',
    ),
    'e-0: exited, exit code 1: before',
    'no state now, the last exit',
  );
  t.equal(
    howStartFailed([memberPod('e-0', failed([{ name: 'etcd', state: { running: {} } }]))], 'none'),
    'e-0: pod Failed',
    'no exit at all',
  );
  t.equal(
    howStartFailed(
      [memberPod('e-0', { containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'CrashLoopBackOff' } } }] })],
      'none',
    ),
    'e-0: CrashLoopBackOff',
    'waiting to restart, its last exit not reported',
  );
  // Pods come from the API server with names; one without, or with a name of another type, is still read.
  const unnamed = (name: unknown) => {
    const p = memberPod('x', crashed('log'));
    (p.metadata as Record<string, unknown>)['name'] = name;
    return p;
  };
  t.equal(howStartFailed([unnamed({ toString: 1 })], 'none'), ': Error, exit code 1: log', 'a name of another type');
  for (const p of [unnamed(undefined), unnamed('')]) {
    const named = memberPod('e-0', crashed('e-0 log'));
    t.equal(
      howStartFailed([p, named], 'none'),
      howStartFailed([named, p], 'none'),
      'the same pod told whatever the order, one without a name too',
    );
  }
});

t.test('the record is kept in the annotation earlier versions wrote', async (t) => {
  t.equal(BOOTSTRAP_FAILED, 'etcd.metaops.io/bootstrap-failed');
  t.equal(RETRY_BOOTSTRAP, 'etcd.metaops.io/retry-bootstrap');
});

t.test('a stopped bootstrap says how often, since when, how the last start failed and how to try again', async (t) => {
  t.equal(
    bootstrapStoppedMessage(record({ starts: 3, reason: 'e-6: Error, exit code 1: bad flag' })),
    'the bootstrap failed 3 times since 2026-01-01T00:00:00Z (the last: e-6: Error, exit code 1: bad flag); ' +
      "no new start is made. The last start's pods are kept (kubectl logs --previous). Fix the cause " +
      '(spec.version, spec.repository, spec.pod) and change the spec, or set the annotation ' +
      'etcd.metaops.io/retry-bootstrap on the EtcdCluster to a new value to try again',
  );
});

t.test('every pod of a decision, and those kept if its action fails, carries the record or none', async (t) => {
  const r = record();
  const pods = [memberPod('e-3'), memberPod('e-4', undefined, { keep: 'x' })];
  const fallbackPods = [memberPod('e-0', undefined, { [BOOTSTRAP_FAILED]: 'old' })];
  const d = withBootstrapOnPods({ pods, fallbackPods, bootstrapFailed: r, other: 1 });
  t.equal(d.other, 1, 'the rest of the decision kept');
  t.same(d.bootstrapFailed, r);
  for (const p of [...d.pods, ...d.fallbackPods])
    t.same(parseJson(p.metadata.annotations?.[BOOTSTRAP_FAILED] ?? 'null'), r, `${p.metadata.name} carries it`);
  t.equal(d.pods[1]!.metadata.annotations?.keep, 'x', 'other annotations kept');
  t.same(
    d.pods.map((p) => p.metadata.name),
    ['e-3', 'e-4'],
  );
  const none = withBootstrapOnPods({ pods: [...pods, ...d.pods], fallbackPods: d.fallbackPods });
  for (const p of [...none.pods, ...none.fallbackPods])
    t.notOk(p.metadata.annotations && BOOTSTRAP_FAILED in p.metadata.annotations, `${p.metadata.name}: none`);
  t.equal(none.pods.length, 4);
  t.equal(none.fallbackPods.length, 1);
});
