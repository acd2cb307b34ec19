// A spec refused (InvalidSpec) or an answer held changes nothing: every observed child is kept, and so are the
// conditions the last answer said of them (lib/hook.ts conditionsKeepingOthers), but only while what they say still
// holds of what is observed (keptConditionsHold). For every kind that keeps them: a refused parent whose children are
// gone (a node lost, pods evicted, the Secret or Job deleted by hand), none made again while refused, does not keep
// claiming Available, Synced or Upgrading; fed back, the answer is the same (quiet at rest).
import t from 'tap';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { operators } from '../../main/operators.js';
import { FIXED_NOW, readyPod } from '../fixtures/requests.js';

const KINDS: Record<string, { kind: string }> = {
  podset: { kind: 'PodSet' },
  memcached: { kind: 'Memcached' },
  mysqlcluster: { kind: 'MySQLCluster' },
  etcdcluster: { kind: 'EtcdCluster' },
  s3: { kind: 'S3' },
  etcdbackup: { kind: 'EtcdBackup' },
};

const claims = [
  {
    type: 'Available',
    status: 'True',
    reason: 'Serving',
    message: '2/2 ready',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  },
  { type: 'Synced', status: 'True', reason: 'Synced', message: 'in sync', lastTransitionTime: '2026-01-01T00:00:00Z' },
  { type: 'Upgrading', status: 'False', reason: 'Done', lastTransitionTime: '2026-01-01T00:00:00Z' },
];

function refusedRequest(name: string, status: Record<string, unknown>, children: KubeObject[]): CompositeSyncRequest {
  const { kind } = KINDS[name]!;
  const op = operators.find((o) => o.name === name);
  if (op?.type !== 'composite') throw new Error(name);
  const apiVersion = `${op.resource.group}/${op.resource.version}`;
  const map: Record<string, Record<string, KubeObject>> = {};
  for (const c of children) (map[`${c.kind}.${c.apiVersion}`] ??= {})[c.metadata.name!] = c;
  return {
    controller: {},
    // A spec no schema accepts (an array): refused InvalidSpec before the hook runs.
    parent: {
      apiVersion,
      kind,
      metadata: { name: 'web', namespace: 'team-a', uid: 'uid-web', generation: 2 },
      spec: [] as never,
      status: {
        observedGeneration: 1,
        conditions: [
          { type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: '2026-01-01T00:00:00Z' },
          ...claims,
        ],
        ...status,
      },
    },
    children: map,
    related: {},
  } as unknown as CompositeSyncRequest;
}

const pod = (name: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'team-a', uid: `uid-${name}` },
    status: readyPod,
  }) as unknown as KubeObject;

const types = (res: { status?: unknown }) =>
  ((res.status as { conditions: Array<{ type: string; status: string; reason: string }> }).conditions ?? []).map(
    (c) => `${c.type}=${c.status}`,
  );

for (const name of Object.keys(KINDS)) {
  const op = operators.find((o) => o.name === name)!;
  t.test(`a refused ${KINDS[name]!.kind} whose children are gone claims nothing of them`, async (t) => {
    // The status names the pods it counted (PodSet, Memcached, MySQLCluster: status.nodes; EtcdCluster: memberList)
    // or names none (S3's Secret, EtcdBackup's Job): either way none is observed now.
    const listed =
      name === 'etcdcluster'
        ? { memberList: [{ name: 'web-0' }, { name: 'web-1' }] }
        : name === 's3' || name === 'etcdbackup'
          ? {}
          : { nodes: ['web-0', 'web-1'], readyReplicas: 2 };
    const req = refusedRequest(name, listed, []);
    const res = await runHook(op, 'sync', req, { now: FIXED_NOW });
    t.match(types(res), ['Ready=False'], `only Ready says what it is (${types(res).join(', ')})`);
    t.match((res.status as any).conditions[0], { reason: 'InvalidSpec' }, 'refused');
    t.notOk(
      types(res).some((c) => /^(Available|Synced)=True$/.test(c)),
      'no Available=True or Synced=True with nothing observed',
    );
    const again = refusedRequest(name, {}, []);
    again.parent.status = res.status;
    const second = await runHook(op, 'sync', again, { now: new Date(FIXED_NOW.getTime() + 60_000) });
    t.same(second.status, res.status, 'fed back, the same status (quiet at rest)');
  });
}

t.test(
  'a refused PodSet keeps what it said while every pod it counted is observed Ready, not once one is not',
  async (t) => {
    const op = operators.find((o) => o.name === 'podset')!;
    const status = { nodes: ['web-pod-0', 'web-pod-1'], readyReplicas: 2 };
    const both = await runHook(op, 'sync', refusedRequest('podset', status, [pod('web-pod-0'), pod('web-pod-1')]), {
      now: FIXED_NOW,
    });
    // Its pods run and their NetworkPolicy is not observed: the refused answer says so as the sync would
    // (NetworkPolicyCreated=False CreatingNetworkPolicy, lib/network-policy.ts withPolicyCondition).
    const policy = 'NetworkPolicyCreated=False';
    t.same(
      types(both),
      ['Ready=False', 'Available=True', 'Synced=True', 'Upgrading=False', policy],
      'kept while they serve',
    );
    const one = await runHook(op, 'sync', refusedRequest('podset', status, [pod('web-pod-0')]), { now: FIXED_NOW });
    t.same(types(one), ['Ready=False', policy], 'dropped once a pod it counted is gone');
    const notReady = { ...pod('web-pod-1'), status: { phase: 'Running', conditions: [] } } as unknown as KubeObject;
    const unready = await runHook(op, 'sync', refusedRequest('podset', status, [pod('web-pod-0'), notReady]), {
      now: FIXED_NOW,
    });
    t.same(types(unready), ['Ready=False', policy], 'dropped once fewer are Ready than it counted');
  },
);
