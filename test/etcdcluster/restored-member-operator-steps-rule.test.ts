// Which restored member pods take this metaops' image in their operator steps (plan/member-pods.ts withOperatorSteps):
// only those whose restore step waits because its image cannot be had and would take another (the etcd step: the
// member's etcd image); decided on the observed
// pod (its status), applied to the copy answered. The scenario over several syncs:
// restored-member-steps-take-current-image.test.ts.
import t from 'tap';
import { memberPod } from '../../hooks/etcdcluster/members.js';
import { withOperatorSteps } from '../../hooks/etcdcluster/plan/member-pods.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { etcdParent, etcdSnapshot, etcdSpec } from '../fixtures/etcd.js';
import { stepImages } from '../fixtures/etcd-loop.js';
import { asObserved } from '../fixtures/requests.js';

t.test('which restored member pods take the current image in their operator steps', async (t) => {
  const made = memberPod({
    parent: etcdParent({}),
    spec: etcdSpec({}),
    name: 'e-3',
    initialCluster: '',
    state: 'new',
    restore: { ...etcdSnapshot, image: 'metaops:old' },
  });
  const withStatus = (status: Record<string, unknown>) => asObserved(made, status);
  const waiting = (name: string, reason: string) =>
    withStatus({ phase: 'Pending', initContainerStatuses: [{ name, state: { waiting: { reason } } }] });
  const current = 'metaops:new';
  const moved = (observed: KubeObject) => stepImages(withOperatorSteps(made, observed, current));
  for (const reason of ['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull'])
    for (const step of ['fetch-snapshot', 'place-snapshot'])
      t.match(
        moved(waiting(step, reason)),
        { 'fetch-snapshot': current, 'place-snapshot': current, 'restore-snapshot': 'quay.io/coreos/etcd:v3.5.0' },
        `${step} waits: ${reason}`,
      );
  const kept = { 'fetch-snapshot': 'metaops:old', 'place-snapshot': 'metaops:old' };
  t.match(moved(waiting('fetch-snapshot', 'CreateContainerConfigError')), kept, 'waiting for something else');
  t.match(moved(waiting('restore-snapshot', 'ImagePullBackOff')), kept, "the etcd step's image is not ours to move");
  t.match(moved(waiting('check-dns', 'ImagePullBackOff')), kept, 'nor the DNS step');
  // Upgraded since (another version, a mirror): the etcd container runs another image than the etcd step was made with.
  const upgraded = structuredClone(made);
  (upgraded['spec'] as any).containers.find((c: any) => c.name === 'etcd').image = 'mirror.example/etcd:v3.5.1';
  const upgradedWaiting = (name: string) =>
    asObserved(upgraded, {
      phase: 'Pending',
      initContainerStatuses: [{ name, state: { waiting: { reason: 'ImagePullBackOff' } } }],
    });
  t.match(
    stepImages(withOperatorSteps(upgraded, upgradedWaiting('restore-snapshot'), current)),
    { 'fetch-snapshot': current, 'place-snapshot': current, 'restore-snapshot': 'mirror.example/etcd:v3.5.1' },
    "upgraded, the etcd step waits for the old etcd image: it takes the member's etcd image (and the operator steps this metaops')",
  );
  t.match(
    stepImages(withOperatorSteps(upgraded, upgradedWaiting('fetch-snapshot'), current)),
    { 'fetch-snapshot': current, 'place-snapshot': current, 'restore-snapshot': 'mirror.example/etcd:v3.5.1' },
    'upgraded, an operator step waits: every restore step takes the image of the moment (one restart)',
  );
  // Restored on 3.4 (its step runs `etcdctl snapshot restore`, gone from etcd 3.6): moved to 3.5, not to 3.6.
  const on34 = memberPod({
    parent: etcdParent({}),
    spec: etcdSpec({ version: '3.4.13' }),
    name: 'e-3',
    initialCluster: '',
    state: 'new',
    restore: { ...etcdSnapshot, image: current },
  });
  const to = (version: string) => {
    const p = structuredClone(on34);
    (p['spec'] as any).containers.find((c: any) => c.name === 'etcd').image = `quay.io/coreos/etcd:v${version}`;
    p.metadata.annotations = { ...p.metadata.annotations, 'etcd.version': version };
    const observed = asObserved(p, {
      phase: 'Pending',
      initContainerStatuses: [{ name: 'restore-snapshot', state: { waiting: { reason: 'ImagePullBackOff' } } }],
    });
    return stepImages(withOperatorSteps(p, observed, current))['restore-snapshot'];
  };
  t.equal(to('3.5.17'), 'quay.io/coreos/etcd:v3.5.17', 'an etcdctl step moves to 3.5, which still has its command');
  t.equal(to('3.6.0'), 'quay.io/coreos/etcd:v3.4.13', 'not to 3.6, which has not: left as it was made');
  t.match(
    stepImages(withOperatorSteps(upgraded, upgradedWaiting('check-dns'), current)),
    { ...kept, 'restore-snapshot': 'quay.io/coreos/etcd:v3.5.0' },
    'upgraded, the DNS step waits: nothing moves',
  );
  t.match(
    moved(
      withStatus({ phase: 'Pending', initContainerStatuses: [{ name: 'fetch-snapshot', state: { running: {} } }] }),
    ),
    kept,
    'a step at work',
  );
  t.match(
    moved(
      withStatus({
        phase: 'Running',
        initContainerStatuses: [{ name: 'fetch-snapshot', state: { terminated: { exitCode: 0 } } }],
        containerStatuses: [{ name: 'etcd', state: { running: {} } }],
      }),
    ),
    kept,
    'a member that runs',
  );
  t.match(moved(withStatus({ phase: 'Pending' })), kept, 'no init status');
  t.equal(
    withOperatorSteps(made, waiting('fetch-snapshot', 'ImagePullBackOff'), undefined),
    made,
    'without an image setting: as it is',
  );
  const same = memberPod({
    parent: etcdParent({}),
    spec: etcdSpec({}),
    name: 'e-3',
    initialCluster: '',
    state: 'new',
    restore: { ...etcdSnapshot, image: current },
  });
  t.equal(
    withOperatorSteps(
      same,
      asObserved(same, {
        initContainerStatuses: [{ name: 'fetch-snapshot', state: { waiting: { reason: 'ErrImagePull' } } }],
      }),
      current,
    ),
    same,
    'already on the current image (the image itself cannot be pulled): as it is',
  );
  const plain = memberPod({
    parent: etcdParent({}),
    spec: etcdSpec({}),
    name: 'e-0',
    initialCluster: '',
    state: 'new',
  });
  t.equal(withOperatorSteps(plain, asObserved(plain, { phase: 'Pending' }), current), plain, 'a member never restored');
  // Observed pods are input: anything in their lists is no step.
  const odd: any = { ...made, spec: { ...(made['spec'] as any), initContainers: [null, 7, { name: 3 }] } };
  t.equal(
    withOperatorSteps(
      odd,
      asObserved(odd, {
        initContainerStatuses: [null, { name: 'fetch-snapshot', state: { waiting: { reason: 'ErrImagePull' } } }],
      }),
      current,
    ),
    odd,
  );
  t.equal(withOperatorSteps(made, asObserved(made, { initContainerStatuses: 'x' }), current), made);
});
