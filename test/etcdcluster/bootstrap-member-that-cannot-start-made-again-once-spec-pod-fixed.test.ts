// Issue 30 (a dependency that half-works): a bootstrap whose members' etcd container cannot be created
// (CreateContainerConfigError: spec.pod.etcdEnv takes a value from a Secret that does not exist, allowed under
// METAOPS_ETCD_ALLOW_REFERENCES) is said (MemberCannotStart) and is no failed start: its etcd never ran. The status
// tells the user to fix spec.pod; but a member pod is never changed in place, and while the first members start the
// rule that makes a member again with the spec's pod (plan/respec.ts) does not apply: the pods kept the Secret name of
// the spec they were made from, and the bootstrap waited on them for ever after the spec named the right Secret.
//
// Must hold: the bootstrap's members that cannot start on the spec.pod they were made from are made again with the
// spec's once it changes (their etcd never ran: nothing to keep), once per change, never counted as a failed start;
// the cluster then forms. A Secret that appears under the name the pods carry needs nothing of the hook (the kubelet
// creates the container then): nothing is made again. Each answer fed back as the next observed state.
import t from 'tap';
import { clusterOf, peerURL } from '../../hooks/etcdcluster/members.js';
import { answeredPod, FakeEtcd, Loop, PVC } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const fromSecret = (name: string) => [
  { name: 'ETCD_SNAPSHOT_COUNT', valueFrom: { secretKeyRef: { name, key: 'quota' } } },
];
const waiting = (secret: string) => ({
  phase: 'Pending',
  containerStatuses: [
    {
      name: 'etcd',
      restartCount: 0,
      state: { waiting: { reason: 'CreateContainerConfigError', message: `secret "${secret}" not found` } },
    },
  ],
});
const secretOf = (loop: Loop, n: string): string | undefined =>
  (answeredPod(loop, n) as any)?.spec.containers
    .find((c: any) => c.name === 'etcd')
    ?.env?.find((e: any) => e.name === 'ETCD_SNAPSHOT_COUNT')?.valueFrom?.secretKeyRef?.name;

/**
 * The kubelet and etcd over the syncs, one sync every 5 s: a member pod whose env names a Secret not in `secrets`, or
 * whose init steps run an image in `unpullable` (`on` its node: the pods named), waits (CreateContainerConfigError,
 * ImagePullBackOff); the others start. Once a majority of the answered pods started, etcd lists the start's members
 * (those that never started without a name) and answers through the started ones.
 */
