// A failed upgrade stops (issue 30.4) when the member upgraded stays unhealthy past UPGRADE_MEMBER_SECONDS. That
// clock is the status's unhealthySince, and Metacontroller may send a status older than the last one answered (its
// informer's copy lags the write; a status restored from a backup): an unhealthySince from an earlier outage of the
// member, before it was Ready again and upgraded. What the observed pod itself says (when it was made, when its Ready
// condition last turned False) is newer evidence than that status, as for the member's own unhealthy clock
// (member-clock-stale-status.test.ts): the upgrade clock never starts before it either, and a stale time does not make
// an upgrade count as failed at once. Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { UPGRADE_MEMBER_SECONDS, detectFailure } from '../../hooks/etcdcluster/upgrade.js';
import { running } from '../fixtures/etcd-loop.js';
import { etcdPod } from '../fixtures/etcd.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (res: any, type: string) => (res.status as any).conditions.find((c: any) => c.type === type);
const stamp = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');

t.test('a stale unhealthySince from before the upgrade does not fail the upgrade at once', async (t) => {
  const loop = await running({ size: 3 });
  const start = loop.now.getTime();
  const at = (s: number) => new Date(start + s * 1000);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  loop.now = at(0);
  await loop.step();
  const moved = loop.children.find(
    (c: any) => c.kind === 'Pod' && c.spec.containers[0].image === 'quay.io/coreos/etcd:v3.5.1',
  );
  t.ok(moved, 'a member is upgraded in place');
  const name = moved!.metadata.name!;
  t.match(condition(loop.last, 'Upgrading'), { reason: 'UpgradingMember' });
  // It restarts on the new version and does not answer yet: its pod turned not Ready at T0.
  loop.etcd.up.delete(name);
  loop.podStatus.set(name, { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: stamp(at(0)) }] });
  // Metacontroller sends a status from an earlier outage of that member (an hour before it was Ready and upgraded).
  const stale = structuredClone(loop.s());
  stale.memberList = stale.memberList.map((m: any) =>
    m.name === name ? { ...m, healthy: false, unhealthySince: stamp(at(-3600)) } : m,
  );
  loop.status = stale;
  loop.now = at(60);
  const res = await loop.step();
  t.notMatch(condition(res, 'Upgrading'), { reason: 'UpgradeFailed' }, 'not failed: down for 60 s only');
  t.notOk((res.status as any).upgradeFailed, 'no failure recorded');
  t.equal(
    (loop.last.children.find((c) => c.kind === 'Pod' && c.metadata.name === name) as any).spec.containers[0].image,
    'quay.io/coreos/etcd:v3.5.1',
    'the member keeps the version it was upgraded to',
  );
  t.equal(
    loop.s().memberList.find((m: any) => m.name === name).unhealthySince,
    stamp(at(0)),
    'its clock starts when its pod turned not Ready',
  );
  // Past the limit by the pod's own clock: the upgrade is failed.
  loop.now = at(UPGRADE_MEMBER_SECONDS + 1);
  const later = await loop.step();
  t.match(condition(later, 'Upgrading'), { status: 'False', reason: 'UpgradeFailed' }, 'failed once past the limit');
  t.match((later.status as any).upgradeFailed, { member: name, reason: `unhealthy since ${stamp(at(0))}` });
});

t.test('detectFailure: the recorded clock is never earlier than the pod shows', async (t) => {
  const base = { targetImage: 'quay.io/coreos/etcd:v3.5.1', target: '3.5.1', running: '3.5.0', now: FIXED_NOW };
  const ago = (s: number) => stamp(new Date(FIXED_NOW.getTime() - s * 1000));
  const previous = { memberList: [{ name: 'e-1', unhealthySince: ago(UPGRADE_MEMBER_SECONDS + 3600) }] };
  const down = (since: string) =>
    etcdPod(
      1,
      { phase: 'Running', conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: since }] },
      { version: '3.5.1' },
    );
  t.equal(detectFailure({ ...base, previous, pods: [down(ago(60))] }), undefined, 'not Ready for 60 s: no failure');
  const made = etcdPod(1, { phase: 'Running' }, { version: '3.5.1' });
  made.metadata.creationTimestamp = ago(60);
  t.equal(detectFailure({ ...base, previous, pods: [made] }), undefined, 'a pod made 60 s ago: no failure');
  t.match(
    detectFailure({ ...base, previous, pods: [down(ago(UPGRADE_MEMBER_SECONDS + 10))] }),
    { reason: `unhealthy since ${ago(UPGRADE_MEMBER_SECONDS + 10)}` },
    'past the limit by the pod: failed, since when the pod shows',
  );
  t.match(
    detectFailure({ ...base, previous, pods: [down('not a time')] }),
    { reason: `unhealthy since ${ago(UPGRADE_MEMBER_SECONDS + 3600)}` },
    'a pod that says nothing readable: the recorded clock',
  );
});
