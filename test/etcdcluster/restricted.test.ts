// Pod Security `restricted` for the pods the etcd hooks make (member pods, their restore init containers, backup
// Jobs), and what the EtcdCluster status says when a member pod it answered is never created (admission refused
// it). The e2e suite applies them in a namespace that enforces `restricted` (test/e2e/scenarios.ts).
import t from 'tap';
import type { EtcdClient, EtcdMember } from '../../hooks/etcdcommon/etcd.js';
import { POD_ABSENT_SECONDS, podsCreated } from '../../hooks/etcdcluster/events.js';
import { MEMBER_USER, memberPod } from '../../hooks/etcdcluster/members.js';
import { etcdSync as sync } from '../fixtures/hooks.js';
import { backupChild } from '../../hooks/etcdbackup/sync.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { restrictedProblems } from '../fixtures/pod-security.js';

const parent = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>): ParentObject => {
  const p: ParentObject = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns', uid: 'uid-e', generation: 1 },
    spec: { repository: 'quay.io/coreos/etcd', paused: false, version: '3.5.0', size: 1, ...spec },
  };
  if (status) p.status = status;
  return p;
};
const restore = { s3: { path: 'bucket/snap', awsSecret: 'aws' }, image: 'ghcr.io/metaops/metaops:0.1.0' };

t.test('the checker refuses what restricted refuses', async (t) => {
  t.match(restrictedProblems({ containers: [{ name: 'c', image: 'busybox' }] }), [
    'c: allowPrivilegeEscalation not false',
    'c: runAsNonRoot not true',
    'c: seccomp',
    'c: capabilities not dropped',
  ]);
  t.match(restrictedProblems({ volumes: [{ name: 'h', hostPath: { path: '/' } }], containers: [] }), [
    'volume h: hostPath',
  ]);
});

t.test(
  'member pods, with and without a claim, TLS and a restore, pass restricted as a numeric non-root user',
  async (t) => {
    const variants: Array<[string, Record<string, unknown>, boolean]> = [
      ['emptyDir', {}, false],
      [
        'claim',
        {
          pod: {
            persistentVolumeClaimSpec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        },
        false,
      ],
      [
        'TLS',
        { TLS: { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'op' } } },
        false,
      ],
      ['restore 3.5 (etcdutl)', {}, true],
      ['restore 3.1 (etcdctl)', { version: '3.1.10' }, true],
    ];
    for (const [label, extra, restoring] of variants) {
      const p = parent(extra);
      const pod = memberPod({
        parent: p,
        spec: p.spec as any,
        name: 'e-0',
        initialCluster: 'e-0=http://e-0.e.ns.svc:2380',
        state: 'new',
        restore: restoring ? restore : undefined,
      });
      const spec = pod['spec'] as any;
      t.same(restrictedProblems(spec), [], `${label}: admitted by restricted`);
      t.match(
        spec.securityContext,
        {
          runAsNonRoot: true,
          runAsUser: MEMBER_USER,
          runAsGroup: MEMBER_USER,
          fsGroup: MEMBER_USER,
          fsGroupChangePolicy: 'OnRootMismatch',
          seccompProfile: { type: 'RuntimeDefault' },
        },
        `${label}: the data volume is writable by that user`,
      );
      if (restoring)
        t.same(
          spec.initContainers.map((c: any) => c.name),
          ['check-dns', 'fetch-snapshot', 'restore-snapshot', 'place-snapshot'],
          `${label}: init containers checked too`,
        );
    }
  },
);

t.test(
  'spec.pod.securityContext overrides field by field (an image that must run as root is a documented choice)',
  async (t) => {
    const p = parent({ pod: { securityContext: { runAsUser: 0, runAsNonRoot: false } } });
    const spec = memberPod({ parent: p, spec: p.spec as any, name: 'e-0', initialCluster: '', state: 'new' })[
      'spec'
    ] as any;
    t.match(spec.securityContext, {
      runAsUser: 0,
      runAsNonRoot: false,
      seccompProfile: { type: 'RuntimeDefault' },
      fsGroup: MEMBER_USER,
    });
    t.match(restrictedProblems(spec), ['pod runAsUser 0'], 'which restricted then refuses');
    const own = parent({ pod: { securityContext: { runAsUser: 2000, fsGroup: 2000 } } });
    const ownSpec = memberPod({ parent: own, spec: own.spec as any, name: 'e-0', initialCluster: '', state: 'new' })[
      'spec'
    ] as any;
    t.match(ownSpec.securityContext, { runAsUser: 2000, fsGroup: 2000, runAsNonRoot: true });
    t.same(restrictedProblems(ownSpec), []);
  },
);

t.test('backup Jobs and CronJobs pass restricted', async (t) => {
  for (const interval of [0, 3600]) {
    const p: ParentObject = {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdBackup',
      metadata: { name: 'b', namespace: 'ns', uid: 'u' },
      spec: {},
    };
    const child = backupChild(
      p,
      {
        clusterName: 'e',
        clientTLSSecret: 'tls',
        storageType: 'S3',
        backupPolicy: { backupIntervalInSecond: interval, maxBackups: 2, timeoutInSecond: 60 },
        s3: { path: 'b/ns/e', awsSecret: 'aws' },
      } as any,
      'img',
      ['https://e-client.ns.svc:2379'],
    );
    const template = interval ? (child['spec'] as any).jobTemplate.spec.template : (child['spec'] as any).template;
    t.same(restrictedProblems(template.spec), [], `${child.kind}: admitted by restricted`);
  }
});

