// Member pods whose images an admission policy resolves to digests and whose tag it takes off (Sigstore's
// policy-controller writes `quay.io/coreos/etcd@sha256:<hex>` for `quay.io/coreos/etcd:v3.5.0`, at the digest the tag
// names then) are moved like any other: the hook reads the version it gave each pod from its own record on the pod,
// never from the image text. An upgrade moves every member one at a time and ends; a change of spec.repository
// moves every member in place and ends; one taken back while its first member has not served is given back at once
// (spelled as the policy spells it: Docker Hub's registry written out). Each answer is fed back as the next
// observed state, as the API server holds it once the policy pinned it.
import { createHash } from 'node:crypto';
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { running, syncsUntilMoved, versionsFromImages, type Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (s: any, type: string) => (s.conditions ?? []).find((c: any) => c.type === type);

/** The digest each image reference resolves to (one per repository and tag). */
const digests = new Map<string, string>();
function digestOf(image: string): string {
  const hex = createHash('sha256').update(image).digest('hex');
  digests.set(hex, image);
  return hex;
}

/**
 * `image` as the policy-controller writes it: the repository at the digest its tag resolved to, no tag (`keepTag`: as
 * Kyverno writes it, the tag kept; `spellOut`: Docker Hub's registry written out).
 */
function resolved(image: string, { spellOut = false, keepTag = false } = {}): string {
  const at = image.lastIndexOf(':');
  const repo = image.slice(0, at);
  const named = spellOut && !repo.split('/')[0]!.includes('.') ? `docker.io/${repo}` : repo;
  return `${named}${keepTag ? image.slice(at) : ''}@sha256:${digestOf(image)}`;
}

/** From now on every member pod is observed as the API server holds it once the policy resolved its images. */
function pinAll(loop: Loop, how: { spellOut?: boolean; keepTag?: boolean } = {}): void {
  const observed = loop.observed.bind(loop);
  loop.observed = () =>
    observed().map((o: KubeObject) => {
      if (o.kind !== 'Pod') return o;
      const copy = structuredClone(o) as any;
      for (const c of copy.spec?.containers ?? [])
        if (typeof c.image === 'string' && !c.image.includes('@')) c.image = resolved(c.image, how);
      return copy;
    });
}

/** The image each member pod runs (the reference its digest was resolved from), by pod name. */
function runs(loop: Loop): Record<string, string> {
  return Object.fromEntries(
    loop.children
      .filter((c) => c.kind === 'Pod')
      .map((p: any) => {
        const img = String(p.spec.containers[0].image);
        const at = img.indexOf('@sha256:');
        return [p.metadata.name, at >= 0 ? (digests.get(img.slice(at + 8)) ?? img) : img];
      }),
  );
}

/** Each member serves the version of the image it runs (its etcd answers so, never with its digest). */
const versionsFromDigests = (loop: Loop) => versionsFromImages(loop, runs);

t.test('an upgrade of members pinned by digest without their tag moves every member and ends', async (t) => {
  const loop = await running({ size: 3 });
  pinAll(loop);
  versionsFromDigests(loop);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  for (let i = 0; i < 60; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
  }
  t.same(
    runs(loop),
    { 'e-0': 'quay.io/coreos/etcd:v3.5.1', 'e-1': 'quay.io/coreos/etcd:v3.5.1', 'e-2': 'quay.io/coreos/etcd:v3.5.1' },
    'every member runs 3.5.1 within the hour',
  );
  t.not(condition(loop.s(), 'Upgrading')?.status, 'True', 'the upgrade has ended');
  t.equal(condition(loop.s(), 'Ready')?.status, 'True', 'Ready at the end');
  t.same(loop.etcd.calls, [], 'no membership change');
});

t.test('a change of spec.repository under such a policy moves every member in place and ends', async (t) => {
  const loop = await running({ size: 3 });
  pinAll(loop);
  versionsFromDigests(loop);
  loop.spec = { ...loop.spec, repository: 'mirror.example.com/etcd' };
  for (let i = 0; i < 40; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
  }
  t.same(
    runs(loop),
    {
      'e-0': 'mirror.example.com/etcd:v3.5.0',
      'e-1': 'mirror.example.com/etcd:v3.5.0',
      'e-2': 'mirror.example.com/etcd:v3.5.0',
    },
    'every member moved',
  );
  t.not(condition(loop.s(), 'Upgrading')?.status, 'True', 'the move has ended');
  t.same(loop.etcd.calls, [], 'moved in place');
});

for (const keepTag of [false, true])
  t.test(
    `a repository change taken back before its first member served gives that member back at once (tag ${keepTag ? 'kept' : 'dropped'})`,
    async (t) => {
      // Docker Hub images, the registry spelled out by the policy (docker.io/bitnami/etcd[:v3.5.0]@sha256:...).
      const loop = await running({ size: 3, repository: 'bitnami/etcd' });
      pinAll(loop, { spellOut: true, keepTag });
      versionsFromDigests(loop);
      loop.spec = { ...loop.spec, repository: 'mirror.example.com/etcd' };
      // The mirror's image starts but its etcd never serves.
      const { moved } = await syncsUntilMoved(
        loop,
        (l) => Object.entries(runs(l)).find(([, img]) => img.startsWith('mirror.'))?.[0],
      );
      if (!moved) return t.fail(`no member moved: ${JSON.stringify(runs(loop))}`);
      loop.etcd.up.delete(moved);
      loop.podStatus.set(moved, { containerStatuses: [{ name: 'etcd', restartCount: 0, state: { running: {} } }] });
      loop.now = new Date(loop.now.getTime() + 60_000);
      await loop.step();
      // Taken back: the member is given the image it ran, in the next answer.
      loop.spec = { ...loop.spec, repository: 'bitnami/etcd' };
      loop.now = new Date(loop.now.getTime() + 60_000);
      await loop.step();
      t.equal(runs(loop)[moved], 'bitnami/etcd:v3.5.0', `${moved} given back the image it ran`);
      t.same(loop.etcd.calls, [], 'no member removed or added');
    },
  );
