// A parent held for a child name another owner holds (lib/ownership.ts heldForTakenNames) makes what it can beside
// the held name: a PodSet its other pods, a Memcached or MySQLCluster that already runs keeps its workload. Its
// progress deadline is judged on those (lib/replicas.ts heldDeadline): members under held names are left out of the
// count and named, and members it makes that never become Ready are past the deadline as an unheld parent's are.
// Before, a held parent's deadline was not judged at all: its Progressing said the hold for as long as it lasted.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import {
  at,
  condition,
  heldMemcached,
  newMysqlHeldForItsReadService,
  PULLING,
  webPodSetRequest,
} from '../fixtures/held-parents.js';
import { mysqlSync, podsetSync } from '../fixtures/hooks.js';
import { TWO_MADE_ONE_READY } from '../fixtures/mysql-scale-up.js';
import { asApplied, asObserved, objectMap, readyPod, request } from '../fixtures/requests.js';

const STEPS = [10, 70, 300, PROGRESS_DEADLINE_SECONDS + 100];

/** PodSet `web` of three in namespace shop whose pod `web-pod-2` a hand-made pod holds, synced at STEPS. */
function heldPodSet(state: Record<string, unknown>) {
  const named = () => webPodSetRequest('busybox:no-such-tag');
  const first = podsetSync(named(), at(0));
  const kept = first.children
    .filter((c) => c.kind !== 'Pod' || c.metadata.name !== 'web-pod-2')
    .map((c) => (c.kind === 'Pod' ? asObserved(c, state) : asObserved(c)));
  const handmade: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-pod-2', namespace: 'shop', uid: 'uid-handmade' },
  };
  let status: any = first.status;
  const seen: CompositeSyncResponse[] = [];
  for (const s of STEPS) {
    const r = named();
    r.children = objectMap(kept);
    r.related = objectMap([handmade]);
    r.parent.status = status;
    const res = podsetSync(r, at(s));
    seen.push(res);
    status = res.status;
  }
  return seen;
}

t.test('PodSet held for one pod name whose other pods never become Ready', async (t) => {
  const seen = heldPodSet(PULLING);
  const early = seen[2]!;
  t.match(condition(early, 'Ready'), { status: 'False', reason: 'PodNameTaken' }, 'held, and Ready says so');
  t.match(condition(early, 'Progressing'), { status: 'True', reason: 'WaitingForReady' }, '300 s: waiting for Ready');
  t.match(condition(early, 'Progressing').message, /Pod web-pod-2 is another owner's/, 'the hold named');
  const res = seen.at(-1)!;
  t.match(condition(res, 'Ready'), { status: 'False', reason: 'PodNameTaken' }, 'still held, Ready says so');
  const p = condition(res, 'Progressing');
  t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' }, 'judged on the two pods it makes');
  t.match(p.message, /^0 of 2 members are Ready \(Pod web-pod-2 is another owner's/, p.message);
  t.match(p.message, /web-pod-0 \(ImagePullBackOff\), web-pod-1 \(ImagePullBackOff\) are not Ready/);
  t.notMatch(p.message, /creating the others fails/, 'no creation blamed: the held pod was never asked for');
});

t.test('PodSet held for one pod name whose other pods are Ready says the hold, no deadline', async (t) => {
  const res = heldPodSet(readyPod).at(-1)!;
  t.match(condition(res, 'Ready'), { status: 'False', reason: 'PodNameTaken' });
  t.match(condition(res, 'Progressing'), { status: 'False', reason: 'PodNameTaken' });
});

t.test('Memcached running, held for its Service name, its pods never Ready', async (t) => {
  const res = heldMemcached(STEPS);
  t.match(condition(res, 'Ready'), { status: 'False', reason: 'ServiceNameTaken' }, 'held, and Ready says so');
  const p = condition(res, 'Progressing');
  t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' }, JSON.stringify(p));
  t.match(p.message, /0 of 2 members are Ready \(Service cache-memcached is another owner's/);
  t.notMatch(p.message, /creating the others fails/);
});

t.test('new MySQLCluster held for its read Service name makes nothing: the hold, no deadline', async (t) => {
  const res = newMysqlHeldForItsReadService(STEPS);
  t.match(condition(res, 'Ready'), { status: 'False', reason: 'ServiceNameTaken' });
  t.match(condition(res, 'Progressing'), { status: 'False', reason: 'ServiceNameTaken' });
});

t.test('MySQLCluster running, held for its read Service name, a member never Ready', async (t) => {
  const { clusterMember } = await import('../fixtures/mysql-pods.js');
  const spec = { size: 2, version: '8.0' };
  const first = mysqlSync(request('mysqlcluster', spec), at(0));
  const wanted = first.children.find((c) => c.kind === 'StatefulSet')!;
  const sts = asApplied(wanted, TWO_MADE_ONE_READY);
  const others = first.children
    .filter((c) => c.kind !== 'StatefulSet' && !(c.kind === 'Service' && /-read$/.test(c.metadata.name!)))
    .map((c) => asObserved(c));
  const running = { startedAt: '2026-01-02T03:00:00Z' };
  const pod = (i: number, ready: boolean) =>
    clusterMember('my-mysql', i, {
      image: 'mysql:8.0',
      owner: sts.metadata.uid!,
      status: {
        phase: ready ? 'Running' : 'Pending',
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
        containerStatuses: [
          ready
            ? { name: 'mysql', ready: true, restartCount: 0, state: { running } }
            : { name: 'mysql', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } },
          { name: 'replication', ready, restartCount: 0, state: { running } },
        ],
      },
    });
  const readOther: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'my-mysql-mysql-read', namespace: 'default', uid: 'uid-x' },
    spec: {},
  };
  let status: any = first.status;
  let res!: CompositeSyncResponse;
  for (const s of STEPS) {
    const parent = { ...request('mysqlcluster', spec).parent, status };
    res = mysqlSync(
      request('mysqlcluster', spec, {
        parent,
        children: objectMap([sts, ...others]),
        related: objectMap([pod(0, true), pod(1, false), readOther]),
      }),
      at(s),
    );
    status = res.status;
  }
  t.match(condition(res, 'Ready'), { status: 'False', reason: 'ServiceNameTaken' }, 'held, and Ready says so');
  const p = condition(res, 'Progressing');
  t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' }, JSON.stringify(p));
  t.match(p.message, /1 of 2 members are Ready \(Service my-mysql-mysql-read is another owner's/);
  t.match(p.message, /my-mysql-mysql-1 is not Ready \(ImagePullBackOff\)/);
  t.notMatch(p.message, /creating the others fails/);
});
