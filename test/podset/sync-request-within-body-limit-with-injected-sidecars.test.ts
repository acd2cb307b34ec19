// A PodSet's request bound (hooks/podset/sync.ts answerBudget.request) counts ~4 KiB a pod for what the API server and
// the kubelet add. A mutating admission webhook adds much more: Istio's sidecar injector puts the istio-proxy
// container, istio-init, eight volumes, labels and annotations in every pod, and the kubelet reports two more
// container statuses (~12 KB a pod as stored: test/fixtures/sidecars.ts). A 1000-pod PodSet accepted at ~6 MB of
// requests would, its pods injected, make syncs of ~17 MB: every one refused (413) by the hook server, no status
// written again, no pod made again, nothing saying why. The hook measures the pods it sees and makes no more than fit
// within the body limit; while it has seen none, it makes only as many as fit with a webhook's allowance a pod; past
// what fits it keeps what exists and says so (Ready=False RequestTooLarge, a Warning event).
import t from 'tap';
import { podset } from '../../hooks/podset/index.js';
import { FIRST_BATCH } from '../../hooks/podset/sync.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { EventSpec } from '../../lib/events.js';
import type { ParentObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { largestPodsetRequest, podsetRounds, sentBytes } from '../fixtures/stored-objects.js';
import { BUSYBOX, conditionOf, injected, podsetRequest, podsOf } from './syncs.js';

t.test('a 1000-pod PodSet whose pods a sidecar injector grows: every sync request within the body limit', async (t) => {
  const req = podsetRequest({ size: 1000, ...BUSYBOX });
  const rounds = podsetRounds(req, FIXED_NOW, injected);
  t.not(conditionOf(rounds[0]!.res, 'Ready')?.['reason'], 'InvalidSpec', 'the spec is accepted');
  for (const [i, round] of rounds.entries()) {
    const bytes = largestPodsetRequest(round.parent, round.pods);
    t.ok(
      bytes <= DEFAULT_BODY_LIMIT,
      `sync ${i + 1}: ${round.pods.length} pods stored, the largest request ${bytes} bytes, within ${DEFAULT_BODY_LIMIT}`,
    );
  }
  const last = rounds.at(-1)!;
  // 199 since each pod carries automountServiceAccountToken: false (200 before): as many as fit, not a handful.
  t.ok(last.pods.length >= 190, `${last.pods.length} pods made: as many as fit, not a handful`);
});

t.test('past what fits, the PodSet keeps what it has and says why', async (t) => {
  const req = podsetRequest({ size: 1000, ...BUSYBOX });
  const rounds = podsetRounds(req, FIXED_NOW, injected);
  const last = rounds.at(-1)!;
  const fit = last.pods.length;
  t.ok(fit < 1000, `${fit} of 1000 pods made`);
  for (const type of ['Ready', 'Progressing'])
    t.match(conditionOf(last.res, type), {
      status: 'False',
      reason: 'RequestTooLarge',
      message: new RegExp(
        `^each pod comes back in every sync request as ~\\d+ KiB \\(~\\d+ KiB of it added to what the PodSet answered, by admission webhooks .*\\), so ${fit} of 1000 pods fit within the 8\\.0 MiB a request to the hooks may have; the ${fit} that exist are kept and ${1000 - fit} are not made: lower spec\\.size to ${fit}`,
      ),
    });
  t.equal(last.res.resyncAfterSeconds, undefined, 'no resync asked for pods it will not make');
  // The measured size is what a pod as stored weighs, at least, and not far above it.
  const perPod = Number(/~(\d+) KiB \(/.exec(String(conditionOf(last.res, 'Ready')?.['message']))![1]) * 1024;
  const real = sentBytes(last.pods[5]);
  t.ok(perPod >= real && perPod <= 1.3 * real + 1024, `measured ~${perPod} bytes a pod, ${real} as sent`);

  // Told once, as a Warning, and not again for the same observed state.
  const events: EventSpec[] = [];
  const told = (parent: ParentObject) =>
    runHook(
      podset,
      'sync',
      { ...req, parent, children: objectMap(last.pods) },
      {
        now: FIXED_NOW,
        services: { events: () => ({ record: async (_p, e) => void events.push(...e) }) },
      },
    );
  // The status of the first sync (a first batch made, none seen yet).
  const before = rounds[0]!.parent;
  t.not(conditionOf(rounds[0]!.res, 'Ready')?.['reason'], 'RequestTooLarge');
  const first = await told(before);
  t.match(
    events.filter((e) => e.reason === 'RequestTooLarge'),
    [{ type: 'Warning', reason: 'RequestTooLarge', note: /^(Ready|Progressing): each pod comes back/ }],
    'a Warning event says it',
  );
  events.length = 0;
  const again = await told({ ...before, status: first.status } as ParentObject);
  t.same(again, first, 'fed back: the same answer');
  t.same(
    events.filter((e) => e.reason === 'RequestTooLarge'),
    [],
    'fed back: no event',
  );
});

t.test('pods measured larger than what exists fits: every existing pod kept, none made', async (t) => {
  // 400 injected pods (made before the PodSet measured them: by an earlier metaops, or with a webhook installed
  // since), more than fit: none is deleted for it.
  const req = podsetRequest({ size: 1000, ...BUSYBOX });
  const made = podsOf(podsetRounds(podsetRequest({ size: 400, ...BUSYBOX }), FIXED_NOW).at(-1)!.res);
  const pods = made.map((p, i) => injected(p, req.parent, i));
  t.equal(pods.length, 400);
  const res = podsetSync({ ...req, children: objectMap(pods) }, FIXED_NOW);
  t.same(
    podsOf(res).map((p) => p.metadata.name),
    pods.map((p) => p.metadata.name),
    'the 400 that exist kept, no other made',
  );
  t.match(conditionOf(res, 'Ready'), {
    status: 'False',
    reason: 'RequestTooLarge',
    message: /the 400 that exist are kept and 600 are not made/,
  });
});

t.test('a PodSet whose pods fit is made from a small first batch, the rest once it is measured', async (t) => {
  const req = podsetRequest({ size: 100, ...BUSYBOX });
  const rounds = podsetRounds(req, FIXED_NOW, injected);
  t.equal(rounds[0]!.made, FIRST_BATCH, 'the first sync makes the first batch');
  t.equal(rounds[1]!.made, 100 - FIRST_BATCH, 'the second, the first batch measured, makes the rest');
  t.equal(rounds.length, 3, 'the next sync makes none');
  t.not(conditionOf(rounds[2]!.res, 'Ready')?.['reason'], 'RequestTooLarge');
  for (const round of rounds) t.ok(largestPodsetRequest(round.parent, round.pods) <= DEFAULT_BODY_LIMIT);
});

t.test('a large PodSet of plain pods is made in two batches, then every pod', async (t) => {
  const req = podsetRequest({ size: 1000, ...BUSYBOX });
  const rounds = podsetRounds(req, FIXED_NOW);
  const first = rounds[0]!;
  t.equal(first.made, FIRST_BATCH, `the first sync makes ${first.made} pods, the first batch`);
  t.match(conditionOf(first.res, 'Progressing'), {
    status: 'True',
    reason: 'ScalingUp',
    message: new RegExp(`^0 of 1000 members exist; ${first.made} made first, the rest once these are seen`),
  });
  t.equal(rounds[1]!.pods.length, 1000, 'the second sync, the first pods measured, makes the rest');
  t.equal(rounds.length, 3, 'the third makes none');
  for (const round of rounds) t.ok(largestPodsetRequest(round.parent, round.pods) <= DEFAULT_BODY_LIMIT);
  const progressing = conditionOf(rounds[2]!.res, 'Progressing');
  t.not(progressing?.['reason'], 'RequestTooLarge');
});

t.test('scaling down a PodSet held at what fits: the highest ordinals go, the condition clears', async (t) => {
  const req = podsetRequest({ size: 1000, ...BUSYBOX });
  const last = podsetRounds(req, FIXED_NOW, injected).at(-1)!;
  const fit = last.pods.length;
  const size = fit - 10;
  const down = { ...last.parent, spec: { ...last.parent.spec, size } } as ParentObject;
  const res = podsetSync({ ...req, parent: down, children: objectMap(last.pods) }, FIXED_NOW);
  t.same(
    podsOf(res).map((p) => p.metadata.name),
    last.pods.slice(0, size).map((p) => p.metadata.name),
    `pods 0..${size - 1} kept, the 10 above deleted`,
  );
  t.not(conditionOf(res, 'Ready')?.['reason'], 'RequestTooLarge', 'nothing left unmade');
});
