// Quiet at rest (docs/memcached.md, Degraded): a Memcached whose image cannot be pulled (a tag the registry does not have) stays
// so until someone fixes the spec; nothing about it changes but the kubelet's word for it, which alternates at every
// pull attempt: `ErrImagePull` while it pulls, `ImagePullBackOff` while it waits (back-off up to 5 minutes, then again).
// The status names that word (Degraded "1 pod failing: <pod>: ErrImagePull" / "...: ImagePullBackOff"), so the
// status is written anew at each flip, twice per pull attempt for as long as the image stays unpullable, for every
// such pod's parent (the same reading, lib/replicas.ts podsFailing, serves PodSet and MySQLCluster, and PodSet's
// Updated condition names the word too: "waiting for ... to be Ready: ErrImagePull"). The project's own rule is to name
// pods and reasons "never the kubelet's changing words" (lib/replicas.ts podsFailing); these two words are one
// failure. Expected: the same status whichever of the two the kubelet says.
import t from 'tap';
import { memcachedSync } from '../fixtures/hooks.js';
import { FIXED_NOW, memcachedWithOnePod, request } from '../fixtures/requests.js';

t.test('an unpullable image: the status is the same at ErrImagePull and at ImagePullBackOff', async (t) => {
  const base = request('memcached', { size: 1, image: 'memcached:1.6.999', port: 11211 });
  const first = await memcachedSync(base, FIXED_NOW);
  const next = memcachedWithOnePod(base, first);
  const pod = (reason: string) => ({
    phase: 'Pending',
    conditions: [{ type: 'Ready', status: 'False' }],
    containerStatuses: [
      { name: 'memcached', ready: false, restartCount: 0, state: { waiting: { reason, message: '...' } } },
    ],
  });
  let status: unknown = first.status;
  const statuses: string[] = [];
  let minute = 0;
  for (const reason of ['ErrImagePull', 'ImagePullBackOff', 'ErrImagePull', 'ImagePullBackOff']) {
    const res = await memcachedSync(next(status, pod(reason)), new Date(FIXED_NOW.getTime() + ++minute * 60_000));
    status = res.status;
    statuses.push(JSON.stringify(res.status));
  }
  const degraded = (s: string) => JSON.parse(s).conditions.find((c: any) => c.type === 'Degraded');
  t.comment(`Degraded messages: ${statuses.map((s) => degraded(s).message).join(' | ')}`);
  t.equal(degraded(statuses[0]!).status, 'True', 'the pod is failing');
  t.equal(new Set(statuses.slice(1)).size, 1, 'once said, the status is not written again at each pull attempt');
});
