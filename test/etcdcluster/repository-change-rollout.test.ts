// A change of spec.repository is a rollout like a version change (upgrade.ts): one member at a time moved to the
// new image in place, finished once every member serves it; one whose image cannot be pulled halts it
// (UpgradeFailed, bound to the image), held through a lost status, lifted by a spec.repository put back; members
// whose etcd keeps exiting on the image they ran are not moved all at once. Each answer fed back as the next
// observed state.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const QUAY = 'quay.io/coreos/etcd';
const BAD = 'mirror.example.invalid/etcd';
const PULL = { containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'ImagePullBackOff' } } }] };
const CRASH = { containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'CrashLoopBackOff' } } }] };

const podsOf = (loop: any) => loop.children.filter((c: any) => c.kind === 'Pod') as any[];
const images = (loop: any) => podsOf(loop).map((p) => `${p.metadata.name}=${p.spec.containers[0].image}`);
const upgrading = (loop: any) => (loop.s().conditions as any[]).find((c) => c.type === 'Upgrading');

/** Pods on `bad` wait on their image; the others answer. */
function pullFails(loop: any, bad: string) {
  for (const p of podsOf(loop)) {
    const name = p.metadata.name;
    if (String(p.spec.containers[0].image).startsWith(bad)) {
      loop.etcd.up.delete(name);
      loop.phase.set(name, 'Pending');
      loop.podStatus.set(name, PULL);
    } else {
      loop.etcd.up.add(name);
      loop.phase.delete(name);
      loop.podStatus.delete(name);
    }
  }
}

async function minutes(loop: any, from: number, to: number, each: () => void) {
  for (let minute = from; minute < to; minute++) {
    loop.now = new Date(FIXED_NOW.getTime() + minute * 60_000);
    each();
    await loop.step();
  }
}

t.test('a repository that has the image: every member moved, one at a time, no membership change', async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, repository: 'mirror.example.com/etcd' };
  let most = 0;
  await minutes(loop, 0, 25, () => {
    most = Math.max(most, podsOf(loop).filter((p) => p.spec.containers[0].image.startsWith('mirror.')).length);
  });
  t.same(
    images(loop),
    ['e-0', 'e-1', 'e-2'].map((n) => `${n}=mirror.example.com/etcd:v3.5.0`),
  );
  t.match(upgrading(loop), { status: 'False', reason: 'AtVersion' });
  t.same(loop.etcd.calls, [], 'moved in place');
  for (const p of podsOf(loop))
    t.notOk(p.metadata.annotations['etcd.metaops.io/upgraded-from-image'], `${p.metadata.name}: its move is done`);
  t.ok(most >= 1);
});

t.test('a failed repository change holds through a lost status; the repository put back lifts it', async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, repository: BAD };
  await minutes(loop, 0, 5, () => pullFails(loop, BAD));
  t.match(upgrading(loop), {
    status: 'False',
    reason: 'UpgradeFailed',
    message:
      /failed on mirror\.example\.invalid\/etcd:v3\.5\.0 \(ImagePullBackOff\).*set spec\.repository to quay\.io\/coreos\/etcd to roll back/,
  });
  t.match(loop.s().upgradeFailed, { image: `${BAD}:v3.5.0`, fromImage: `${QUAY}:v3.5.0`, version: '3.5.0' });
  // The status lost (a restore of etcd's own backup, a migration): the hold is on the pods.
  loop.status = undefined;
  await minutes(loop, 5, 30, () => pullFails(loop, BAD));
  t.same(
    images(loop),
    ['e-0', 'e-1', 'e-2'].map((n) => `${n}=${QUAY}:v3.5.0`),
    'no member moved to it again',
  );
  t.match(upgrading(loop), { reason: 'UpgradeFailed' });
  t.same(loop.etcd.calls, []);
  loop.spec = { ...loop.spec, repository: QUAY };
  await minutes(loop, 30, 32, () => pullFails(loop, BAD));
  t.match(upgrading(loop), { status: 'False', reason: 'AtVersion' }, 'rolled back: the hold lifted');
  t.notOk(loop.s().upgradeFailed);
  for (const p of podsOf(loop)) t.notOk(p.metadata.annotations['etcd.metaops.io/upgrade-failed']);
});

t.test('a member crash-looping on the image it ran is not moved to a new repository with the others', async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, repository: BAD };
  // e-0 and e-2 crash (an OOM kill) as the change is applied: quorum is lost.
  loop.etcd.up.delete('e-0');
  loop.etcd.up.delete('e-2');
  loop.podStatus.set('e-0', CRASH);
  loop.podStatus.set('e-2', CRASH);
  await loop.step();
  await loop.step();
  const moved = podsOf(loop).filter((p) => String(p.spec.containers[0].image).startsWith(BAD));
  t.same(
    moved.map((p) => p.metadata.name),
    [],
    'no member moved while quorum is lost: they restart on the image they ran',
  );
});

t.test(
  'a member moved to another repository whose old container still answers: the next one waits until its container runs the new image',
  async (t) => {
    const loop = await running({ size: 3 });
    const MIRROR = 'mirror.example.com/etcd';
    loop.spec = { ...loop.spec, repository: MIRROR };
    // The kubelet reports each etcd container's image; the moved member has not been restarted yet.
    const report = (name: string, img: string) =>
      loop.podStatus.set(name, { containerStatuses: [{ name: 'etcd', image: img, state: { running: {} } }] });
    for (const n of ['e-0', 'e-1', 'e-2']) report(n, `${QUAY}:v3.5.0`);
    for (let i = 0; i < 4; i++) await loop.step();
    const onMirror = () => podsOf(loop).filter((p) => p.spec.containers[0].image.startsWith(MIRROR));
    t.equal(onMirror().length, 1, 'one member moved, the others wait for it');
    const moved = onMirror()[0].metadata.name;
    t.ok(onMirror()[0].metadata.annotations['etcd.metaops.io/upgraded-from-image'], 'its move recorded until it runs');
    report(moved, `${MIRROR}:v3.5.0`);
    await loop.step();
    t.equal(onMirror().length, 1, 'the next one waits while the first has not served steadily (the soak, 5 minutes)');
    loop.now = new Date(loop.now.getTime() + 300_000);
    await loop.step();
    t.equal(onMirror().length, 2, 'the next one moved once its container runs the new image, steadily');
    t.notOk(
      podsOf(loop).find((p) => p.metadata.name === moved).metadata.annotations['etcd.metaops.io/upgraded-from-image'],
      'the move of the first one done',
    );
  },
);