function world(loop: Loop, secrets: Set<string>, unpullable = '', on: string[] = []) {
  const c = clusterOf(loop.parent(), loop.parent().spec as any);
  let s = 0;
  return async () => {
    s += 5;
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    const pods = loop.pods();
    const started: string[] = [];
    for (const p of pods) {
      const secret = secretOf(loop, p);
      const inits = ((answeredPod(loop, p) as any)?.spec.initContainers ?? []).map((i: any) => i.image);
      if (secret && !secrets.has(secret)) loop.podStatus.set(p, waiting(secret));
      else if (unpullable && on.includes(p) && inits.includes(unpullable))
        loop.podStatus.set(p, {
          phase: 'Pending',
          initContainerStatuses: [{ name: 'check-dns', state: { waiting: { reason: 'ImagePullBackOff' } } }],
          containerStatuses: [{ name: 'etcd', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
        });
      else {
        loop.podStatus.delete(p);
        started.push(p);
      }
    }
    const listed = new Set(loop.etcd.members.map((m) => m.peerURLs[0]));
    if (started.length * 2 > pods.length && !pods.every((p) => listed.has(peerURL(c, p)))) {
      if (loop.etcd.members.length === 0)
        loop.etcd.members = pods.map((name, i) => ({
          id: String(10 + i),
          name: '',
          peerURLs: [peerURL(c, name)],
          clientURLs: [],
          isLearner: false,
        }));
    }
    for (const p of started) if (loop.etcd.members.some((m) => m.peerURLs[0] === peerURL(c, p))) loop.etcd.up.add(p);
    for (const p of pods) if (!started.includes(p)) loop.etcd.up.delete(p);
    await loop.step();
  };
}

for (const storage of [false, true])
  t.test(
    `a bootstrap member that cannot start on a missing Secret is made again once spec.pod is fixed${storage ? ' (storage)' : ''}`,
    async (t) => {
      const pvc = storage ? { persistentVolumeClaimSpec: PVC } : {};
      const loop = new Loop({ size: 3, pod: { ...pvc, etcdEnv: fromSecret('etcd-conf') } }, new FakeEtcd());
      loop.settings = { allowReferences: true };
      const tick = world(loop, new Set(['etcd-config']));
      for (let k = 0; k < 6 && loop.pods().length === 0; k++) await tick();
      const first = loop.pods();
      t.same(first, ['e-0', 'e-1', 'e-2'], 'the bootstrap starts');
      for (let i = 0; i < 24; i++) await tick();
      const before = (loop.s().conditions as any[]).find((c) => c.type === 'Scaling');
      t.equal(before?.reason, 'MemberCannotStart', `said: ${before?.message}`);
      t.notOk(loop.s().bootstrapFailed, 'no failed start counted');
      // The user names the Secret that exists.
      loop.spec = { ...loop.spec, pod: { ...pvc, etcdEnv: fromSecret('etcd-config') } };
      await tick();
      const restarted = (loop.s().conditions as any[]).find((c) => c.type === 'Scaling');
      t.equal(restarted?.reason, 'RestartingBootstrap');
      t.match(restarted?.message, /e-0, e-1, e-2 could not start on the spec\.pod they were made from/, 'said why');
      const starts = new Set<string>();
      for (let i = 0; i < 60 && loop.s().phase !== 'Running'; i++) {
        await tick();
        if (loop.pods().length) starts.add(loop.pods().join());
      }
      t.same([...starts], ['e-3,e-4,e-5'], 'one new start, with the spec of the moment');
      t.equal(loop.s().phase, 'Running', `the cluster forms: ${JSON.stringify(loop.s().conditions)}`);
      for (const p of loop.pods()) t.equal(secretOf(loop, p), 'etcd-config', `${p} runs with the fixed spec.pod`);
      t.equal(loop.pods().length, 3);
      t.notOk(loop.s().bootstrapFailed, 'no failed start counted');
      // Once running, nothing more is made again.
      const running = JSON.stringify(loop.children.filter((c) => c.kind === 'Pod'));
      for (let i = 0; i < 12; i++) await tick();
      t.equal(
        JSON.stringify(loop.children.filter((c) => c.kind === 'Pod')),
        running,
        'the members are kept as they run',
      );
    },
  );

t.test('a bootstrap member waiting on a Secret that then appears starts as it was made', async (t) => {
  const loop = new Loop({ size: 3, pod: { etcdEnv: fromSecret('etcd-conf') } }, new FakeEtcd());
  loop.settings = { allowReferences: true };
  const secrets = new Set<string>();
  const tick = world(loop, secrets);
  for (let k = 0; k < 6 && loop.pods().length === 0; k++) await tick();
  const first = JSON.stringify(loop.children.filter((c) => c.kind === 'Pod'));
  for (let i = 0; i < 24; i++) await tick();
  secrets.add('etcd-conf');
  for (let i = 0; i < 12 && loop.s().phase !== 'Running'; i++) await tick();
  t.equal(loop.s().phase, 'Running');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the first members, not made again');
  t.equal(
    JSON.parse(first)
      .map((p: any) => p.metadata.annotations['etcd.metaops.io/pod-spec'])
      .join(),
    loop.children
      .filter((c) => c.kind === 'Pod')
      .map((p) => p.metadata.annotations!['etcd.metaops.io/pod-spec'])
      .join(),
  );
});

// A bootstrap member stuck alone (its node cannot pull spec.pod.busyboxImage: a private mirror it has no pull secret
// for) while the others form the cluster: etcd lists it without a name (it never started), and the fixed image reaches
// it as it reaches any member that never started (made again under its name); the others are kept.
t.test(
  'a bootstrap member stuck alone on an init image is made again once spec.pod is fixed, the others kept',
  async (t) => {
    const bad = 'registry.example/busybox:1.36';
    const loop = new Loop({ size: 3, pod: { busyboxImage: bad } }, new FakeEtcd());
    const tick = world(loop, new Set(), bad, ['e-0']);
    for (let k = 0; k < 6 && loop.pods().length === 0; k++) await tick();
    for (let i = 0; i < 24; i++) await tick();
    const others = JSON.stringify(['e-1', 'e-2'].map((n) => answeredPod(loop, n)));
    t.equal(loop.s().phase, 'Running', 'e-1 and e-2 form the cluster');
    loop.spec = { ...loop.spec, pod: { busyboxImage: 'busybox:1.36' } };
    for (let i = 0; i < 24; i++) await tick();
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'under the first names');
    t.notOk(
      ((answeredPod(loop, 'e-0') as any).spec.initContainers as any[]).some((i) => i.image === bad),
      'e-0 runs the fixed image',
    );
    t.equal(
      JSON.stringify(['e-1', 'e-2'].map((n) => answeredPod(loop, n))),
      others,
      'e-1 and e-2 are kept as they run',
    );
    t.equal(
      (loop.s().conditions as any[]).find((c) => c.type === 'Available')?.reason,
      'QuorumAvailable',
      'every member serves',
    );
  },
);

// A member pod that is only being made (its image pulled, its container created) can start: a spec.pod changed
// meanwhile reaches it in no new start, whether or not its etcd ran (the cannot-start rule needs both).
t.test('bootstrap members still being created are kept when spec.pod changes', async (t) => {
  const loop = new Loop({ size: 3, pod: { resources: { limits: { memory: '256Mi' } } } }, new FakeEtcd());
  for (let k = 0; k < 6 && loop.pods().length === 0; k++) await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the bootstrap starts');
  const creating = {
    phase: 'Pending',
    containerStatuses: [{ name: 'etcd', restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }],
  };
  for (const p of loop.pods()) loop.podStatus.set(p, creating);
  await loop.step();
  const made = JSON.stringify(loop.children.filter((c) => c.kind === 'Pod'));
  loop.spec = { ...loop.spec, pod: { resources: { limits: { memory: '2Gi' } } } };
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'no new start');
  t.equal(JSON.stringify(loop.children.filter((c) => c.kind === 'Pod')), made, 'the pods as they were made');
  t.not((loop.s().conditions as any[]).find((c) => c.type === 'Scaling')?.reason, 'RestartingBootstrap');
});
