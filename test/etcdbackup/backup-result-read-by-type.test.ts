// A backup pod's result (the JSON of its backup container's termination message) is observed data: a pod a tenant
// makes with the EtcdBackup's selector labels, or a run whose result is odd, may put a value of any JSON type in any
// field. The hook reads each field by its type (hooks/etcdbackup/result.ts readResult): whatever the result holds,
// the sync answers (no throw: a 500 and no status), and the status it writes is one the CRD's schema takes (a value
// of the wrong type copied into status would have the whole status refused), bounded, with nothing of the odd value.
import t, { type Test } from 'tap';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { EtcdBackupStatus } from '../../hooks/etcdbackup/schema.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backupRequest, etcdCluster, STAND_IN_CLUSTER_ID_HEX } from '../fixtures/backup.js';
import { backupSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';

// The API server checks a condition's lastTransitionTime as an RFC 3339 date-time (TypeBox knows no formats itself).
FormatRegistry.Set('date-time', (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v));

const UID = 'uid-ns-nightly';
const PERIODIC = {
  clusterName: 'example',
  backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2 },
  s3: { path: 'bucket/ns/nightly', awsSecret: 'aws' },
};
const ONCE = { clusterName: 'example', s3: { path: 'bucket/ns/once.db', awsSecret: 'aws' } };

/** A periodic run that began a new lineage, every field of a result set. */
const PERIODIC_RESULT = {
  succeeded: true,
  etcdVersion: '3.6.9',
  etcdRevision: 42,
  key: 'ns/nightly_v42_2026-01-02T03-00-00Z',
  bucket: 'bucket',
  size: 2048,
  lastSuccessDate: '2026-01-02T03:00:00.000Z',
  pruned: ['ns/nightly_v30_2026-01-01T03-00-00Z'],
  prunedCount: 1,
  clusterId: STAND_IN_CLUSTER_ID_HEX,
  lineage: '2026-01-02T03-00-00Z',
  lineageBreak: {
    reason: 'LineageUnproven',
    why: 'etcd answered no HashKV',
    key: 'ns/nightly_v40_2026-01-01T03-00-00Z',
    revision: 40,
    clusterId: STAND_IN_CLUSTER_ID_HEX,
    date: '2026-01-01T03:00:00Z',
  },
  pruneProblem: 'one snapshot whose metadata could not be read was kept',
  backupUid: UID,
};
const SKIPPED_RESULT = { succeeded: true, skipped: 'the newest snapshot is younger than its interval', backupUid: UID };
const ONCE_RESULT = {
  succeeded: true,
  alreadyTaken: true,
  etcdVersion: '3.6.9',
  etcdRevision: 42,
  key: 'ns/once.db',
  bucket: 'bucket',
  clusterId: STAND_IN_CLUSTER_ID_HEX,
  lastSuccessDate: '2026-01-02T03:00:00.000Z',
  backupUid: UID,
};
const FAILED_RESULT = { succeeded: false, reason: 'upload failed: AccessDenied', etcdRevision: 42, backupUid: UID };

/** Values of a type no field of a result has, or of the wrong one, or longer than any result holds. */
const HUGE = 'x'.repeat(200_000);
const wrong = (v: unknown): Array<[string, unknown]> => [
  ['an object with toString', { toString: 1 }],
  ['an array', ['a', { toString: 1 }]],
  ['null', null],
  [typeof v === 'string' ? 'a number' : 'a string', typeof v === 'string' ? 7 : '7'],
  ...(typeof v === 'number'
    ? ([
        ['a fraction', 1.5],
        ['a negative number', -1],
      ] as Array<[string, unknown]>)
    : []),
  ['a huge string', HUGE],
];

/** A finished backup pod of this EtcdBackup whose termination message is `message`, as it is (not cut). */
function pod(message: string, n = 1): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `nightly-backup-${n}`,
      namespace: 'ns',
      creationTimestamp: `2026-01-02T0${n}:00:00Z`,
      labels: { 'app.kubernetes.io/name': 'etcdbackup', 'app.kubernetes.io/instance': 'nightly' },
    },
    status: {
      phase: 'Succeeded',
      containerStatuses: [
        { name: 'backup', state: { terminated: { exitCode: 0, message, finishedAt: `2026-01-02T0${n}:00:30Z` } } },
      ],
    },
  } as never;
}

