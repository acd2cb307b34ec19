// A PodSet held for names another owner holds (lib/ownership.ts heldForTakenNames, independent children) makes its
// other pods, and its progress deadline is judged on them: the members left out of the count are the held names of
// its pods only (a held NetworkPolicy name is no member), and Progressing names every held name, up to three, with
// "is" for one and "are" for more. A Memcached held for its Service name whose pods are not Ready yet says the hold
// while it waits for them too, not only once past the deadline.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import { at, heldMemcached, PULLING, webPodSetRequest } from '../fixtures/held-parents.js';
import { podsetSync } from '../fixtures/hooks.js';
import { asObserved, objectMap } from '../fixtures/requests.js';

const STEPS = [10, 70, 300, PROGRESS_DEADLINE_SECONDS + 100];
const progressing = (res: CompositeSyncResponse) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === 'Progressing');

/** PodSet `web` of three in namespace shop, `held` (kind and name) another owner's, its pods never Ready. */
function heldPodSet(held: Array<[kind: string, name: string]>): CompositeSyncResponse {
  const named = () => webPodSetRequest('busybox:no-such-tag');
  const first = podsetSync(named(), at(0));
  const isHeld = (c: KubeObject) => held.some(([kind, name]) => c.kind === kind && c.metadata.name === name);
  const kept = first.children
    .filter((c) => !isHeld(c))
    .map((c) => (c.kind === 'Pod' ? asObserved(c, PULLING) : asObserved(c)));
  const others: KubeObject[] = held.map(([kind, name]) => ({
    apiVersion: kind === 'Pod' ? 'v1' : 'networking.k8s.io/v1',
    kind,
    metadata: { name, namespace: 'shop', uid: `uid-other-${name}` },
  }));
  let status: any = first.status;
  let res!: CompositeSyncResponse;
  for (const s of STEPS) {
    const r = named();
    r.children = objectMap(kept);
    r.related = objectMap(others);
    r.parent.status = status;
    res = podsetSync(r, at(s));
    status = res.status;
  }
  return res;
}

t.test('held for its NetworkPolicy name only: all three pods are counted, the policy named', async (t) => {
  const p = progressing(heldPodSet([['NetworkPolicy', 'web-podset']]));
  t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' });
  t.match(p.message, /^0 of 3 members are Ready \(NetworkPolicy web-podset is another owner's, not made nor counted/);
});

t.test('held for a pod name and the policy name: one member left out, both named with "are"', async (t) => {
  const p = progressing(
    heldPodSet([
      ['Pod', 'web-pod-2'],
      ['NetworkPolicy', 'web-podset'],
    ]),
  );
  t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' });
  t.match(p.message, /^0 of 2 members are Ready \(NetworkPolicy web-podset, Pod web-pod-2 are another owner's, not/);
});

t.test('held for three names: each named, none said to be "more"', async (t) => {
  const p = progressing(
    heldPodSet([
      ['Pod', 'web-pod-1'],
      ['Pod', 'web-pod-2'],
      ['NetworkPolicy', 'web-podset'],
    ]),
  );
  t.match(p.message, /^0 of 1 members are Ready \(NetworkPolicy web-podset, Pod web-pod-1, Pod web-pod-2 are another/);
  t.notMatch(p.message, /and \d+ more/);
});

t.test('a Memcached held for its Service name says the hold while it waits for its pods to be Ready', async (t) => {
  const { status } = heldMemcached([10, 70]) as { status: any };
  const p = (status.conditions as any[]).find((c) => c.type === 'Progressing');
  t.match(p, { status: 'True', reason: 'WaitingForReady' });
  t.match(
    p.message,
    /^0\/2 ready \(Service cache-memcached is another owner's, not made nor counted; Ready says whose\)$/,
  );
});
