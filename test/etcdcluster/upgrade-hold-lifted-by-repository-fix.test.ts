// A failed upgrade stops (issue 30.4) and is "halted until spec.version changes". When what failed was the image's
// pull (the tag missing from quay.io, a registry the nodes cannot reach), the user's fix is spec.repository: a
// mirror that has the tag. That fix changes the image the hold was about, yet the hold stays for ever: the
// cluster left mixed (one member on the mirror, the others not), still saying the upgrade failed on a version
// the mirror was never asked for. Each answer fed back as the next observed state, 40 minutes of syncs.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const PULL = { containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'ImagePullBackOff' } } }] };

t.test(
  'an upgrade halted because its image could not be pulled, the repository then pointed at a mirror that has it: the upgrade goes on',
  async (t) => {
    const loop = await running({ size: 3 });
    // Each member that answers reports the version its own image runs, as etcd's /version does.
    const health = loop.etcd.health.bind(loop.etcd);
    loop.etcd.health = async (url: string) => {
      const h = await health(url);
      const pod = loop.children.find(
        (c) => c.kind === 'Pod' && c.metadata.name === new URL(url).hostname.split('.')[0],
      );
      const own = String((pod as any)?.spec.containers[0].image ?? '').split(':v')[1];
      return h.healthy && own ? { ...h, version: own } : h;
    };
    loop.spec = { ...loop.spec, version: '3.5.1' };
    const pullable = (image: string) => image !== 'quay.io/coreos/etcd:v3.5.1';
    for (let minute = 0; minute < 40; minute++) {
      if (minute === 5) {
        t.match(
          (loop.s().conditions as any[]).find((c) => c.type === 'Upgrading'),
          { status: 'False', reason: 'UpgradeFailed' },
          'the upgrade failed on the pull and is held',
        );
        loop.spec = { ...loop.spec, repository: 'mirror.example.com/etcd' };
      }
      loop.now = new Date(FIXED_NOW.getTime() + minute * 60_000);
      for (const p of loop.children.filter((c) => c.kind === 'Pod') as any[]) {
        const name = p.metadata.name;
        const image = String(p.spec.containers[0].image);
        if (!pullable(image)) {
          loop.etcd.up.delete(name);
          loop.phase.set(name, 'Pending');
          loop.podStatus.set(name, PULL);
        } else {
          loop.etcd.up.add(name);
          loop.phase.delete(name);
          loop.podStatus.delete(name);
        }
      }
      await loop.step();
    }
    const images = (loop.children.filter((c) => c.kind === 'Pod') as any[]).map(
      (p) => `${p.metadata.name}=${p.spec.containers[0].image}`,
    );
    const upgrading = (loop.s().conditions as any[]).find((c) => c.type === 'Upgrading');
    t.comment(`after 40 min: ${images.join(', ')}; Upgrading ${JSON.stringify(upgrading)}`);
    t.notMatch(
      upgrading,
      { reason: 'UpgradeFailed' },
      'the hold about quay.io/coreos/etcd:v3.5.1 is lifted by the fix',
    );
    t.same(
      images,
      ['e-0', 'e-1', 'e-2'].map((n) => `${n}=mirror.example.com/etcd:v3.5.1`),
      'every member on the mirror at 3.5.1',
    );
  },
);
