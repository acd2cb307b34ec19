// A pod on the new template that stays Ready proves it once it has been Ready for spec.minReadySeconds, even when
// its node's clock runs ahead of the hook's: docs/podset.md and rollout.ts say a lastTransitionTime in the future
// "counts from now" ("a node's clock an hour ahead: 10 s from now"). Called again as the hook asks
// (resyncAfterSeconds), the rollout must go on within about minReadySeconds of steady Readiness, not wait out the
// node's clock skew.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { liveMember, planRollout } from '../../hooks/podset/rollout.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const legacy = { image: 'busybox', command: ['sleep', '3600'], minReadySeconds: 10 };

function pod(name: string, hash: string, since: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { 'metaops.dev/template-hash': hash } },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: since }],
      containerStatuses: [{ name: 'busybox', ready: true, restartCount: 0 }],
    },
  };
}

t.test("a node's clock 5 minutes ahead: the rollout goes on within a minute of steady Readiness", async (t) => {
  // The new pod became Ready at FIXED_NOW; its node wrote that time 300 s ahead.
  const readyAt = new Date(FIXED_NOW.getTime() + 300_000).toISOString();
  const old = pod('a-0', 'old', new Date(FIXED_NOW.getTime() - 600_000).toISOString());
  const fresh = pod('a-1', 'new', readyAt);
  let now = FIXED_NOW.getTime();
  let replacedAfter: number | undefined;
  for (let round = 0; round < 100 && now - FIXED_NOW.getTime() <= 600_000; round++) {
    const at = new Date(now);
    const plan = planRollout(
      [liveMember('a-0', old, 'new', legacy, at), liveMember('a-1', fresh, 'new', legacy, at)],
      'new',
    );
    if (plan.replace) {
      replacedAfter = (now - FIXED_NOW.getTime()) / 1000;
      break;
    }
    now += (plan.recheckIn ?? 30) * 1000;
  }
  t.ok(
    replacedAfter !== undefined && replacedAfter <= 60,
    `a-0 replaced within 60 s of a-1 being Ready (minReadySeconds 10); replaced after: ${replacedAfter ?? 'never (600 s)'} s`,
  );
});
