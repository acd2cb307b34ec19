// A member pod made with a backend quota (spec.pod.etcdEnv ETCD_QUOTA_BACKEND_BYTES) at or under the data the
// cluster holds receives that data and raises NOSPACE at its first applied write: the whole cluster refuses every
// write (real etcd 3.6.9: test/real/etcd-member-quota-under-data-keeps-cluster-writable-real.test.ts). spec.pod.etcdEnv
// reaches only pods made after it is set, so the running members serve. What must hold: no member is added nor any
// member pod made while the quota is at or under the largest backend a member reports (its status dbSize), the
// cluster says so (MembersHeld=True QuotaBelowData naming both numbers and the field, a Warning event), the running
// members are kept as they are, and raising the quota lets the held step go on.
import t, { type Test } from 'tap';
import { conditionEvents } from '../../lib/events.js';
import { ETCDCLUSTER_EVENTS } from '../../hooks/etcdcluster/events.js';
import {
  clusterData,
  holdForQuota,
  memberQuota,
  quotaSpellingProblem,
  quotaUnderData,
} from '../../hooks/etcdcluster/quota.js';
import { sizeOf } from '../../hooks/etcdcommon/etcd.js';
import type { EtcdClusterSpec } from '../../hooks/etcdcluster/schema.js';
import { PVC, running, type Loop } from '../fixtures/etcd-loop.js';

const DATA = 1_000_000;
const LOW = [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: String(512 * 1024) }];
const HIGH = [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: String(8 * 1024 ** 2) }];
const condition = (loop: Loop, type: string) => loop.s()?.conditions?.find((c: any) => c.type === type);

/** Every member that answers reports a backend of `size` bytes. */
function holding(loop: Loop, size = DATA): void {
  const health = loop.etcd.health.bind(loop.etcd);
  loop.etcd.health = async (url: string) => {
    const h = await health(url);
    return h.healthy ? { ...h, dbSize: size } : h;
  };
}

function heldSays(t: Test, loop: Loop): void {
  t.match(
    condition(loop, 'MembersHeld'),
    {
      status: 'True',
      reason: 'QuotaBelowData',
      message: /524288 bytes .*spec\.pod\.etcdEnv ETCD_QUOTA_BACKEND_BYTES.* 1000000 bytes/,
    },
    'MembersHeld=True QuotaBelowData names the quota, the field and the data',
  );
  t.match(condition(loop, 'Ready'), { status: 'False', reason: 'QuotaBelowData' }, 'not Ready: a step is held');
}

t.test('a scale-up with a quota under the data adds no member until the quota is raised', async (t) => {
  const loop = await running({ size: 3 });
  holding(loop);
  const before = loop.last.children.filter((c) => c.kind === 'Pod');
  const parentBefore = loop.parent();
  loop.spec = { ...loop.spec, size: 4, pod: { etcdEnv: LOW } };
  for (let i = 0; i < 4; i++) await loop.step();
  t.same(loop.etcd.calls, [], 'no member added');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'no pod made');
  t.same(
    loop.children.filter((c) => c.kind === 'Pod'),
    before,
    'the running members answered as they were',
  );
  heldSays(t, loop);
  t.match(
    conditionEvents(parentBefore, loop.s(), ETCDCLUSTER_EVENTS),
    [{ type: 'Warning', reason: 'QuotaBelowData', note: /524288 bytes/ }],
    'a Warning event says so',
  );
  t.equal(loop.s().lastMemberIndex ?? 2, 2, 'no ordinal given out');
  loop.spec = { ...loop.spec, pod: { etcdEnv: HIGH } };
  await loop.step();
  t.same(loop.etcd.calls, ['add e-3'], 'the quota raised above the data: the member is added');
  t.ok(loop.pods().includes('e-3'), 'and its pod made');
  t.notOk(condition(loop, 'MembersHeld'), 'nothing held any more');
  t.notMatch(condition(loop, 'Ready'), { reason: 'QuotaBelowData' });
});

t.test('a member lost without storage is removed, but its replacement waits for a quota above the data', async (t) => {
  const loop = await running({ size: 3, pod: { etcdEnv: LOW } });
  holding(loop);
  loop.lose('e-2');
  for (let i = 0; i < 4; i++) await loop.step();
  t.notOk(
    loop.etcd.calls.some((c) => c.startsWith('add')),
    `no replacement added (calls: ${loop.etcd.calls.join(', ')})`,
  );
  t.same(loop.pods(), ['e-0', 'e-1'], 'no pod made');
  heldSays(t, loop);
  loop.spec = { ...loop.spec, pod: { etcdEnv: HIGH } };
  for (let i = 0; i < 3; i++) await loop.step();
  t.ok(
    loop.etcd.calls.some((c) => c.startsWith('add')),
    'the quota raised: the replacement is added',
  );
  t.equal(loop.pods().length, 3);
});