function sync(spec: Record<string, unknown>, pods: KubeObject[], status?: Record<string, unknown>) {
  return backupSync(
    backupRequest({ spec, uid: UID, pods, clusters: [etcdCluster('example', 'ns')], ...(status ? { status } : {}) }),
    'metaops:test',
    FIXED_NOW,
  );
}

/** The status answered: the CRD's schema takes it, it is bounded, and it holds nothing of the odd values. */
function checkStatus(t: Test, status: unknown) {
  const json = JSON.stringify(status);
  t.ok(Value.Check(EtcdBackupStatus, status), 'the CRD schema takes the status', {
    errors: [...Value.Errors(EtcdBackupStatus, status)].slice(0, 3).map((e) => `${e.path}: ${e.message}`),
  });
  t.ok(Buffer.byteLength(json) < 16_384, `the status is bounded (${Buffer.byteLength(json)} bytes)`);
  t.notOk(json.includes('toString'), 'nothing of the odd value is copied');
  t.notOk(json.includes('x'.repeat(4096)), 'nor the huge string');
}

const bases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  ['a periodic run', PERIODIC, PERIODIC_RESULT],
  ['a periodic run that took no snapshot', PERIODIC, SKIPPED_RESULT],
  ['a one-off run', ONCE, ONCE_RESULT],
  ['a failed run', PERIODIC, FAILED_RESULT],
];

t.test('a well-formed result is read whole', async (t) => {
  const status = sync(PERIODIC, [pod(JSON.stringify(PERIODIC_RESULT))]).status as any;
  checkStatus(t, status);
  t.match(status, {
    succeeded: true,
    etcdRevision: 42,
    key: PERIODIC_RESULT.key,
    bucket: 'bucket',
    etcdVersion: '3.6.9',
    pruneProblem: PERIODIC_RESULT.pruneProblem,
    lineage: { clusterID: STAND_IN_CLUSTER_ID_HEX, previous: { reason: 'LineageUnproven', revision: 40 } },
  });
  const failed = sync(PERIODIC, [pod(JSON.stringify(FAILED_RESULT))]).status as any;
  checkStatus(t, failed);
  t.match(failed, { succeeded: false, reason: FAILED_RESULT.reason, Reason: FAILED_RESULT.reason });
});

for (const [what, spec, base] of bases)
  for (const field of [
    ...Object.keys(base),
    ...(base['lineageBreak'] ? Object.keys(PERIODIC_RESULT.lineageBreak) : []),
  ])
    t.test(`${what} whose result has a wrong ${field}: the sync answers a valid status`, async (t) => {
      const inBreak = !(field in base);
      const example = inBreak ? (PERIODIC_RESULT.lineageBreak as Record<string, unknown>)[field] : base[field];
      for (const [kind, value] of wrong(example)) {
        const result = inBreak
          ? { ...base, lineageBreak: { ...(base['lineageBreak'] as object), [field]: value } }
          : { ...base, [field]: value };
        t.test(kind, async (t) => {
          let res: ReturnType<typeof sync> | undefined;
          t.doesNotThrow(() => (res = sync(spec, [pod(JSON.stringify(result))])), 'the sync answers');
          if (res) checkStatus(t, res.status);
        });
      }
    });

t.test('a lineage break of the wrong type: the sync answers a valid status', async (t) => {
  for (const [kind, value] of wrong({})) {
    const res = sync(PERIODIC, [pod(JSON.stringify({ ...PERIODIC_RESULT, lineageBreak: value }))]);
    t.test(kind, async (t) => checkStatus(t, res.status));
  }
});

