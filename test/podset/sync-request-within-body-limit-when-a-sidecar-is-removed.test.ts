// A PodSet measures what its pods weigh as stored (hooks/podset/measure.ts), those of the current template first, and
// makes no more pods than fit within the body limit with what it measured (sync.ts podsThatFit). A namespace whose
// sidecar injection is turned off (Istio's label taken off the namespace) keeps its injected pods until they are
// replaced; a rollout (a new image) then makes pods without the sidecar. The pods that still carry the sidecar come
// back in every sync as before: what the PodSet makes must leave room for them, else every sync after is refused
// (413) by the hook server, no status written again, nothing saying why.
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { withIstioSidecar } from '../fixtures/sidecars.js';
import { podsetRounds, podsetSyncRequest, sentBytes, storedPod } from '../fixtures/stored-objects.js';

const injected = (pod: KubeObject, parent: ParentObject, i: number) => withIstioSidecar(storedPod(pod, parent, i));
const podsOf = (res: CompositeSyncResponse) => res.children.filter((c) => c.kind === 'Pod');

/** The largest of the sync requests with these pods, whatever status the customize answer kept was asked with. */
function largestRequest(parent: ParentObject, pods: KubeObject[]): number {
  const lost = { ...parent, status: {} } as ParentObject;
  return Math.max(
    ...[
      [parent, parent],
      [lost, lost],
      [lost, parent],
    ].map(([asked, now]) => sentBytes(podsetSyncRequest(asked!, now!, pods).body)),
  );
}

t.test(
  'pods made without the sidecar while injected ones remain: every sync request within the body limit',
  async (t) => {
    const spec = { size: 1000, image: 'busybox:1.36', command: ['sleep', '3600'] };
    const req = request('podset', spec);
    req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'shop' };
    // Held at what fits with Istio's sidecar (RequestTooLarge).
    const last = podsetRounds(req, FIXED_NOW, injected).at(-1)!;
    t.ok(last.pods.length < 1000, `${last.pods.length} injected pods`);

    // Injection turned off, then a new image: pods made from now on are plain.
    let parent = {
      ...last.parent,
      metadata: { ...last.parent.metadata, generation: 2 },
      spec: { ...spec, image: 'busybox:1.37' },
    } as ParentObject;
    const stored = new Map(last.pods.map((p) => [p.metadata.name!, p]));
    const sizes: number[] = [];
    for (let round = 0; round < 6; round++) {
      const res = podsetSync({ ...req, parent, children: objectMap([...stored.values()]) }, FIXED_NOW);
      const answered = new Set<string>();
      for (const p of podsOf(res)) {
        const name = p.metadata.name!;
        answered.add(name);
        if (!stored.has(name)) stored.set(name, storedPod(p, parent, Number(name.slice(name.lastIndexOf('-') + 1))));
      }
      for (const name of [...stored.keys()]) if (!answered.has(name)) stored.delete(name);
      parent = { ...parent, status: res.status } as ParentObject;
      const bytes = largestRequest(parent, [...stored.values()]);
      sizes.push(bytes);
      t.ok(
        bytes <= DEFAULT_BODY_LIMIT,
        `sync ${round + 2}: ${stored.size} pods stored, the largest request ${bytes} bytes, within ${DEFAULT_BODY_LIMIT}`,
      );
    }
  },
);
