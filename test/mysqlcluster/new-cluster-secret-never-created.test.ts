// A new MySQLCluster whose first answer was applied only in part (issue 31, crash consistency): Metacontroller
// creates the children one kind at a time, in no fixed order (v4 pkg/controller/common/manage_children.go ranges over a
// Go map of kinds), and when one create fails it goes on with the others; or the process dies in between: Metacontroller killed after creating the StatefulSet and before the Secret, a
// ResourceQuota on Secrets full for a moment, an admission webhook timing out. The StatefulSet then makes its claims
// (labelled with its selector, bound at once by an Immediate StorageClass) and its pods, which can never start: their
// env refers to the Secret that does not exist (CreateContainerConfigError). No server ever ran, so no data volume
// holds data or a password. The next sync must create the Secret with new passwords and let the cluster start; it
// must not call the cluster's never-made password lost and wait for a restore that cannot exist.
import t from 'tap';
import { mysqlSync as sync } from '../fixtures/hooks.js';
import { clusterMember } from '../fixtures/mysql-pods.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { NEW_CREDENTIALS_ANNOTATION } from '../../hooks/mysqlcluster/sync.js';

const NAME = 'my-mysql';
const SECRET = `${NAME}-mysql`;
const STS = `${NAME}-mysql`;
const spec = { size: 3, version: '8.0' };
const labels = { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': NAME };
const condition = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === type);

/** A claim the StatefulSet made for member i just now: its selector's labels, bound at once. */
function claim(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: `data-${STS}-${i}`,
      namespace: 'default',
      uid: `uid-claim-${i}`,
      // Marked with the cluster's uid (uid-my-mysql; the last test's: a previous cluster's, adopted), as its StatefulSet's claim template marks them.
      labels: { ...labels, 'mysqlcluster.metaops.io/uid': 'uid-my-mysql' },
      creationTimestamp: FIXED_NOW.toISOString(),
    },
    spec: { volumeName: `pvc-${i}`, accessModes: ['ReadWriteOnce'] },
    status: { phase: 'Bound' },
  } as KubeObject;
}

/** Member i's pod: scheduled, its containers never started (the Secret its env names does not exist). */
function pod(i: number): KubeObject {
  const name = `${STS}-${i}`;
  const waiting = {
    waiting: { reason: 'CreateContainerConfigError', message: `secret "${SECRET}" not found` },
  };
  return clusterMember(NAME, i, {
    image: 'mysql:8.0',
    labels: { 'statefulset.kubernetes.io/pod-name': name },
    status: {
      phase: 'Pending',
      initContainerStatuses: [{ name: 'config', ready: false, restartCount: 0, state: waiting }],
      containerStatuses: ['mysql', 'replication'].map((c) => ({
        name: c,
        ready: false,
        restartCount: 0,
        state: waiting,
      })),
    },
  });
}

t.test(
  'a new cluster whose Secret was never created (its StatefulSet was) gets its passwords: no server ever ran',
  async (t) => {
    let generated = 0;
    const newPassword = () => `generated-${++generated}`;
    const base = (): CompositeSyncRequest => {
      const r = request('mysqlcluster', spec);
      r.parent.metadata = { ...r.parent.metadata, name: NAME, namespace: 'default', uid: 'uid-my-mysql' };
      return r;
    };
    const first = sync(base(), FIXED_NOW, newPassword);
    t.ok(
      first.children.some((c) => c.kind === 'Secret' && c.metadata.name === SECRET),
      'the first answer carries the Secret',
    );
    // Applied in part: everything but the Secret. The StatefulSet made its claims and pods.
    const applied = first.children.filter((c) => c.kind !== 'Secret').map((c) => asObserved(c));
    const next: CompositeSyncRequest = {
      ...base(),
      children: objectMap(applied, 'v1', ['Secret.v1', 'StatefulSet.apps/v1', 'Service.v1']),
      related: objectMap(
        [0, 1, 2].flatMap((i) => [claim(i), pod(i)]),
        'v1',
        ['Pod.v1', 'PersistentVolumeClaim.v1'],
      ),
    };
    next.parent.status = structuredClone(first.status) as Record<string, unknown>;
    const res = sync(next, FIXED_NOW, newPassword);
    const secret = res.children.find((c) => c.kind === 'Secret' && c.metadata.name === SECRET);
    const lost = condition(res, 'CredentialsAvailable');
    t.ok(
      secret,
      `the Secret is answered so that the members can start (got ${lost?.reason}: ${String(lost?.message).slice(0, 200)})`,
    );
    t.not(condition(res, 'Ready')?.reason, 'CredentialsLost', 'a password that never existed is not called lost');
    t.comment(`Ready: ${JSON.stringify(condition(res, 'Ready'))}`);
  },
);

// What the second sync sees after the first answer was applied without its Secret: the StatefulSet, its Services, the
// claims and pods it made; `change` edits the request (status lost, a pod that ran, ...).
function partlyApplied(change: (req: CompositeSyncRequest, first: CompositeSyncResponse) => void = () => {}) {
  const base = (): CompositeSyncRequest => {
    const r = request('mysqlcluster', spec);
    r.parent.metadata = { ...r.parent.metadata, name: NAME, namespace: 'default', uid: 'uid-my-mysql' };
    return r;
  };
  const first = sync(base(), FIXED_NOW, () => 'first');
  const applied = first.children.filter((c) => c.kind !== 'Secret').map((c) => asObserved(c));
  const next: CompositeSyncRequest = {
    ...base(),
    children: objectMap(applied, 'v1', ['Secret.v1', 'StatefulSet.apps/v1', 'Service.v1']),
    related: objectMap(
      [0, 1, 2].flatMap((i) => [claim(i), pod(i)]),
      'v1',
      ['Pod.v1', 'PersistentVolumeClaim.v1', 'Secret.v1'],
    ),
  };
  next.parent.status = structuredClone(first.status) as Record<string, unknown>;
  change(next, first);
  return sync(next, FIXED_NOW, () => 'second');
}
const secretOf = (res: CompositeSyncResponse) =>
  res.children.find((c) => c.kind === 'Secret' && c.metadata.name === SECRET);