t.test('a result that is no object, or says not whether it succeeded, is a failure that says so', async (t) => {
  for (const message of ['null', '[]', '7', '"done"', 'true', '{}', '{"succeeded":"true"}', `{"reason":"${HUGE}"}`]) {
    let res: ReturnType<typeof sync> | undefined;
    t.doesNotThrow(() => (res = sync(PERIODIC, [pod(message)])), `${message.slice(0, 30)}: the sync answers`);
    const status = res?.status as any;
    checkStatus(t, status);
    t.match(status, { succeeded: false, reason: /malformed/ }, `${message.slice(0, 30)}: a failure saying so`);
  }
});

t.test('a newer result whose key is of the wrong type never pairs its revision with the older key', async (t) => {
  const older = { ...PERIODIC_RESULT, lineageBreak: undefined };
  const newer = { ...older, etcdRevision: 50, key: { toString: 1 } };
  const status = sync(PERIODIC, [pod(JSON.stringify(older), 1), pod(JSON.stringify(newer), 2)]).status as any;
  checkStatus(t, status);
  t.match(status, { succeeded: false, reason: /malformed/, etcdRevision: 42, key: PERIODIC_RESULT.key });
});

t.test('a result naming its EtcdBackup by a UID of the wrong type is no result of this one', async (t) => {
  const good = sync(PERIODIC, [pod(JSON.stringify(PERIODIC_RESULT), 1)]).status as any;
  for (const [kind, value] of wrong('uid')) {
    const odd = { succeeded: false, reason: 'not this one', backupUid: value };
    const status = sync(PERIODIC, [pod(JSON.stringify(PERIODIC_RESULT), 1), pod(JSON.stringify(odd), 2)]).status as any;
    checkStatus(t, status);
    t.same(
      { succeeded: status.succeeded, key: status.key, reason: status.reason },
      { succeeded: good.succeeded, key: good.key, reason: good.reason },
      `${kind}: read as before it came`,
    );
  }
});

t.test(
  'a status carried from the last sync with values of the wrong type: the sync answers a valid status',
  async (t) => {
    const fields = [
      'succeeded',
      'reason',
      'etcdVersion',
      'etcdRevision',
      'lastSuccessDate',
      'key',
      'bucket',
      'lineage',
      'pruneProblem',
    ];
    for (const spec of [PERIODIC, ONCE])
      for (const field of fields)
        for (const [kind, value] of wrong(field === 'etcdRevision' ? 1 : field === 'succeeded' ? true : 'text')) {
          const previous = { succeeded: true, key: 'ns/once.db', bucket: 'bucket', etcdRevision: 42, [field]: value };
          let res: ReturnType<typeof sync> | undefined;
          t.doesNotThrow(() => (res = sync(spec, [], previous)), `${field} ${kind}: the sync answers`);
          if (res) checkStatus(t, res.status);
        }
  },
);

t.test('an EtcdCluster whose restore and holders are of the wrong type: the sync answers a valid status', async (t) => {
  const odd = { toString: 1 };
  const restores = [
    { phase: odd, name: odd, created: odd, since: odd, s3: odd },
    { phase: 'Restored', name: odd, created: '2026-01-02T02:00:00Z', since: odd },
    { phase: 'Restored', name: 'r', created: odd, since: odd },
    { phase: 'Restoring', name: 'r', s3: { path: odd } },
  ];
  for (const restore of restores) {
    const res = backupSync(
      backupRequest({
        spec: PERIODIC,
        uid: UID,
        pods: [pod(JSON.stringify(PERIODIC_RESULT))],
        clusters: [etcdCluster('example', 'ns', { restore })],
      }),
      'metaops:test',
      FIXED_NOW,
    );
    checkStatus(t, res.status);
  }
  for (const heldBy of [[{ holder: { kind: odd, name: odd } }], [odd], [{ holder: odd }]]) {
    let res: ReturnType<typeof sync> | undefined;
    t.doesNotThrow(
      () =>
        (res = backupSync(
          backupRequest({ spec: PERIODIC, uid: UID, pods: [], clusters: [etcdCluster('example', 'ns', { heldBy })] }),
          'metaops:test',
          FIXED_NOW,
        )),
      'the sync answers',
    );
    if (res) {
      checkStatus(t, res.status);
      t.match((res.status as any).conditions, [{ type: 'Ready', status: 'False', reason: 'ClusterHeld' }]);
    }
  }
});
