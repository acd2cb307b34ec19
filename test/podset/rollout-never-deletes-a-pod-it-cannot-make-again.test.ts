// A PodSet whose pods, as stored, weigh more than its syncs have room for (an admission webhook's sidecar: 400 pods
// made before the hook measured them, a webhook installed since) keeps every pod that exists and makes no more
// (Ready=False RequestTooLarge). A rollout (a new image) replaces pods one at a time: a pod it deletes is one it makes
// again from the new template. When that replacement would not fit, the rollout must not delete the running pod:
// deleting it and leaving its name unmade loses a running member at each step.
import t from 'tap';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { podsetRounds, podsetSyncsFrom } from '../fixtures/stored-objects.js';
import { BUSYBOX, conditionOf, injected, podsetRequest, podsOf, rolledOut } from './syncs.js';

/**
 * Syncs as Metacontroller and the API server would: pods the answer leaves out deleted, new ones stored (injected),
 * the status written; `most` syncs. The live pod count after each.
 */
function counts(parent: ParentObject, pods: KubeObject[], most: number) {
  return podsetSyncsFrom(podsetRequest({}), parent, pods, FIXED_NOW, most, injected).map((r) => r.pods.length);
}

t.test('a rollout of a PodSet held past what fits deletes no pod it cannot make again', async (t) => {
  const spec = { size: 900, ...BUSYBOX };
  const req = podsetRequest(spec);
  const made = podsOf(podsetRounds(podsetRequest({ ...spec, size: 400 }), FIXED_NOW).at(-1)!.res);
  const pods = made.map((p, i) => injected(p, req.parent, i));
  const held = podsetSync({ ...req, children: objectMap(pods) }, FIXED_NOW);
  t.equal(podsOf(held).length, 400, 'the 400 that exist are kept');
  t.equal(conditionOf(held, 'Ready')?.['reason'], 'RequestTooLarge');

  // The image is bumped: a rollout.
  const after = counts(rolledOut(req.parent, { ...spec, image: 'busybox:1.37' }, held.status), pods, 20);
  t.same(
    after.filter((n) => n < 400),
    [],
    `no running pod lost to the rollout (pods after each sync: ${after.join(', ')})`,
  );
});

t.test('a rollout to a longer command of a PodSet held at what fits deletes no pod it cannot make again', async (t) => {
  // Made as the hook makes it with Istio's sidecar: held at what fits (RequestTooLarge). The command then grows
  // by 300 characters (accepted: within the bound for plain pods): each new pod weighs more, so fewer fit than exist.
  const spec = { size: 900, ...BUSYBOX };
  const req = podsetRequest(spec);
  const last = podsetRounds(req, FIXED_NOW, injected).at(-1)!;
  const existing = last.pods.length;
  t.equal(conditionOf(last.res, 'Ready')?.['reason'], 'RequestTooLarge', `held at ${existing} pods`);
  const parent = rolledOut(last.parent, { ...spec, command: ['sh', '-c', `echo ${'x'.repeat(300)}; sleep 3600`] });
  const first = podsetSync({ ...req, parent, children: objectMap(last.pods) }, FIXED_NOW);
  t.not(conditionOf(first, 'Ready')?.['reason'], 'InvalidSpec', 'the longer command is accepted');
  const after = counts(parent, last.pods, 20);
  t.same(
    after.filter((n) => n < existing),
    [],
    `no running pod lost to the rollout (pods after each sync: ${after.join(', ')})`,
  );
});
