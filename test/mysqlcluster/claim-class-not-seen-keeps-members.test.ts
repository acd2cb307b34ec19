// The claims (spec.storage.storageClassName) name a StorageClass the request does not carry. A new claim of a class
// that does not exist binds any pre-made PersistentVolume naming it, so none is made; but the class may well exist:
// after metaops is upgraded to a version whose customize asks for the class, Metacontroller keeps its cached customize
// answer (v4.17.2: up to 20 minutes; v1.5.20: until the parent's generation changes) and sends no class. A running
// cluster must not be answered InvalidSpec for that: its StatefulSet, Secret and Services are answered as with the
// class (Metacontroller deletes what the answer leaves out), and only what would make a claim waits: a new cluster's
// StatefulSet, and the members a scale-up adds (the StatefulSet controller makes their claims).
import t from 'tap';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { CLAIM_UID_LABEL } from '../../hooks/mysqlcluster/sync.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';
import { fastClass as fast } from '../fixtures/storage-classes.js';

const spec = (size: number) => ({ size, version: '8.0', storage: { size: '1Gi', storageClassName: 'fast' } });
const STS = 'my-mysql-mysql';
const labels = { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'my-mysql' };

function pod(ordinal: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${STS}-${ordinal}`,
      namespace: 'default',
      labels: { ...labels, 'statefulset.kubernetes.io/pod-name': `${STS}-${ordinal}` },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name: STS, uid: `uid-StatefulSet-${STS}`, controller: true },
      ],
    },
    status: readyPod,
  } as KubeObject;
}

/** A member's data volume, as its StatefulSet's controller made it, bound. */
function claim(ordinal: number, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: `data-${STS}-${ordinal}`,
      namespace: 'default',
      labels: { ...labels, [CLAIM_UID_LABEL]: request('mysqlcluster', {}).parent.metadata.uid! },
      ...extra,
    },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', volumeName: `pv-${ordinal}` },
    status: { phase: 'Bound' },
  } as KubeObject;
}

/** A running cluster of `size` members, as its last answer made it with the class sent (its StatefulSet at size). */
function running(size: number): { children: KubeObject[]; status: unknown } {
  let children: KubeObject[] = [];
  let status: unknown;
  for (let i = 0; i < 3; i++) {
    // Its members and their claims come once its StatefulSet is made (the first answer makes its Secret).
    const res = mysqlSync(req(spec(size), children, status, [fast], size, i === 0 ? [] : undefined), FIXED_NOW);
    children = res.children;
    status = res.status;
  }
  return { children, status };
}

/** The sync request: the children answered last, as observed (the StatefulSet at `members` replicas, all Ready). */
function req(
  s: Record<string, unknown>,
  children: KubeObject[],
  status: unknown,
  related: KubeObject[],
  members: number,
  /** The members' pods and claims, when not every member's running pod and bound claim. */
  memberObjects?: KubeObject[],
): CompositeSyncRequest {
  const observed = children.map((c) => {
    if (c.kind !== 'StatefulSet') return asObserved(c);
    const sts = asObserved(c, {
      replicas: members,
      readyReplicas: members,
      updatedReplicas: members,
      observedGeneration: 1,
    });
    sts.metadata.generation = 1;
    return sts;
  });
  const r = request('mysqlcluster', s, {
    children: objectMap(observed, 'v1', ['StatefulSet.apps/v1', 'Service.v1', 'Secret.v1']),
    related: objectMap(
      [...(memberObjects ?? Array.from({ length: members }, (_, i) => [pod(i), claim(i)]).flat()), ...related],
      'v1',
      ['Pod.v1', 'PersistentVolumeClaim.v1'],
    ),
  });
  if (status !== undefined) r.parent.status = structuredClone(status) as Record<string, unknown>;
  return r;
}

const conditionsOf = (res: { status?: unknown }) =>
  ((res.status as { conditions?: Array<Record<string, string>> }).conditions ?? []) as Array<Record<string, string>>;
const condition = (res: { status?: unknown }, type: string) => conditionsOf(res).find((c) => c['type'] === type);
const stsOf = (res: { children: KubeObject[] }) => res.children.find((c) => c.kind === 'StatefulSet') as any;

t.test('a running cluster whose class is not sent is answered as with the class', async (t) => {
  const { children, status } = running(3);
  t.equal(stsOf({ children }).spec.replicas, 3, 'it runs with its StatefulSet');
  const withClass = mysqlSync(req(spec(3), children, status, [fast], 3), FIXED_NOW);
  const without = mysqlSync(req(spec(3), children, status, [], 3), FIXED_NOW);
  t.notOk(
    conditionsOf(without).some((c) => c['reason'] === 'InvalidSpec'),
    `not InvalidSpec (${JSON.stringify(conditionsOf(without).map((c) => c['reason']))})`,
  );
  t.same(without.children, withClass.children, 'the StatefulSet, Secret and Services answered as with the class');
  t.same(without.status, withClass.status, 'the status as with the class (Ready as before)');
  t.match(condition(without, 'Ready'), { status: 'True' });
});

t.test('a new cluster whose class is not sent makes no StatefulSet and says why', async (t) => {
  const res = mysqlSync(req(spec(3), [], undefined, [], 0), FIXED_NOW);
  t.notOk(stsOf(res), 'no StatefulSet (its controller would make the claims)');
  t.notOk(conditionsOf(res).some((c) => c['reason'] === 'InvalidSpec'));
  t.match(condition(res, 'Ready'), { status: 'False', reason: 'StorageClassNotSeen' });
  t.match(condition(res, 'ClaimsHeld'), {
    status: 'True',
    reason: 'StorageClassNotSeen',
    message: /spec\.storage\.storageClassName "fast": no StorageClass of that name was seen/,
  });
  t.match(condition(res, 'Progressing'), { status: 'False', reason: 'StorageClassNotSeen' });
  const seen = mysqlSync(req(spec(3), res.children, res.status, [fast], 0), FIXED_NOW);
  t.equal(stsOf(seen)?.spec.volumeClaimTemplates[0].spec.storageClassName, 'fast', 'made once the class is seen');
  t.notOk(condition(seen, 'ClaimsHeld'));
});

t.test('a scale-up waits for the class, the existing members untouched', async (t) => {
  const { children, status } = running(3);
  const before = stsOf({ children });
  const res = mysqlSync(req(spec(5), children, status, [], 3), FIXED_NOW);
  const sts = stsOf(res);
  t.equal(sts.spec.replicas, 3, 'the StatefulSet keeps its 3 replicas');
  t.same({ ...sts.spec, replicas: 5 }, { ...before.spec, replicas: 5 }, 'its template and claims as they were');
  t.notOk(conditionsOf(res).some((c) => c['reason'] === 'InvalidSpec'));
  t.match(condition(res, 'ClaimsHeld'), { status: 'True', reason: 'StorageClassNotSeen', message: /2 new members/ });
  t.match(condition(res, 'Progressing'), { status: 'False', reason: 'StorageClassNotSeen' });
  const seen = mysqlSync(req(spec(5), res.children, res.status, [fast], 3), FIXED_NOW);
  t.equal(stsOf(seen).spec.replicas, 5, 'grows once the class is seen');
});

t.test('a scale-down goes on while the class is not sent', async (t) => {
  const { children, status } = running(3);
  const res = mysqlSync(req(spec(2), children, status, [], 3), FIXED_NOW);
  t.equal(stsOf(res).spec.replicas, 2);
  t.notOk(condition(res, 'ClaimsHeld'));
});

// The StatefulSet controller makes a member's claim again from volumeClaimTemplates whenever it is gone and the
// member's pod is made: "only new claims wait" does not hold for the members it keeps. The hook holds what it can.
t.test('a member whose claim is gone and whose pod never ran is not kept past: no claim of it is made', async (t) => {
  const { children, status } = running(3);
  // Member 2's claim was deleted (and its pod with it); the StatefulSet controller made its pod again, Pending.
  const pending = { ...pod(2), status: { phase: 'Pending' } } as KubeObject;
  const res = mysqlSync(
    req(spec(3), children, status, [], 3, [pod(0), claim(0), pod(1), claim(1), pending]),
    FIXED_NOW,
  );
  t.equal(stsOf(res).spec.replicas, 2, 'the StatefulSet goes down to the members whose claims exist');
  t.match(condition(res, 'ClaimsHeld'), {
    status: 'True',
    reason: 'StorageClassNotSeen',
    message: /the claims of my-mysql-mysql-2 are gone: the StatefulSet goes down to 2 replicas/,
  });
  t.notOk(conditionsOf(res).some((c) => c['reason'] === 'InvalidSpec'));
  const seen = mysqlSync(
    req(spec(3), res.children, res.status, [fast], 2, [pod(0), claim(0), pod(1), claim(1)]),
    FIXED_NOW,
  );
  t.equal(stsOf(seen).spec.replicas, 3, 'back to spec.size once the class is seen');
  t.notOk(condition(seen, 'ClaimsHeld'));
});

t.test(
  'a member whose claim is gone below running members is kept, and said to get a claim of that class',
  async (t) => {
    const { children, status } = running(3);
    // Member 1's claim deleted and its pod gone; members 0 and 2 run on theirs: lowering replicas would stop member 2.
    const res = mysqlSync(req(spec(3), children, status, [], 3, [pod(0), claim(0), pod(2), claim(2)]), FIXED_NOW);
    t.equal(stsOf(res).spec.replicas, 3, 'no running member is stopped');
    t.match(condition(res, 'ClaimsHeld'), {
      status: 'True',
      reason: 'StorageClassNotSeen',
      message:
        /the claims data-my-mysql-mysql-1 of members the StatefulSet keeps are gone or going: its controller makes them again/,
    });
  },
);

t.test('a running member whose claim is being deleted is kept, and said', async (t) => {
  const { children, status } = running(3);
  const going = claim(2, { deletionTimestamp: '2026-01-02T03:00:00Z', finalizers: ['kubernetes.io/pvc-protection'] });
  const res = mysqlSync(
    req(spec(3), children, status, [], 3, [pod(0), claim(0), pod(1), claim(1), pod(2), going]),
    FIXED_NOW,
  );
  t.equal(stsOf(res).spec.replicas, 3, 'the member running on it is not stopped');
  t.match(condition(res, 'ClaimsHeld'), { message: /data-my-mysql-mysql-2 \(being deleted\)/ });
});
