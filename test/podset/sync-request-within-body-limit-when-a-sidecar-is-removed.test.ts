// A PodSet measures what its pods weigh as stored (hooks/podset/measure.ts), those of the current template first, and
// makes no more pods than fit within the body limit with what it measured (sync.ts podsThatFit). A namespace whose
// sidecar injection is turned off (Istio's label taken off the namespace) keeps its injected pods until they are
// replaced; a rollout (a new image) then makes pods without the sidecar. The pods that still carry the sidecar come
// back in every sync as before: what the PodSet makes must leave room for them, else every sync after is refused
// (413) by the hook server, no status written again, nothing saying why.
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { largestPodsetRequest, podsetRounds, podsetSyncsFrom, storedPod } from '../fixtures/stored-objects.js';
import { BUSYBOX, injected, podsetRequest, rolledOut } from './syncs.js';

t.test(
  'pods made without the sidecar while injected ones remain: every sync request within the body limit',
  async (t) => {
    const spec = { size: 1000, ...BUSYBOX };
    const req = podsetRequest(spec);
    // Held at what fits with Istio's sidecar (RequestTooLarge).
    const last = podsetRounds(req, FIXED_NOW, injected).at(-1)!;
    t.ok(last.pods.length < 1000, `${last.pods.length} injected pods`);

    // Injection turned off, then a new image: pods made from now on are plain.
    const parent = rolledOut(last.parent, { ...spec, image: 'busybox:1.37' });
    for (const [round, step] of podsetSyncsFrom(req, parent, last.pods, FIXED_NOW, 6, storedPod).entries()) {
      const bytes = largestPodsetRequest(step.parent, step.pods);
      t.ok(
        bytes <= DEFAULT_BODY_LIMIT,
        `sync ${round + 2}: ${step.pods.length} pods stored, the largest request ${bytes} bytes, within ${DEFAULT_BODY_LIMIT}`,
      );
    }
  },
);