t.test('a member pod lost on its claim is not made again with a quota under the data', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC, etcdEnv: LOW } });
  holding(loop);
  loop.lose('e-2');
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1'], 'its pod not made again');
  t.ok(loop.claims().includes('e-2'), 'its claim (its data) kept');
  t.same(loop.etcd.calls, [], 'no membership change');
  heldSays(t, loop);
  loop.spec = { ...loop.spec, pod: { persistentVolumeClaimSpec: PVC, etcdEnv: HIGH } };
  await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the quota raised: made again on its claim');
  t.same(loop.etcd.calls, [], 'as itself');
});

t.test('a quota above the data, or data no member reports, holds nothing', async (t) => {
  const loop = await running({ size: 3 });
  holding(loop, 400_000);
  loop.spec = { ...loop.spec, size: 4, pod: { etcdEnv: LOW } };
  await loop.step();
  t.same(loop.etcd.calls, ['add e-3'], '400 kB under a 512 KiB quota: added');
  const silent = await running({ size: 3 });
  silent.spec = { ...silent.spec, size: 4, pod: { etcdEnv: LOW } };
  await silent.step();
  t.same(silent.etcd.calls, ['add e-3'], 'no size reported: not compared');
});

t.test('the rule: at or over the quota is refused, the default quota counts, no quota compares nothing', async (t) => {
  const spec = (env?: unknown) =>
    ({ size: 3, ...(env ? { pod: { etcdEnv: env } } : {}) }) as unknown as EtcdClusterSpec;
  t.equal(quotaUnderData(spec(LOW), 512 * 1024 - 1), undefined, 'a byte under');
  t.match(quotaUnderData(spec(LOW), 512 * 1024), /524288 bytes .* at or under the 524288 bytes/, 'at it');
  t.equal(quotaUnderData(spec(LOW), undefined), undefined, 'data not known');
  t.match(quotaUnderData(spec(), 2 * 1024 ** 3), /etcd's default/, "etcd's default, 2 GiB");
  t.equal(quotaUnderData(spec([{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '-1' }]), 10 * 1024 ** 3), undefined, 'none');
  t.match(
    quotaUnderData(spec([{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '0' }]), 3 * 1024 ** 3),
    /2147483648 bytes/,
    "0 is etcd's default",
  );
  t.match(
    quotaUnderData(spec([...HIGH, ...LOW]), DATA),
    /524288 bytes/,
    'the variable named twice: the last one, as the kubelet takes it',
  );
});

t.test("a member's backend size read as etcd's gateway sends it", async (t) => {
  t.equal(sizeOf('1052672'), 1052672, 'an int64 as a decimal string');
  t.equal(sizeOf(1052672), 1052672, 'a number');
  for (const v of ['', '-1', '1e6', '0x10', '12345678901234567', -1, 1.5, null, undefined, {}])
    t.equal(sizeOf(v), undefined, `${JSON.stringify(v)}: not taken`);
});

t.test('holdForQuota on a decision: what it keeps, drops and says', async (t) => {
  const pod = (name: string, extra = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...extra } });
  const obs = {
    pods: [pod('e-0'), pod('e-1'), pod('e-2')] as any,
    health: { 'e-0': { healthy: true, dbSize: 10 }, 'e-1': { healthy: true, dbSize: DATA }, 'e-2': { healthy: false } },
  } as any;
  t.equal(clusterData(obs), DATA, 'the largest size reported');
  t.equal(clusterData({ pods: obs.pods, health: {} }), undefined, 'none reported');
  t.equal(clusterData({ pods: [pod('x')] as any, health: obs.health }), undefined, 'only the observed pods count');
  const decision = () =>
    ({
      action: { type: 'add', pod: 'e-3', peerURL: 'http://e-3', learner: true },
      onSuccess: { members: [] },
      onFailure: { pods: [], lastMemberIndex: 2 },
      pods: [pod('e-0', { labels: { new: 'x' } }), pod('e-1'), pod('e-3')],
      fallbackPods: [pod('e-0', { labels: { new: 'x' } }), pod('e-1'), pod('e-3')],
      phase: 'Running',
      conditions: [
        { type: 'Scaling', status: true, reason: 'ScalingUp', message: 'm' },
        { type: 'Recovering', status: false, reason: 'x', message: 'm' },
        { type: 'MembersHeld', status: false, reason: 'old', message: 'm' },
        { type: 'Available', status: true, reason: 'QuorumAvailable', message: 'm' },
      ],
      members: [],
      lastMemberIndex: 3,
      converging: true,
    }) as any;
  const low = { size: 4, pod: { etcdEnv: LOW } } as any;
  const d = decision();
  t.equal(holdForQuota(d, low, obs, 2), true, 'held');
  t.same([d.action, d.onSuccess, d.onFailure], [undefined, undefined, undefined], 'no action');
  t.same(
    d.pods.map((p: any) => p.metadata.name),
    ['e-0', 'e-1', 'e-2'],
    'the decided observed pods, then the other observed ones',
  );
  t.same(d.pods[0].metadata.labels, { new: 'x' }, 'an observed pod as the decision answers it');
  t.same(d.fallbackPods, d.pods);
  t.equal(d.lastMemberIndex, 2, 'no ordinal given out');
  t.equal(d.converging, false);
  t.same(
    d.conditions.map((c: any) => `${c.type}:${c.reason}`),
    ['Available:QuorumAvailable', 'MembersHeld:QuotaBelowData'],
    'Scaling, Recovering and an old MembersHeld give way',
  );
  t.match(d.conditions[1], { status: true, message: /\(0\.5 MiB, .*\(1\.0 MiB\)/ });
  t.equal(holdForQuota(decision(), { size: 4, pod: { etcdEnv: HIGH } } as any, obs, 2), false, 'quota above: not held');
  const noAdd = { ...decision(), action: undefined, pods: obs.pods, fallbackPods: obs.pods };
  t.equal(holdForQuota(noAdd, low, obs, 2), false, 'nothing made: not held');
  const remove = {
    ...decision(),
    action: { type: 'remove', id: '1', pod: 'e-2', why: 'x' },
    pods: obs.pods.slice(0, 2),
  };
  t.equal(holdForQuota(remove, low, obs, 2), false, 'a removal makes nothing: not held');
  const addOnly = { ...decision(), pods: obs.pods, fallbackPods: obs.pods };
  t.equal(holdForQuota(addOnly, low, obs, 2), true, 'an addition alone is held');
  const newPod = { ...decision(), action: undefined };
  t.equal(holdForQuota(newPod, low, obs, 2), true, 'a new pod alone is held');
  const restoring = { ...decision(), restore: { phase: 'Restoring' } };
  t.equal(holdForQuota(restoring, low, obs, 2), false, 'a restore past its point of no return is not held here');
  t.equal(holdForQuota({ ...decision(), restore: { phase: 'Checking' } }, low, obs, 2), true, 'while checked, held');
  t.equal(holdForQuota(decision(), low, { pods: obs.pods, health: {} }, 2), false, 'data not known: not held');
  t.equal(holdForQuota(decision(), low, obs, -1) && true, true);
});