t.test('PodsCreated: a member pod still absent a minute after it was first missed is PodNotCreated', async (t) => {
  const since = (s: number) => ({
    conditions: [
      {
        type: 'PodsCreated',
        status: 'False',
        reason: 'CreatingPods',
        message: '',
        lastTransitionTime: new Date(FIXED_NOW.getTime() - s * 1000).toISOString().replace(/\.\d+Z$/, 'Z'),
      },
    ],
  });
  t.match(podsCreated({}, ['e-0'], ['e-0'], FIXED_NOW), { status: true, reason: 'PodsExist' });
  t.match(podsCreated({}, [], ['e-0'], FIXED_NOW), { status: false, reason: 'CreatingPods', message: /e-0/ });
  t.match(podsCreated({ status: since(POD_ABSENT_SECONDS - 5) }, [], ['e-0'], FIXED_NOW), { reason: 'CreatingPods' });
  t.match(podsCreated({ status: since(POD_ABSENT_SECONDS + 1) }, [], ['e-0', 'e-1'], FIXED_NOW), {
    status: false,
    reason: 'PodNotCreated',
    message: /pod e-0, e-1 has not been created .*SyncError event/,
  });
  t.match(
    podsCreated({ status: since(3600) }, ['e-0', 'e-1'], ['e-0', 'e-1'], FIXED_NOW),
    { status: true, reason: 'PodsExist' },
    'created at last',
  );

  // Through the sync: a bootstrapping cluster whose seed pod was never created.
  const never: EtcdClient = {
    memberList: async () => ({ members: [] as EtcdMember[], clusterVersion: '' }),
    memberAdd: async () => {
      throw new Error('no');
    },
    memberRemove: async () => undefined,
    memberPromote: async () => undefined,
    health: async () => ({ healthy: false }),
  } as unknown as EtcdClient;
  const request = {
    controller: {},
    parent: parent({ size: 1 }),
    children: objectMap([], 'v1', ['Pod.v1', 'Service.v1']),
  };
  const first = await sync(request, { etcd: never, now: FIXED_NOW });
  const cond = (res: any) => res.status.conditions.find((c: any) => c.type === 'PodsCreated');
  t.match(cond(first), { status: 'False', reason: 'CreatingPods' });
  t.ok(
    first.resyncAfterSeconds !== undefined && first.resyncAfterSeconds <= POD_ABSENT_SECONDS,
    'the hook is called again in time to tell',
  );
  const later = new Date(FIXED_NOW.getTime() + (POD_ABSENT_SECONDS + 5) * 1000);
  const second = await sync(
    { ...request, parent: parent({ size: 1 }, first.status as any) },
    { etcd: never, now: later },
  );
  t.match(cond(second), {
    status: 'False',
    reason: 'PodNotCreated',
    lastTransitionTime: cond(first).lastTransitionTime,
  });
  // Once created (and observed), the condition says so.
  const pod = asObserved(
    (second.children as KubeObject[]).find((c) => c.kind === 'Pod')!,
    { phase: 'Pending' },
  );
  const third = await sync(
    {
      ...request,
      parent: parent({ size: 1 }, second.status as any),
      children: objectMap([pod], 'v1', ['Pod.v1', 'Service.v1']),
    },
    { etcd: never, now: later },
  );
  t.match(cond(third), { status: 'True', reason: 'PodsExist' });
});

t.test(
  'a bootstrap whose pods are refused keeps its names: no new ordinals at every sync (a hot loop under Metacontroller)',
  async (t) => {
    const never = {
      memberList: async () => ({ members: [] as EtcdMember[], clusterVersion: '' }),
      health: async () => ({ healthy: false }),
    } as unknown as EtcdClient;
    let p = parent({ size: 3 });
    const seen: string[][] = [];
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await sync(
        { controller: {}, parent: p, children: objectMap([], 'v1', ['Pod.v1', 'Service.v1']) },
        { etcd: never, now: new Date(FIXED_NOW.getTime() + i * 40_000) },
      );
      seen.push((res.children as KubeObject[]).filter((c) => c.kind === 'Pod').map((c) => c.metadata.name!));
      statuses.push(JSON.stringify(res.status));
      p = parent({ size: 3 }, res.status as any);
    }
    t.same(seen, Array(4).fill(['e-0', 'e-1', 'e-2']), 'the same three names every time');
    t.equal(statuses[3], statuses[2], 'at rest once PodNotCreated is reported');
    t.match(
      JSON.parse(statuses[3]!).conditions.find((c: any) => c.type === 'PodsCreated'),
      { reason: 'PodNotCreated' },
    );

    // A bootstrap whose pods did exist and went (deleted, or a member failed) still moves on to new names.
    const existed = parent(
      { size: 1 },
      {
        phase: 'Creating',
        lastMemberIndex: 0,
        conditions: [
          {
            type: 'PodsCreated',
            status: 'True',
            reason: 'PodsExist',
            message: '',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    );
    const res = await sync(
      { controller: {}, parent: existed, children: objectMap([], 'v1', ['Pod.v1', 'Service.v1']) },
      { etcd: never, now: FIXED_NOW },
    );
    t.same(
      (res.children as KubeObject[]).filter((c) => c.kind === 'Pod').map((c) => c.metadata.name),
      ['e-1'],
    );
  },
);
