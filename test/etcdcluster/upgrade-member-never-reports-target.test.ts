// Issue 30.4 ("an upgrade that fails stops") with an image that half-works: the member upgraded to spec.version's
// image starts and serves, but its etcd is not that version (a registry mirror whose v3.5.1 tag points at another
// build, a repository that retagged an image). The rollout waits for it to "run 3.5.1" before the next member, and
// detectFailure only counts an etcd that exits, an image that cannot be pulled or a member unhealthy for 5 minutes:
// this member is healthy. So Upgrading=True WaitingForMember for ever, a sync every 5 seconds for ever (never quiet
// at rest), the cluster mixed, and nothing says the upgrade cannot finish. A member that serves another version than
// its image names past the upgrade's limit (UPGRADE_MEMBER_SECONDS) is an upgrade that failed.
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts; every member reports 3.5.0).
import t from 'tap';
import { UPGRADE_MEMBER_SECONDS } from '../../hooks/etcdcluster/upgrade.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

t.test(
  'an upgraded member that serves but never runs the target version ends the upgrade, not a wait for ever',
  async (t) => {
    const loop = await running({ size: 3 });
    loop.spec = { ...loop.spec, version: '3.5.1' };
    // The image tagged v3.5.1 runs etcd 3.5.0: the member serves and reports 3.5.0.
    const hour = 3600;
    for (let s = 0; s <= hour; s += 5) {
      loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
      await loop.step();
    }
    t.ok(UPGRADE_MEMBER_SECONDS < hour);
    t.not(
      condition(loop.last, 'Upgrading')?.reason,
      'WaitingForMember',
      `after an hour: ${condition(loop.last, 'Upgrading')?.message}`,
    );
    t.equal(loop.last.resyncAfterSeconds, undefined, 'quiet at rest, not a sync every 5 s');
    t.match(
      condition(loop.last, 'Upgrading'),
      { status: 'False', message: /e-\d failed on 3\.5\.1 \(its image serves etcd 3\.5\.0, not 3\.5\.1\)/ },
      'the upgrade is halted, saying why',
    );
    t.equal(loop.pods().length, 3, 'membership at full strength');
    t.same(
      loop.children.filter((c) => c.kind === 'Pod').map((p: any) => p.spec.containers[0].image),
      ['quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.5.0'],
      'every member on the last good version',
    );
  },
);