t.test('the rule reads sizes in GiB and the largest exact quota', async (t) => {
  const q = (value: string) => ({ size: 3, pod: { etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value }] } }) as any;
  t.match(
    quotaUnderData(q(String(3 * 1024 ** 3)), 3 * 1024 ** 3),
    /\(3\.0 GiB, spec\.pod\.etcdEnv ETCD_QUOTA_BACKEND_BYTES\)/,
  );
  t.match(quotaUnderData(q(String(1024 ** 3 - 1)), 1024 ** 3), /\(1024\.0 MiB, .*\(1\.0 GiB\)/);
  t.equal(memberQuota(q('9007199254740991')), 9007199254740991);
  t.equal(memberQuota(q('9007199254740992')), Number.MAX_SAFE_INTEGER);
  t.equal(memberQuota({ size: 3, pod: { etcdEnv: [{ name: 'OTHER', value: '1' }, 'x'] } } as any), 2 * 1024 ** 3);
  t.equal(memberQuota({ size: 3, pod: { etcdEnv: 'x' } } as any), 2 * 1024 ** 3, 'no list: the default');
  t.equal(quotaSpellingProblem('x'), undefined, 'no list: nothing to refuse');
  t.equal(quotaSpellingProblem(['x', { name: 'OTHER', value: '0x1' }]), undefined, 'other entries not judged');
  t.equal(quotaSpellingProblem([{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '1', valueFrom: null }]), undefined);
  t.match(quotaSpellingProblem([{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: 5 }]), /is 5: /, 'not a string');
  t.match(quotaSpellingProblem([{ name: 'ETCD_QUOTA_BACKEND_BYTES' }]), /is "": /, 'no value');
  t.match(
    quotaSpellingProblem([{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: `0${'1'.repeat(60)}` }]),
    /is "0{1}1{39}": /,
    'cut at 40',
  );
});
