// A PodSet deleted and made again under its name (`kubectl delete podset web` then `kubectl apply`, or `kubectl
// replace --force`): the garbage collector deletes the old PodSet's pods, and a busybox `sleep` (PID 1, no SIGTERM
// handler) takes its 30 s grace period to go. The new PodSet's first syncs see pods `web-pod-<i>` owned by the old
// PodSet `web` (another uid), being deleted: held for them, rightly. Once they are gone the names are free and nothing
// else wants them: the new PodSet must make its pods. Its customize never asks for a PodSet of its own name (lib/holders.ts
// holderRules drops the parent's own name), so the old PodSet it recorded in status.heldBy is never sent; it must not be
// taken for a holder that exists but is not sent (HOLDER_UNSEEN_SECONDS: 30 minutes with no pod at all).
import t from 'tap';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { podsetCustomize, podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const API = 'apps.jicki.cn/v1alpha1';
const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
const at = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);

const podset = (uid: string, status?: unknown): ParentObject =>
  ({
    apiVersion: API,
    kind: 'PodSet',
    metadata: { name: 'web', namespace: 'ns', uid, generation: 1, creationTimestamp: '2026-01-02T03:04:05Z' },
    spec: { size: 2, image: 'busybox', command: ['sleep', '3600'] },
    ...(status ? { status } : {}),
  }) as ParentObject;

/** A pod of the PodSet `web` that was deleted (uid `uid-old`), the garbage collector deleting it. */
const oldPod = (i: number): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-pod-${i}`,
      namespace: 'ns',
      uid: `uid-old-pod-${i}`,
      deletionTimestamp: '2026-01-02T03:04:35Z',
      ownerReferences: [{ apiVersion: API, kind: 'PodSet', name: 'web', uid: 'uid-old', controller: true }],
    },
    spec: { containers: [{ name: 'busybox', image: 'busybox', command: ['sleep', '3600'] }] },
    status: { phase: 'Running' },
  }) as KubeObject;

t.test("a PodSet made again under its name makes its pods once the old PodSet's pods are gone", async (t) => {
  const base = request('podset', {});
  // While the old pods terminate: held for them.
  let res = await podsetSync(
    { ...base, parent: podset('uid-new'), children: {}, related: objectMap([oldPod(0), oldPod(1)]) },
    at(0),
  );
  t.match(ready(res), { status: 'False', reason: 'PodNameTaken' }, 'held while the old pods are there');
  let status = res.status;
  // What customize asks for: the pod names, and parents of other kinds; never a PodSet `web`.
  const rules = podsetCustomize(podset('uid-new', status));
  t.notOk(
    rules.some((r) => r.resource === 'podsets' && (r.names ?? []).includes('web')),
    'customize does not ask for PodSet web (its own name): the old one recorded is never sent',
  );
  // The old pods are gone (30 s grace); the syncs that follow (the pods' deletions, the resyncs) see none.
  for (const seconds of [31, 60, 120]) {
    res = await podsetSync({ ...base, parent: podset('uid-new', status), children: {}, related: {} }, at(seconds));
    status = res.status;
  }
  const made = res.children.filter((c) => c.kind === 'Pod').map((c) => c.metadata.name);
  t.same(
    made,
    ['web-pod-0', 'web-pod-1'],
    `two minutes after the old pods went, its pods are made (Ready: ${ready(res).reason})`,
  );
  t.notMatch(ready(res), { reason: 'PodNameTaken' }, 'and it is no longer held by the PodSet it replaced');
});
