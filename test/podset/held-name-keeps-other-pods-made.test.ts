// A PodSet one of whose pod names another owner holds (a pod made by hand, or a member of EtcdCluster `<name>-pod`
// after a scale-up into its ordinals) answers Ready=False PodNameTaken and does not take that name. Issue 31 asks
// that such a parent create "nothing that depends on" the taken name; a PodSet's pods are independent of one another,
// yet today the held PodSet creates no pod at all (lib/ownership.ts heldForTakenNames keeps only the observed
// children): a running pod of its own that is evicted or deleted meanwhile (a node drained, a pod deleted by hand) is
// never made again under its own, free name, and the PodSet that was there first shrinks one pod at a time because
// of one name it cannot have.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const now = FIXED_NOW;
const pods = (res: CompositeSyncResponse) =>
  res.children
    .filter((c) => c.kind === 'Pod')
    .map((c) => c.metadata.name)
    .sort();

t.test('a PodSet held for one pod name makes its own lost pod again under its free name', async (t) => {
  const req = request('podset', { size: 3, image: 'busybox', command: ['sleep', '3600'] });
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'shop', uid: 'uid-web' };
  const first = podsetSync(req, now);
  t.same(pods(first), ['web-pod-0', 'web-pod-1', 'web-pod-2']);
  // web-pod-0 was evicted (its node drained); web-pod-1 runs; web-pod-2 is a pod someone else made first.
  const running = first.children.filter((c) => c.metadata.name === 'web-pod-1').map((c) => asObserved(c, readyPod));
  req.children = objectMap(running);
  const handmade: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-pod-2', namespace: 'shop', uid: 'uid-handmade' },
  };
  req.related = objectMap([handmade]);
  const res = podsetSync(req, now);
  const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.match(ready, { status: 'False', reason: 'PodNameTaken' }, 'held for web-pod-2, and says so');
  t.notOk(pods(res).includes('web-pod-2'), 'the taken name is not asked for');
  t.ok(pods(res).includes('web-pod-1'), 'the running pod is kept');
  t.ok(
    pods(res).includes('web-pod-0'),
    `its own pod web-pod-0, whose name is free, is made again (answered: ${JSON.stringify(pods(res))})`,
  );
});
