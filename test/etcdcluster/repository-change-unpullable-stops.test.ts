// A failed upgrade stops (issue 30.4) also when what changes is the image's repository, not spec.version: a move
// to a private mirror with a typo, or one that lacks the tag, is an image change the members cannot pull. The
// member moved must be marked failed and go back to the image that runs (Upgrading=False / UpgradeFailed), the
// rollout halted, the cluster at full strength; never a member waiting on its image for ever, or removed and
// replaced on the image that cannot be pulled. Each answer fed back as the next observed state, an hour of syncs.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const BAD = 'mirror.example.invalid/etcd';

t.test(
  'a change of spec.repository to images that cannot be pulled: the rollout halts, the member back on the image that ran',
  async (t) => {
    const loop = await running({ size: 3 });
    loop.spec = { ...loop.spec, repository: BAD };
    loop.etcd.calls.length = 0;
    for (let minute = 0; minute <= 120; minute++) {
      loop.now = new Date(FIXED_NOW.getTime() + minute * 60_000);
      // Every pod on the mirror's image waits on it: its etcd never starts.
      for (const p of loop.children.filter((c) => c.kind === 'Pod') as any[]) {
        const name = p.metadata.name;
        if (String(p.spec.containers[0].image).startsWith(BAD)) {
          loop.etcd.up.delete(name);
          loop.phase.set(name, 'Pending');
          loop.podStatus.set(name, {
            containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'ImagePullBackOff' } } }],
          });
        } else if (!name.endsWith('restore-check')) {
          loop.etcd.up.add(name);
          loop.phase.delete(name);
          loop.podStatus.delete(name);
        }
      }
      await loop.step();
    }
    const pods = loop.children.filter((c) => c.kind === 'Pod') as any[];
    const images = pods.map((p) => `${p.metadata.name}=${p.spec.containers[0].image}`);
    const upgrading = (loop.s().conditions as any[]).find((c) => c.type === 'Upgrading');
    t.comment(
      `after 2 h: ${images.join(', ')}; calls ${JSON.stringify(loop.etcd.calls)}; members ${JSON.stringify(loop.etcd.members.map((m) => m.name))}; status ${JSON.stringify({ phase: loop.s().phase, size: loop.s().size, conditions: (loop.s().conditions as any[]).map((c) => [c.type, c.status, c.reason, c.message]) })}`,
    );
    t.equal(
      pods.filter((p) => String(p.spec.containers[0].image).startsWith(BAD)).length,
      0,
      `no member left on the image that cannot be pulled: ${images.join(', ')}`,
    );
    t.equal(pods.length, 3, 'the cluster at full strength: three member pods');
    t.equal(loop.etcd.members.length, 3, 'three etcd members');
    t.match(upgrading, { status: 'False', reason: 'UpgradeFailed' }, 'the failed image change is said');
    t.same(
      loop.etcd.calls.filter((c) => c.startsWith('add') || c.startsWith('remove')),
      [],
      'no member removed and added for it',
    );
  },
);
