// A parent held for a child name another owner holds (lib/ownership.ts heldForTakenNames) creates nothing under that
// name, by design: its Ready says `<Kind>NameTaken`. Its members under that name are then missing for as long as the
// name is held, and the progress deadline (lib/replicas.ts stalled) fires 600 s later with
// Progressing=False ProgressDeadlineExceeded "creating the others fails (Pod Security admission, a quota, an object
// too large); kubectl get events and Metacontroller's log say why": nothing was asked for, nothing was refused, and
// neither the events nor Metacontroller's log say anything. The status contradicts itself (Ready: a name is taken;
// Progressing: the API server refuses creations), and sends the user looking for a quota or an admission policy.
// PodSet (one pod name held by a hand-made pod), Memcached (its Service name held), MySQLCluster (its read Service).
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import {
  at,
  cacheRequest,
  condition,
  mcSync,
  newMysqlHeldForItsReadService,
  webPodSetRequest,
} from '../fixtures/held-parents.js';
import { podsetSync } from '../fixtures/hooks.js';
import { asObserved, objectMap, readyPod } from '../fixtures/requests.js';

const STEPS = [10, 70, 300, PROGRESS_DEADLINE_SECONDS + 100];

/**
 * PodSet `web` of three in namespace shop whose pod `web-pod-2` a hand-made pod holds: `named()` its request, `first`
 * its first answer, `kept` what it made observed (its pods Ready), `handmade` the holder.
 */
function heldPodSet() {
  const named = () => webPodSetRequest('busybox');
  const first = podsetSync(named(), at(0));
  const kept = first.children
    .filter((c) => c.kind !== 'Pod' || c.metadata.name !== 'web-pod-2')
    .map((c) => (c.kind === 'Pod' ? asObserved(c, readyPod) : asObserved(c)));
  const handmade: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-pod-2', namespace: 'shop', uid: 'uid-handmade' },
  };
  return { named, first, kept, handmade };
}

function check(t: any, res: CompositeSyncResponse, taken: RegExp) {
  t.match(condition(res, 'Ready'), { status: 'False', reason: taken }, 'held, and Ready says so');
  const p = condition(res, 'Progressing');
  t.notMatch(
    p.message,
    /creating the others fails|Pod Security admission/,
    `Progressing does not blame the API server for members nothing asked for: ${p.reason}: ${p.message}`,
  );
}

t.test('PodSet held for one pod name, 700 s on', async (t) => {
  const { named, kept, handmade, first } = heldPodSet();
  let status: any = first.status;
  let res!: CompositeSyncResponse;
  for (const s of STEPS) {
    const r = named();
    r.children = objectMap(kept);
    r.related = objectMap([handmade]);
    r.parent.status = status;
    res = podsetSync(r, at(s));
    status = res.status;
  }
  check(t, res, /PodNameTaken/);
});

t.test('new Memcached held for its Service name, 700 s on', async (t) => {
  const other = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'cache-memcached', namespace: 'ns', uid: 'uid-other' },
    spec: {},
  } as KubeObject;
  let status: any;
  let res!: CompositeSyncResponse;
  for (const s of [0, ...STEPS]) {
    const r = cacheRequest({ size: 2 });
    r.related = objectMap([other]);
    if (status) r.parent.status = status;
    res = mcSync(r, at(s));
    status = res.status;
  }
  check(t, res, /ServiceNameTaken/);
});

t.test('new MySQLCluster held for its read Service name, 700 s on', async (t) => {
  const res = newMysqlHeldForItsReadService(STEPS);
  check(t, res, /ServiceNameTaken/);
});

t.test('the held PodSet tells no Warning blaming the API server past the deadline', async (t) => {
  const { podset } = await import('../../hooks/podset/index.js');
  const { runHook } = await import('../../lib/operator.js');
  const { named, kept, handmade, first } = heldPodSet();
  let status: any = first.status;
  const told: any[] = [];
  for (const s of STEPS) {
    const r = named();
    r.children = objectMap(kept);
    r.related = objectMap([handmade]);
    r.parent.status = status;
    const res: any = await runHook(podset as any, 'sync', r, {
      now: at(s),
      settings: podset.settings!({ env: {} } as any),
      services: { events: () => ({ record: async (_p: unknown, e: unknown[]) => void told.push(...e) }) },
    } as never);
    status = res.status;
  }
  const blamed = told.filter((e) => /creating the others fails/.test(e.note));
  t.same(
    blamed.map((e) => `${e.type} ${e.reason}`),
    [],
    `no Warning Event blames the API server: ${JSON.stringify(blamed.map((e) => e.note))}`,
  );
});
