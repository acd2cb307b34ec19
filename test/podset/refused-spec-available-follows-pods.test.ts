// A spec refused (InvalidSpec) keeps every pod the PodSet has and replaces nothing (lib/hook.ts invalidSpecResponse),
// and keeps the conditions the last answer said of them (Available while they serve). What it keeps must stay true of
// what is observed: once the pods it kept are gone (a node lost, the pods evicted or deleted by hand) and none is
// made again while the spec is refused, Available=True would tell `kubectl wait --for=condition=Available` and every
// dashboard that the PodSet serves with no pod running.
import t from 'tap';
import { podsetSync as sync } from '../fixtures/hooks.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const cond = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

function syncWith(spec: Record<string, unknown>, status: unknown, pods: KubeObject[]): CompositeSyncResponse {
  const parent = { ...request('podset', spec).parent, status } as never;
  return sync(request('podset', spec, { parent, children: objectMap(pods, 'v2') }), FIXED_NOW);
}

function ready(desired: KubeObject): KubeObject {
  const pod = asObserved(desired, readyPod);
  pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [LAST_APPLIED]: JSON.stringify(desired) };
  return pod;
}

t.test('a refused spec does not keep Available=True once the pods it kept are gone', async (t) => {
  const spec = { size: 2, image: 'busybox' };
  let res = syncWith(spec, undefined, []);
  let pods = res.children.filter((c) => c.kind === 'Pod').map(ready);
  for (let i = 0; i < 3; i++) res = syncWith(spec, res.status, pods);
  t.match(cond(res, 'Available'), { status: 'True' }, 'serving: Available=True');

  // The spec is edited to one the schema refuses; the pods keep serving.
  const refused = { size: 2, image: 'busybox', command: [] };
  res = syncWith(refused, res.status, pods);
  t.match(cond(res, 'Ready'), { status: 'False', reason: 'InvalidSpec' }, 'refused');
  t.equal(res.children.filter((c) => c.kind === 'Pod').length, 2, 'both pods kept');

  // The node is lost: both pods are gone, and none is made again while the spec is refused.
  pods = [];
  for (let i = 0; i < 2; i++) res = syncWith(refused, res.status, pods);
  t.equal(res.children.length, 0, 'no pod made while refused');
  t.notMatch(
    cond(res, 'Available') ?? {},
    { status: 'True' },
    `no pod observed: not Available=True (${JSON.stringify(cond(res, 'Available'))})`,
  );
});
