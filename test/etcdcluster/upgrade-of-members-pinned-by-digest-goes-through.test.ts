// An admission policy that pins images by digest (Kyverno verifyImages with mutateDigest, Connaisseur, Ratify)
// rewrites each member pod's image on create and update: `quay.io/coreos/etcd:v3.5.1` answered is observed as
// `quay.io/coreos/etcd:v3.5.1@sha256:<64 hex>`, the same image. An upgrade of such a cluster goes through like any
// other: each member moved is the target's (its soak clock kept from one sync to the next), every member ends on
// 3.5.1 and the upgrade ends. (Seen: the comparison of the pod observed with the pod answered read the digest as another
// image, so the moved member's upgrade clock was started again at every sync and the rollout stayed on its first
// member.) Each answer is fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { images, pinAll, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (s: any, type: string) => (s.conditions ?? []).find((c: any) => c.type === type);

// Also for a repository on a registry host of one label in capitals (`Registry/etcd`: a host to the kubelet's grammar).
for (const repository of ['quay.io/coreos/etcd', 'Registry/etcd'])
  t.test(`an upgrade of member pods of ${repository} pinned by digest moves every member and ends`, async (t) => {
    const loop = await running({ size: 3, repository });
    pinAll(loop);
    versionsFromImages(loop);
    // etcd reports the version it is (3.5.1), not its image's digest.
    const etcd = loop.etcd as any;
    const health = etcd.health.bind(etcd);
    etcd.health = async (url: string) => {
      const h = await health(url);
      if (typeof h.version === 'string') h.version = h.version.split('@')[0];
      return h;
    };
    loop.spec = { ...loop.spec, version: '3.5.1' };
    for (let i = 0; i < 60; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      await loop.step();
    }
    const upgrading = condition(loop.s(), 'Upgrading');
    t.comment(`images ${JSON.stringify(images(loop))}; Upgrading ${JSON.stringify(upgrading)}`);
    t.same(
      Object.values(images(loop)).filter((img) => !img.startsWith(`${repository}:v3.5.1`)),
      [],
      'every member runs 3.5.1 within the hour',
    );
    t.not(upgrading?.status, 'True', 'the upgrade has ended');
    t.equal(condition(loop.s(), 'Ready')?.status, 'True', 'Ready at the end');
  });
