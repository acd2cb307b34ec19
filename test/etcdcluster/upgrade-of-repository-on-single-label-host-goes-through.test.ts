// spec.repository may name a registry host of one label written in capitals (`Registry/etcd`): the distribution
// reference grammar the kubelet parses images with (splitDockerDomain) reads a first component that is not all
// lower-case as a registry host, so `Registry/etcd:v3.5.1` is the image etcd:v3.5.1 of host Registry, and the spec's
// check (lib/values.ts imageProblem) accepts it. An upgrade of such a cluster goes through like any other: each member
// moved serves the version of its image's tag, every member ends on 3.5.1 and the upgrade ends. Each answer is fed
// back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { images, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (s: any, type: string) => (s.conditions ?? []).find((c: any) => c.type === type);

for (const repository of ['Registry/etcd', 'quay.io/coreos/etcd'])
  t.test(`an upgrade of members of repository ${repository} moves every member and ends`, async (t) => {
    const loop = await running({ size: 3, repository });
    t.equal(
      condition(loop.s(), 'Ready')?.status,
      'True',
      `Ready before (${JSON.stringify(condition(loop.s(), 'Ready'))})`,
    );
    versionsFromImages(loop);
    loop.spec = { ...loop.spec, version: '3.5.1' };
    for (let i = 0; i < 60; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      await loop.step();
    }
    const upgrading = condition(loop.s(), 'Upgrading');
    const ready = condition(loop.s(), 'Ready');
    t.comment(`images ${JSON.stringify(images(loop))}; Upgrading ${JSON.stringify(upgrading)}`);
    t.same(
      Object.values(images(loop)).filter((img) => img !== `${repository}:v3.5.1`),
      [],
      'every member runs 3.5.1 within the hour',
    );
    t.not(upgrading?.status, 'True', `the upgrade has ended (${JSON.stringify(upgrading)})`);
    t.equal(ready?.status, 'True', `Ready at the end (${JSON.stringify(ready)})`);
  });
