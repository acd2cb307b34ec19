// Member pods whose images an admission webhook points at a registry mirror (Kyverno's "replace image registry"
// policy, an air-gapped cluster's rewriter: `quay.io/coreos/etcd:v3.5.0` held as
// `mirror.example.com/coreos/etcd:v3.5.0`) run the image the hook gave, at the same tag: the hook reads the image it
// gave from its own record on the pod (`etcd.metaops.io/image`, with `etcd.version`), never from the image text. A
// cluster at rest on them is not upgrading; an upgrade and a change of spec.repository move every member and end.
// Each answer is fed back as the next observed state, as the API server holds it once the webhook rewrote it.
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { MEMBER_IMAGE, memberImage } from '../../hooks/etcdcluster/members.js';
import { running, versionsFromImages, type Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (s: any, type: string) => (s.conditions ?? []).find((c: any) => c.type === type);

/** `image` as the webhook rewrites it: its registry the mirror's. */
const mirrored = (image: string): string => image.replace(/^[^/]+\.[^/]+\//, 'mirror.example.com/');

/** From now on every member pod is observed as the API server holds it once the webhook rewrote its images. */
function mirrorAll(loop: Loop): void {
  const observed = loop.observed.bind(loop);
  loop.observed = () =>
    observed().map((o: KubeObject) => {
      if (o.kind !== 'Pod') return o;
      const copy = structuredClone(o) as any;
      for (const c of [...(copy.spec?.initContainers ?? []), ...(copy.spec?.containers ?? [])])
        if (typeof c.image === 'string') c.image = mirrored(c.image);
      return copy;
    });
}

/** The image each member pod was given (the reference the webhook rewrote), by pod name. */
function runs(loop: Loop): Record<string, string> {
  return Object.fromEntries(
    loop.children
      .filter((c) => c.kind === 'Pod')
      .map((p: any) => [p.metadata.name, p.metadata.annotations[MEMBER_IMAGE]]),
  );
}

/** Each member's pod as the API server holds it: the mirror's image. */
const held = (loop: Loop) =>
  Object.fromEntries(
    loop
      .observed()
      .filter((c) => c.kind === 'Pod')
      .map((p: any) => [p.metadata.name, p.spec.containers[0].image]),
  );

async function minutes(loop: Loop, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
  }
}

t.test('a member pod whose registry a webhook rewrote is read at the image the hook gave it', async (t) => {
  const pod = (image: string, annotations: Record<string, unknown>): KubeObject =>
    ({ kind: 'Pod', metadata: { name: 'e-0', annotations }, spec: { containers: [{ name: 'etcd', image }] } }) as any;
  const given = { 'etcd.version': '3.5.0', [MEMBER_IMAGE]: 'quay.io/coreos/etcd:v3.5.0' };
  t.equal(memberImage(pod('mirror.example.com/coreos/etcd:v3.5.0', given)), 'quay.io/coreos/etcd:v3.5.0');
  t.equal(
    memberImage(pod('mirror.example.com/quay/coreos/etcd:v3.5.0@sha256:' + 'a'.repeat(64), given)),
    'quay.io/coreos/etcd:v3.5.0',
    'a repository path rewritten and a digest pinned',
  );
  t.equal(
    memberImage(pod('mirror.example.com/coreos/etcd:v3.5.1', given)),
    'mirror.example.com/coreos/etcd:v3.5.1',
    'another tag than the one given: read as written',
  );
  t.equal(
    memberImage(pod('mirror.example.com/coreos/etcd:v3.5.0', { [MEMBER_IMAGE]: 'quay.io/coreos/etcd:v3.5.0' })),
    'mirror.example.com/coreos/etcd:v3.5.0',
    'no version recorded: read as written',
  );
  t.equal(
    memberImage(pod('mirror.example.com/coreos/etcd:v3.5.0', { ...given, [MEMBER_IMAGE]: { toString: 1 } })),
    'mirror.example.com/coreos/etcd:v3.5.0',
    'a record that is no text: read as written',
  );
});

t.test('a cluster at rest on a registry mirror is Ready, not upgrading, its pods as held', async (t) => {
  const loop = await running({ size: 3 });
  mirrorAll(loop);
  versionsFromImages(loop, held);
  await minutes(loop, 10);
  const status = JSON.stringify(loop.s());
  await minutes(loop, 3);
  t.not(condition(loop.s(), 'Upgrading')?.status, 'True', 'no upgrade');
  t.equal(condition(loop.s(), 'Ready')?.status, 'True', 'Ready');
  t.equal(JSON.stringify(loop.s()), status, 'the status stable');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the same members');
  t.same(loop.etcd.calls, [], 'no membership change');
});

t.test('an upgrade of members on a registry mirror moves every member and ends', async (t) => {
  const loop = await running({ size: 3 });
  mirrorAll(loop);
  versionsFromImages(loop, held);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  await minutes(loop, 60);
  t.same(held(loop), {
    'e-0': 'mirror.example.com/coreos/etcd:v3.5.1',
    'e-1': 'mirror.example.com/coreos/etcd:v3.5.1',
    'e-2': 'mirror.example.com/coreos/etcd:v3.5.1',
  });
  t.same(runs(loop), {
    'e-0': 'quay.io/coreos/etcd:v3.5.1',
    'e-1': 'quay.io/coreos/etcd:v3.5.1',
    'e-2': 'quay.io/coreos/etcd:v3.5.1',
  });
  t.not(condition(loop.s(), 'Upgrading')?.status, 'True', 'the upgrade has ended');
  t.equal(condition(loop.s(), 'Ready')?.status, 'True', 'Ready at the end');
  t.same(loop.etcd.calls, [], 'no membership change');
});

t.test('a change of spec.repository under a mirror webhook moves every member in place and ends', async (t) => {
  const loop = await running({ size: 3 });
  mirrorAll(loop);
  versionsFromImages(loop, held);
  loop.spec = { ...loop.spec, repository: 'gcr.io/etcd-development/etcd' };
  await minutes(loop, 40);
  t.same(runs(loop), {
    'e-0': 'gcr.io/etcd-development/etcd:v3.5.0',
    'e-1': 'gcr.io/etcd-development/etcd:v3.5.0',
    'e-2': 'gcr.io/etcd-development/etcd:v3.5.0',
  });
  t.same(held(loop), {
    'e-0': 'mirror.example.com/etcd-development/etcd:v3.5.0',
    'e-1': 'mirror.example.com/etcd-development/etcd:v3.5.0',
    'e-2': 'mirror.example.com/etcd-development/etcd:v3.5.0',
  });
  t.not(condition(loop.s(), 'Upgrading')?.status, 'True', 'the move has ended');
  t.same(loop.etcd.calls, [], 'moved in place');
});
