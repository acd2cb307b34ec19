// A restore checks before it acts (issue 30.5): the neighbours of restore-check-snapshot-fits-member-claims and
// restore-check-starts-members-etcd-image. The room a restored member needs is compared with its claim's request in
// every unit a Kubernetes quantity takes, and with the etcd container's ephemeral-storage limit when members keep
// their data on an emptyDir; a snapshot that fits goes ahead; a step of the check that cannot run the members' etcd
// image refuses the restore at once, naming it.
import t from 'tap';
import { quantityValue } from '../../lib/index.js';
import { checkVerdict, restoreRoom, roomProblem, RESTORE_ROOM_MARGIN } from '../../hooks/etcdcluster/restore.js';
import { running, restoreObject } from '../fixtures/etcd-loop.js';

const GiB = 1024 ** 3;

t.test('Kubernetes quantities in bytes, as the API server reads them', async (t) => {
  const cases: Array<[unknown, number | undefined]> = [
    ['1Gi', GiB],
    ['1G', 1e9],
    ['1500M', 1.5e9],
    ['0.5Gi', GiB / 2],
    ['1e9', 1e9],
    ['1E3', 1000],
    ['2.5e-3', 1],
    ['100m', 1],
    ['1000m', 1],
    ['+2Ki', 2048],
    ['.5Ki', 512],
    ['1Ti', 1024 ** 4],
    ['8Ei', 8 * 1024 ** 6],
    [3, 3],
    ['10', 10],
    ['-1Gi', undefined],
    ['1 Gi', undefined],
    ['1gi', undefined],
    ['1GiB', undefined],
    ['', undefined],
    [null, undefined],
    [{}, undefined],
  ];
  for (const [q, want] of cases) t.equal(quantityValue(q), want, JSON.stringify(q));
});

t.test('the room a snapshot needs on a member volume, compared in any unit', async (t) => {
  const claim = (storage: unknown) =>
    ({ pod: { persistentVolumeClaimSpec: { resources: { requests: { storage } } } } }) as any;
  t.equal(restoreRoom(GiB), 2 * GiB + RESTORE_ROOM_MARGIN);
  t.match(roomProblem(claim('1Gi'), GiB), /needs 2\.1 GiB .* on its claim .*requests 1\.0 GiB/);
  t.equal(roomProblem(claim('3Gi'), GiB), undefined, '3Gi holds a 1 GiB snapshot and its copy');
  t.ok(roomProblem(claim('2G'), GiB), '2G (decimal) is less than two GiB');
  t.equal(roomProblem(claim(String(2 * GiB + RESTORE_ROOM_MARGIN)), GiB), undefined, 'exactly the room needed');
  t.ok(roomProblem(claim(String(2 * GiB + RESTORE_ROOM_MARGIN - 1)), GiB), 'a byte short');
  t.ok(roomProblem(claim('2.2e9'), GiB), 'an exponent form');
  t.equal(roomProblem(claim('2200Mi'), GiB), undefined, '2200Mi is more than 2 GiB + 128 MiB');
  t.equal(roomProblem(claim('1Gi'), undefined), undefined, 'no size reported: not compared');
  t.equal(roomProblem({} as any, 100 * GiB), undefined, 'an emptyDir without a limit: nothing is known');
  t.match(
    roomProblem({ pod: { resources: { limits: { 'ephemeral-storage': '1Gi' } } } } as any, GiB),
    /emptyDir .*ephemeral-storage 1\.0 GiB/,
    "an emptyDir bounded by the etcd container's ephemeral-storage limit",
  );
});

t.test('a snapshot that fits the claims: the restore goes ahead', async (t) => {
  const loop = await running({
    size: 3,
    pod: {
      persistentVolumeClaimSpec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } },
      // A 3 GiB backend needs a quota above etcd's default 2 GiB (restore.ts quotaProblem): the members run with one.
      etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: String(8 * GiB) }],
    },
  });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  loop.check = { succeeded: true, size: 3 * GiB, sha256: 'a'.repeat(64) } as unknown as { succeeded: boolean };
  for (let i = 0; i < 4; i++) await loop.step();
  t.match(loop.s().restore?.phase, /^(Replacing|Restoring|Restored)$/, 'the restore goes on');
});

t.test("a snapshot larger than the emptyDir's ephemeral-storage limit: refused, the reason said", async (t) => {
  const loop = await running({ size: 3, pod: { resources: { limits: { 'ephemeral-storage': '2Gi' } } } });
  const before = loop.pods();
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  loop.check = { succeeded: true, size: GiB, sha256: 'a'.repeat(64) } as unknown as { succeeded: boolean };
  for (let i = 0; i < 4; i++) await loop.step();
  t.equal(loop.s().restore?.phase, 'Failed');
  t.equal(loop.s().restore?.untouched, true, 'the cluster untouched');
  t.match(loop.s().restore?.reason, /ephemeral-storage/);
  t.same(loop.pods(), before, 'the running members kept');
});

t.test("a check step that cannot run the members' etcd image fails the check at once, naming it", async (t) => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'e-restore-check' },
    spec: { initContainers: [{ name: 'etcd-image', image: 'mirror.example/etcd:v3.5.99' }] },
    status: {
      phase: 'Failed',
      initContainerStatuses: [{ name: 'etcd-image', state: { terminated: { exitCode: 127, reason: 'Error' } } }],
      containerStatuses: [{ name: 'check', state: { waiting: { reason: 'PodInitializing' } } }],
    },
  };
  const v = checkVerdict(pod, '2026-01-01T00:00:00Z', new Date('2026-01-01T00:00:10Z'));
  t.equal(v.state, 'failed');
  t.match((v as any).reason, /etcd-image \(image mirror\.example\/etcd:v3\.5\.99\) exited with 127/);
  const fine = structuredClone(pod);
  fine.status.initContainerStatuses[0]!.state.terminated.exitCode = 0;
  fine.status.phase = 'Pending';
  t.equal(checkVerdict(fine, '2026-01-01T00:00:00Z', new Date('2026-01-01T00:00:10Z')).state, 'waiting');
});
