// A kind whose parents name pods declares it in its own definition (`podNames`: its suffixes and the names a parent
// wants): the other kinds that declare pod names ask for its parents in customize and judge one that holds a pod name
// of theirs, without a line of lib/ naming it. The toy Crew (test/toy/crew.ts) names its pods `<name>-pod-<i>`:
// Crew `web` and PodSet `web` want the same pod names.
import t from 'tap';
import { buildApp } from '../../lib/app.js';
import type { CompositeSyncRequest, CompositeSyncResponse, ParentObject } from '../../lib/metacontroller.js';
import { podHolderRules, podHolderWants } from '../../lib/index.js';
import { runPure } from '../../lib/testing.js';
import { operators as registry } from '../../main/operators.js';
import { podset } from '../../hooks/podset/index.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const PODSET_API = 'apps.jicki.cn/v1alpha1';
const CREW_API = 'toy.metaops.dev/v1';
const CREW_OWNER = { apiVersion: CREW_API, kind: 'Crew', name: 'web', uid: 'uid-crew' };

function podsetWeb(): ParentObject {
  return {
    apiVersion: PODSET_API,
    kind: 'PodSet',
    metadata: { name: 'web', namespace: 'ns', uid: 'uid-podset', generation: 1 },
    spec: { size: 1, image: 'busybox', command: ['sleep', '3600'] },
  };
}

function crewWeb(size: number): ParentObject {
  return {
    apiVersion: CREW_API,
    kind: 'Crew',
    metadata: { name: 'web', namespace: 'ns', uid: 'uid-crew', generation: 1 },
    spec: { size },
  };
}

/** PodSet web, held for web-pod-0 by Crew web (status.heldBy), Crew web as customize asked for it. */
function heldPodset(crewSize: number): CompositeSyncRequest {
  const req = request('podset', { size: 1 });
  req.parent = {
    ...podsetWeb(),
    status: { heldBy: [{ child: { apiVersion: 'v1', kind: 'Pod', name: 'web-pod-0' }, holder: CREW_OWNER }] },
  };
  req.related = objectMap([crewWeb(crewSize)]);
  return req;
}

const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
const crewRule = { apiVersion: CREW_API, resource: 'crews', namespace: 'ns', names: ['web'] };

t.test('a kind that declares its pod names is asked for and judged by the others, lib/ untouched', async (t) => {
  // Before the Crew is defined, no kind knows it: a PodSet asks for no Crew, and a Crew holds no pod name of its own.
  t.notOk(
    podHolderRules(podsetWeb()).some((r) => r.resource === 'crews'),
    'no rule for a kind nobody declared',
  );
  t.equal(podHolderWants(crewWeb(2)), undefined, 'a kind nobody declared is not judged');
  const free = runPure(podset, 'sync', heldPodset(1), { now: FIXED_NOW });
  t.not(ready(free)?.reason, 'PodNameTaken', 'a holder of an undeclared kind does not keep the PodSet held');

  // The Crew's definition (its own folder) declares `podNames`: defining it is all it takes.
  const { crew } = await import('../toy/crew.js');
  t.ok(crew.podNames, 'the declaration is part of the definition');
  t.same(podHolderWants(crewWeb(2)), [
    { apiVersion: 'v1', kind: 'Pod', name: 'web-pod-0' },
    { apiVersion: 'v1', kind: 'Pod', name: 'web-pod-1' },
  ]);
  t.same(
    podHolderRules(podsetWeb()).find((r) => r.resource === 'crews'),
    crewRule,
    'a PodSet whose pod names a Crew can take asks for that Crew by name',
  );
  t.same(
    podHolderRules(crewWeb(1)).find((r) => r.resource === 'podsets'),
    { apiVersion: PODSET_API, resource: 'podsets', namespace: 'ns', names: ['web', 'web-pod'] },
    'and the Crew for the PodSets that can take its pod names',
  );
  const customized = podset.customize!({ controller: {}, parent: podsetWeb() } as any, {} as never);
  t.ok(customized.relatedResources.some((r) => JSON.stringify(r) === JSON.stringify(crewRule)));

  // A PodSet held for web-pod-0 by Crew web stays held while the Crew exists and wants the name (its pod gone for a
  // moment), and is let go once the Crew no longer wants it (scaled to none).
  const held = runPure(podset, 'sync', heldPodset(1), { now: FIXED_NOW });
  t.match(ready(held), {
    reason: 'PodNameTaken',
    message: /^Pod web-pod-0 belongs to Crew web \(uid uid-crew\), which still exists and wants it/,
  });
  t.same(
    held.children.filter((c) => c.kind === 'Pod'),
    [],
    'no pod under the Crew pod name',
  );
  const released = runPure(podset, 'sync', heldPodset(0), { now: FIXED_NOW });
  t.not(ready(released)?.reason, 'PodNameTaken');

  // Served beside the registry, the PodSet's customize route answers the same.
  const app = buildApp({ operators: [...registry, crew] });
  t.teardown(() => app.close());
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/podset/customize',
    payload: { controller: {}, parent: podsetWeb() },
  });
  t.equal(res.statusCode, 200);
  t.ok(res.json().relatedResources.some((r: unknown) => JSON.stringify(r) === JSON.stringify(crewRule)));
});
