// A restore checks before it acts (issue 30.5): the check pod's etcd-start (restore.ts etcdStartContainer) takes the
// members' env "exactly" (docs/etcdcluster.md), spec.pod.etcdEnv copied as written. But an env entry is resolved by
// the kubelet against the pod it is in. The common GOMEMLIMIT idiom
//     { name: GOMEMLIMIT, valueFrom: { resourceFieldRef: { containerName: etcd, resource: limits.memory } } }
// is accepted by the hook's checks (lib/values.ts envProblem) and by the API server (both pods, member and check,
// created with --dry-run=server on kube-apiserver 1.36.3: accepted), and resolves in every member pod, whose
// container is named `etcd`. The check pod has no container named `etcd` (check, etcd-start): the kubelet's
// containerResourceRuntimeValue -> ExtractResourceValueByContainerName -> findContainerInPod fails, and etcd-start
// never starts (CreateContainerConfigError). The check container passes, etcd-start waits, and at the check's
// 10-minute deadline the restore is refused ("... did not finish within 10 minutes (etcd-start:
// CreateContainerConfigError)"): every EtcdRestore of such a cluster is refused, though its members would start.
//
// Must hold: the check pod's env resolves wherever the members' does (each resourceFieldRef.containerName names a
// container of the check pod), and a restore of a cluster whose members take that env is carried out. The kubelet is
// stood in for by what it does with such a reference; each answer fed back as the next observed state.
import t from 'tap';
import { memberPod, type MemberPodOptions } from '../../hooks/etcdcluster/members.js';
import { RESTORE_CHECK_SECONDS, restoreCheckPod } from '../../hooks/etcdcluster/restore.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { etcdStarted, restoreObject, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const etcdEnv = [
  { name: 'GOMEMLIMIT', valueFrom: { resourceFieldRef: { containerName: 'etcd', resource: 'limits.memory' } } },
];
const resources = { requests: { memory: '1Gi' }, limits: { memory: '1Gi' } };

/** The kubelet's refusal to make a container whose env names a container the pod does not have, if it refuses. */
function envError(pod: KubeObject, container: string): string | undefined {
  const spec = pod['spec'] as { containers?: any[]; initContainers?: any[] };
  const names = new Set((spec.containers ?? []).map((c) => c.name));
  const c = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].find((x) => x.name === container);
  for (const e of (c?.env ?? []) as any[]) {
    const ref = e?.valueFrom?.resourceFieldRef;
    if (ref?.containerName && !names.has(ref.containerName)) return `container ${ref.containerName} not found`;
  }
  return undefined;
}

t.test("the check pod's etcd env resolves where the members' does", async (t) => {
  const parent: any = { metadata: { name: 'e', namespace: 'ns', uid: 'u' }, spec: {} };
  const spec: any = { size: 3, version: '3.6.9', repository: 'quay.io/coreos/etcd', pod: { etcdEnv, resources } };
  const source = { s3: { path: 'bucket/ns/snap.db', awsSecret: 'aws' }, image: 'metaops:test' };
  const member = memberPod({
    parent,
    spec,
    name: 'e-3',
    initialCluster: 'e-3=http://e-3.e.ns.svc:2380',
    state: 'new',
    restore: source,
  } as MemberPodOptions);
  t.equal(envError(member, 'etcd'), undefined, "the members' etcd env resolves in their pods");
  const check = restoreCheckPod(parent, spec, source, 'uid-r');
  for (const c of ((check['spec'] as any).containers as any[]).map((x) => x.name))
    t.equal(envError(check, c), undefined, `the check pod's ${c} env resolves in the check pod`);
});

t.test('a restore of a cluster whose members take GOMEMLIMIT from their etcd container is carried out', async (t) => {
  const loop = await running({ size: 3, version: '3.6.9', pod: { etcdEnv, resources } });
  const live = loop.pods();
  t.same(live, ['e-0', 'e-1', 'e-2']);
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  for (let s = 0; s <= RESTORE_CHECK_SECONDS + 60 && (s === 0 || loop.s().restore?.phase === 'Checking'); s += 15) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    // The kubelet runs the check pod as answered: the snapshot passes; etcd-start starts if its env resolves.
    const pod = loop.checkPod();
    if (pod) {
      const refused = envError(pod, 'etcd-start');
      loop.podStatus.set('e-restore-check', {
        phase: 'Running',
        containerStatuses: [
          { name: 'check', state: { terminated: { exitCode: 0, message: JSON.stringify({ succeeded: true }) } } },
          refused
            ? {
                name: 'etcd-start',
                ready: false,
                state: { waiting: { reason: 'CreateContainerConfigError', message: refused } },
              }
            : etcdStarted,
        ],
      });
    }
    await loop.step();
  }
  const restore = loop.s().restore;
  t.not(restore?.phase, 'Failed', `the restore is not refused: ${restore?.reason ?? ''}`);
  t.not(restore?.phase, 'Checking', 'the check finished');
});