const stsOf = (res: CompositeSyncResponse) => res.children.find((c) => c.kind === 'StatefulSet')!;

t.test('the record is on the StatefulSet: Metacontroller killed before it wrote the status', async (t) => {
  const res = partlyApplied((req) => delete req.parent.status);
  t.ok(secretOf(res), 'the Secret is answered with new passwords');
  t.equal(stsOf(res).metadata.annotations?.[NEW_CREDENTIALS_ANNOTATION], 'true', 'the StatefulSet keeps its record');
});

t.test('once the Secret is seen, the StatefulSet drops its record (it holds passwords now)', async (t) => {
  const first = sync(
    (() => {
      const r = request('mysqlcluster', spec);
      r.parent.metadata = { ...r.parent.metadata, name: NAME, namespace: 'default', uid: 'uid-my-mysql' };
      return r;
    })(),
    FIXED_NOW,
    () => 'first',
  );
  t.equal(stsOf(first).metadata.annotations?.[NEW_CREDENTIALS_ANNOTATION], 'true', 'a new StatefulSet is marked');
  const res = partlyApplied((req, f) => {
    req.children = objectMap(
      f.children.map((c) => asObserved(c)),
      'v1',
      ['Secret.v1', 'StatefulSet.apps/v1', 'Service.v1'],
    );
  });
  t.equal(
    (secretOf(res) as any)?.data?.['root-password'],
    Buffer.from('first').toString('base64'),
    'the observed password',
  );
  t.notOk(stsOf(res).metadata.annotations?.[NEW_CREDENTIALS_ANNOTATION], 'the record is gone');
});

const ran: Record<string, (p: any) => void> = {
  'a mysql container running': (p) => (p.status.containerStatuses[0].state = { running: { startedAt: 'x' } }),
  'a mysql container that ended': (p) =>
    (p.status.containerStatuses[0].lastState = { terminated: { exitCode: 1, reason: 'Error' } }),
  'a restarted container': (p) => (p.status.containerStatuses[1].restartCount = 2),
  'an init container that ran': (p) =>
    (p.status.initContainerStatuses[0] = {
      name: 'config',
      ready: true,
      restartCount: 0,
      containerID: 'containerd://abc',
      state: { terminated: { exitCode: 0, reason: 'Completed' } },
    }),
};
for (const [what, edit] of Object.entries(ran)) {
  t.test(`a member pod with ${what} ran on its volume: CredentialsLost, no new password`, async (t) => {
    const res = partlyApplied((req) => edit((req.related as any)['Pod.v1'][`${STS}-1`]));
    t.notOk(secretOf(res), 'no Secret answered');
    t.equal(condition(res, 'Ready')?.reason, 'CredentialsLost');
    t.notOk(stsOf(res).metadata.annotations?.[NEW_CREDENTIALS_ANNOTATION], 'the record is dropped');
  });
}

t.test('a Secret once recorded in the status (seen, then deleted) is lost, the record notwithstanding', async (t) => {
  const res = partlyApplied((req) => ((req.parent.status as any).secretName = SECRET));
  t.notOk(secretOf(res), 'no Secret answered');
  t.equal(condition(res, 'Ready')?.reason, 'CredentialsLost');
});

t.test(
  'a Secret of that name that is not the cluster`s (left behind) is never replaced by new passwords',
  async (t) => {
    const res = partlyApplied((req) => {
      (req.related as any)['Secret.v1'] = {
        [SECRET]: { apiVersion: 'v1', kind: 'Secret', metadata: { name: SECRET, namespace: 'default', uid: 'u-s' } },
      };
    });
    t.notOk(secretOf(res), 'no Secret answered');
    t.equal(condition(res, 'Ready')?.reason, 'CredentialsLost');
  },
);

t.test('a StatefulSet made without the record (over a previous cluster`s volumes) gets no new password', async (t) => {
  const res = partlyApplied((req) => {
    const sts = (req.children as any)['StatefulSet.apps/v1'][STS];
    delete sts.metadata.annotations;
  });
  t.notOk(secretOf(res), 'no Secret answered');
  t.equal(condition(res, 'Ready')?.reason, 'CredentialsLost');
});

t.test('a new cluster over a previous cluster`s volumes: no record on its StatefulSet, no Secret', async (t) => {
  const r = request('mysqlcluster', spec);
  r.parent.metadata = { ...r.parent.metadata, name: NAME, namespace: 'default', uid: 'uid-my-mysql' };
  r.related = objectMap([claim(0)], 'v1', ['PersistentVolumeClaim.v1']);
  const res = sync(r, FIXED_NOW);
  t.notOk(secretOf(res), 'no Secret answered');
  t.notOk(stsOf(res).metadata.annotations?.[NEW_CREDENTIALS_ANNOTATION], 'the StatefulSet is not marked');
});
