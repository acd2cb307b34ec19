// The evictions of members on the image upgraded to (upgrade.ts withEvictions): each evicted pod counts once however
// many syncs see it (by its pod and its move in place), one made again under its name and moved again counts anew,
// only pods on the image upgraded to and ended by their node count (not one whose etcd exited: that is the version's
// exit, timed as such), and a record of another image is not read. MAX_UPGRADE_EVICTIONS of them fail the upgrade
// from the version the cluster ran; fewer, or no version to go back to, do not.
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import {
  evictionFailure,
  evictionsOnPods,
  MAX_UPGRADE_EVICTIONS,
  UPGRADE_EVICTIONS,
  UPGRADED_AT,
  withEvictions,
} from '../../hooks/etcdcluster/upgrade.js';

const TARGET = 'quay.io/coreos/etcd:v3.5.1';
const pod = (name: string, image: string, status: Record<string, unknown>, movedAt?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, uid: `uid-${name}`, ...(movedAt ? { annotations: { [UPGRADED_AT]: movedAt } } : {}) },
  spec: { containers: [{ name: 'etcd', image }] },
  status,
});
const EVICTED = { phase: 'Failed', reason: 'Evicted', message: 'ephemeral local storage usage exceeds 2Gi' };

t.test('an evicted pod seen at several syncs is one eviction; moved again, another', async (t) => {
  const first = pod('e-1', TARGET, EVICTED, '2026-01-02T03:04:05Z');
  let rec = withEvictions(undefined, [first], TARGET);
  rec = withEvictions(rec, [first], TARGET);
  t.equal(rec?.count, 1, 'the same pod twice: once');
  rec = withEvictions(rec, [pod('e-1', TARGET, EVICTED, '2026-01-02T03:10:05Z')], TARGET);
  t.equal(rec?.count, 2, 'made again under its name and moved again: counted');
  t.match(rec, { member: 'e-1', last: /^Evicted: ephemeral local storage/ });
});

t.test('only pods on the image upgraded to, ended by their node, count', async (t) => {
  const pods = [
    pod('e-0', 'quay.io/coreos/etcd:v3.5.0', EVICTED),
    pod('e-1', TARGET, { phase: 'Running' }),
    pod('e-2', TARGET, {
      phase: 'Failed',
      containerStatuses: [{ name: 'etcd', state: { terminated: { exitCode: 1 } } }],
    }),
  ];
  t.equal(withEvictions(undefined, pods, TARGET), undefined);
});

t.test('the record on the member pods is read for its image only, bounded', async (t) => {
  const rec = { image: TARGET, count: 2, seen: ['e-1|a', 'e-3|b'], member: 'e-3', last: 'Evicted' };
  const carrying = (value: unknown) => ({
    ...pod('e-0', 'quay.io/coreos/etcd:v3.5.0', { phase: 'Running' }),
    metadata: { name: 'e-0', annotations: { [UPGRADE_EVICTIONS]: JSON.stringify(value) } },
  });
  t.same(evictionsOnPods([carrying(rec)], TARGET), rec);
  t.equal(evictionsOnPods([carrying(rec)], 'quay.io/coreos/etcd:v3.5.2'), undefined, 'another image: not read');
  t.equal(evictionsOnPods([carrying({ ...rec, count: 'x' })], TARGET), undefined, 'malformed: not read');
  t.equal(evictionsOnPods([carrying({ ...rec, count: 99 })], TARGET)?.count, MAX_UPGRADE_EVICTIONS, 'bounded');
});

t.test(
  `${MAX_UPGRADE_EVICTIONS} evictions fail the upgrade from the version the cluster ran; fewer do not`,
  async (t) => {
    const input = { target: '3.5.1', targetImage: TARGET, from: '3.5.0', now: new Date('2026-01-02T04:00:00Z') };
    const rec = (count: number) => ({ image: TARGET, count, seen: [], member: 'e-4', last: 'Evicted' });
    t.equal(evictionFailure(rec(MAX_UPGRADE_EVICTIONS - 1), input), undefined);
    t.match(evictionFailure(rec(MAX_UPGRADE_EVICTIONS), input), {
      version: '3.5.1',
      from: '3.5.0',
      image: TARGET,
      fromImage: 'quay.io/coreos/etcd:v3.5.0',
      member: 'e-4',
      reason: /3 members on it were evicted by their nodes/,
    });
    t.equal(
      evictionFailure(rec(MAX_UPGRADE_EVICTIONS), { ...input, from: undefined }),
      undefined,
      'nothing to go back to',
    );
  },
);

t.test('one eviction on the new version: the upgrade goes on and, done, leaves no record on the pods', async (t) => {
  const { images, running, upgradeFirst } = await import('../fixtures/etcd-loop.js');
  const { FIXED_NOW } = await import('../fixtures/requests.js');
  const loop = await running({ size: 3 });
  const { moved, i } = await upgradeFirst(loop);
  t.ok(moved, 'a member is moved to 3.5.1');
  let evictedOnce = false;
  for (let s = i * 60; s <= 4 * 3600; s += 15) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    for (const [p, image] of Object.entries(images(loop)))
      if (image.endsWith(':v3.5.1') && !evictedOnce) {
        evictedOnce = true;
        loop.etcd.up.delete(p);
        loop.phase.set(p, 'Failed');
        loop.podStatus.set(p, { reason: 'Evicted', message: 'The node was low on resource: memory.' });
      } else if (loop.phase.get(p) !== 'Failed') loop.etcd.up.add(p);
    await loop.step();
    if (
      Object.values(images(loop)).every((img) => img.endsWith(':v3.5.1')) &&
      loop.s().conditions.some((c: any) => c.type === 'Upgrading' && c.reason === 'AtVersion')
    )
      break;
  }
  t.ok(evictedOnce, 'a member was evicted on 3.5.1');
  t.notOk(loop.s().upgradeFailed, 'no failed upgrade');
  t.same(Object.values(images(loop)), Array(3).fill('quay.io/coreos/etcd:v3.5.1'), 'every member on 3.5.1');
  for (const c of loop.children.filter((x) => x.kind === 'Pod'))
    t.equal(c.metadata.annotations?.[UPGRADE_EVICTIONS], undefined, `no record left on ${c.metadata.name}`);
});
