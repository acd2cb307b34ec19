// Issue 30.5: "A restore checks before it acts ... a restore that cannot proceed ends succeeded: false with the
// reason, and the running cluster is untouched". The check pod starts the restored members' busybox and etcd images
// before any member is dropped (an image the nodes cannot pull is found first), but not what the restored members'
// etcd container needs besides: spec.pod.etcdEnv may take a value from a Secret or ConfigMap (valueFrom.secretKeyRef,
// configMapKeyRef) where the server allows it (METAOPS_ETCD_ALLOW_REFERENCES=true, docs/etcdcluster.md "References"). The running members got that value when they were made; when the Secret is
// gone since (deleted, its key renamed), every pod made from the spec now waits `CreateContainerConfigError` for ever.
// The restore then drops the running members (the snapshot checked, the images checked), the restored members never
// start, and 15 minutes later it ends RestoreFailed with no member left: the live cluster, which served, is gone.
//
// Must hold: with a restored member's etcd container unable to start for a reason the check could have met (a Secret
// its env names that does not exist), no running member is dropped. Each answer fed back as the next observed state;
// the kubelet stand-in below gives every pod whose containers name a missing Secret in env (not optional)
// `CreateContainerConfigError` on that container, as the kubelet does.
import t from 'tap';
import { checkPodName } from '../../hooks/etcdcluster/restore.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { restoreObject, running, type Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

/** The Secrets of namespace ns (the restore's awsSecret; the Secret etcdEnv names was deleted). */
const SECRETS = new Set(['aws']);

/** The first container (init containers first) whose env names a Secret that is not there, not optional. */
function missingSecretContainer(pod: KubeObject): string | undefined {
  const spec = pod['spec'] as { initContainers?: any[]; containers?: any[] };
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])])
    for (const e of c.env ?? []) {
      const ref = e.valueFrom?.secretKeyRef;
      if (ref && !ref.optional && !SECRETS.has(ref.name)) return c.name;
    }
  return undefined;
}

/** The kubelet: a pod made from now on with such a container waits on it; the pods running keep running. */
function kubelet(loop: Loop, running: Set<string>): void {
  for (const p of loop.children.filter((c) => c.kind === 'Pod')) {
    const name = p.metadata.name!;
    if (running.has(name)) continue;
    const stuck = missingSecretContainer(p);
    if (!stuck) continue;
    loop.podStatus.set(name, {
      phase: 'Pending',
      containerStatuses: [{ name: stuck, state: { waiting: { reason: 'CreateContainerConfigError' } } }],
    });
  }
}

t.test("a restore whose members' etcdEnv names a Secret that is gone drops no running member", async (t) => {
  const loop = await running(
    {
      size: 3,
      pod: {
        etcdEnv: [{ name: 'ETCD_SNAPSHOT_COUNT', valueFrom: { secretKeyRef: { name: 'etcd-tuning', key: 'count' } } }],
      },
    },
    'e',
    { allowReferences: true },
  );
  const live = new Set(loop.pods());
  t.same([...live], ['e-0', 'e-1', 'e-2'], 'a running cluster whose members got the value when they were made');
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  const dropped = new Set<string>();
  for (let minute = 1; minute <= 20; minute++) {
    loop.now = new Date(FIXED_NOW.getTime() + minute * 60_000);
    kubelet(loop, live);
    await loop.step();
    // Members dropped stop answering, as their pods go.
    for (const m of live)
      if (!loop.pods().includes(m)) {
        dropped.add(m);
        loop.etcd.up.delete(m);
      }
  }
  const restore = loop.s().restore;
  t.comment(
    `pods ${loop.pods().join(', ')}; check pod ${loop.checkPod() ? checkPodName('e') : 'none'}; restore ${JSON.stringify(restore)}`,
  );
  t.comment(
    JSON.stringify(loop.s().conditions.map((c: any) => [c.type, c.status, c.reason, String(c.message).slice(0, 200)])),
  );
  t.same([...dropped], [], 'no running member dropped');
});
