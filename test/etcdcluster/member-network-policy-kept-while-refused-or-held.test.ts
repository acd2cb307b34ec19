// A running cluster without its members' NetworkPolicy (an earlier metaops, or METAOPS_ETCD_NETWORK_POLICY=false
// before) gets it at its next sync; so it must while its answer keeps every observed child and makes nothing: a spec
// now refused (InvalidSpec) or a name another owner holds (<Kind>NameTaken). Over several syncs as Metacontroller
// runs them: customize asks for the policy's name (names.ts), so once made the cluster's own policy is among the
// related objects too, and is the cluster's, not another owner's: the answer stays the same sync after sync. A policy
// of that name another owner holds is never answered over, and a cluster none of whose members runs makes none.
import t from 'tap';
import { withMemberPolicy } from '../../hooks/etcdcluster/network.js';
import { invalidSpecResponse, type KubeObject } from '../../lib/index.js';
import { FakeEtcd, Loop, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const policies = (loop: Loop) =>
  loop.children.filter((c) => c.kind === 'NetworkPolicy').map((c) => `${c.metadata.name}`);

/** The related objects as Metacontroller sends them: the names customize asks for, the cluster's own among them. */
function relatedWithOwn(loop: Loop, others: KubeObject[]): KubeObject[] {
  const own = loop.children
    .filter((c) => c.kind === 'NetworkPolicy')
    .map((c) => ({
      ...structuredClone(c),
      metadata: {
        ...structuredClone(c.metadata),
        uid: `uid-NetworkPolicy-${c.metadata.name}`,
        ownerReferences: [
          {
            apiVersion: 'etcd.database.coreos.com/v1beta2',
            kind: 'EtcdCluster',
            name: loop.name,
            uid: `uid-${loop.name}`,
            controller: true,
          },
        ],
      },
    }));
  return [...others, ...own];
}

/** A running cluster of 3 as an earlier metaops left it: members, Services, budget, no NetworkPolicy. */
async function withoutPolicy(): Promise<Loop> {
  const loop = await running({ size: 3 });
  loop.children = loop.children.filter((c) => c.kind !== 'NetworkPolicy');
  return loop;
}

const theirs: KubeObject = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'e-members', namespace: 'ns', uid: 'uid-theirs' },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
};

t.test(
  'a refused running cluster gets the policy and keeps it, sync after sync, its own seen as related',
  async (t) => {
    const loop = await withoutPolicy();
    loop.spec = { ...loop.spec, pod: { tolerations: [{ key: 'dedicated', operator: 'Exists' }] } };
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      loop.related = relatedWithOwn(loop, []);
      const res: any = await loop.step();
      t.match(
        res.status.conditions.find((c: any) => c.type === 'Ready'),
        { reason: 'InvalidSpec' },
      );
      seen.push(policies(loop).join(',') || 'none');
    }
    t.same(seen, ['e-members', 'e-members', 'e-members', 'e-members'], 'answered at every sync: never deleted');
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the members are kept');
    const before = structuredClone(loop.last);
    loop.related = relatedWithOwn(loop, []);
    t.same(await loop.step(), before, 'the same observed state gives the same answer');
  },
);

t.test(
  'the refused answer gives the policy the accepted spec answers: no change when the spec is put right',
  async (t) => {
    const loop = await withoutPolicy();
    const spec = loop.spec;
    loop.spec = { ...spec, pod: { annotations: { 'sidecar.istio.io/inject': 'true' } } };
    await loop.step();
    const refused = loop.children.find((c) => c.kind === 'NetworkPolicy');
    loop.spec = spec;
    await loop.step();
    t.same(
      loop.children.find((c) => c.kind === 'NetworkPolicy'),
      refused,
      'the same policy',
    );
  },
);

t.test('a refused cluster whose policy name another owner holds does not take it', async (t) => {
  const loop = await withoutPolicy();
  loop.spec = { ...loop.spec, pod: { securityContext: { seLinuxOptions: { level: 's0:c1,c2' } } } };
  loop.related = [theirs];
  await loop.step();
  t.same(policies(loop), [], 'not answered over theirs');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the members are kept');
});

t.test('a held running cluster gets the policy while its name is free, and stays held', async (t) => {
  const loop = await withoutPolicy();
  // Its headless Service `e` went (deleted by hand) and another owner made a Service of that name meanwhile.
  loop.children = loop.children.filter((c) => !(c.kind === 'Service' && c.metadata.name === 'e'));
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'e',
      namespace: 'ns',
      uid: 'uid-other-e',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'other', uid: 'uid-other', controller: true },
      ],
    },
  } as KubeObject;
  const seen: string[] = [];
  for (let i = 0; i < 3; i++) {
    loop.related = relatedWithOwn(loop, [service]);
    await loop.step();
    t.match(
      loop.s().conditions.find((c: any) => c.type === 'Ready'),
      { reason: 'ServiceNameTaken' },
      'held',
    );
    seen.push(policies(loop).join(',') || 'none');
  }
  t.same(seen, ['e-members', 'e-members', 'e-members'], 'the policy answered at every sync');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the members are kept');
  t.notOk(
    loop.children.some((c) => c.kind === 'Service' && c.metadata.name === 'e'),
    "the other owner's Service is not answered",
  );
});

t.test('a held cluster whose policy name another owner holds does not take it', async (t) => {
  const loop = await withoutPolicy();
  loop.children = loop.children.filter((c) => !(c.kind === 'Service' && c.metadata.name === 'e'));
  loop.related = [
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'e', namespace: 'ns', uid: 'uid-x' } },
    theirs,
  ];
  await loop.step();
  t.match(
    loop.s().conditions.find((c: any) => c.type === 'Ready'),
    { reason: /NameTaken$/ },
  );
  t.same(policies(loop), [], 'not answered over theirs');
});

t.test('a held cluster that never ran (no member kept) makes no policy', async (t) => {
  const loop = new Loop({ size: 3 }, new FakeEtcd('e'));
  loop.related = [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'e', namespace: 'ns', uid: 'uid-x' } }];
  await loop.step();
  t.match(
    loop.s().conditions.find((c: any) => c.type === 'Ready'),
    { reason: 'ServiceNameTaken' },
  );
  t.same(loop.children, [], 'nothing made');
});

t.test('withMemberPolicy: only beside member pods kept, one policy, none with the setting off', async (t) => {
  const parent = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns', uid: 'u-e', generation: 2 },
    spec: { size: 1 },
  };
  const member = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'e-0', namespace: 'ns' }, spec: {} };
  const check = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'e-restore-check', namespace: 'ns' }, spec: {} };
  const stale = { ...theirs, metadata: { ...theirs.metadata, uid: 'uid-own' } };
  const answer = (children: KubeObject[], settings: Record<string, unknown> = {}) => {
    const request = { controller: {}, parent, children: objectMap(children), related: objectMap([]) } as any;
    return withMemberPolicy(request, invalidSpecResponse(request, 'refused', FIXED_NOW), settings, false, FIXED_NOW);
  };
  const kinds = (r: { children: any[] }) => r.children.map((c) => `${c.kind}/${c.metadata.name}`).sort();
  t.same(kinds(answer([])), [], 'no member: nothing made');
  t.same(
    kinds(answer([check])),
    ['NetworkPolicy/e-restore-check', 'Pod/e-restore-check'],
    "a restore check pod is no member: its own policy, not the members'",
  );
  t.same(kinds(answer([member])), ['NetworkPolicy/e-members', 'Pod/e-0'], 'a member: the policy with it');
  const replaced = answer([member, stale]);
  t.same(kinds(replaced), ['NetworkPolicy/e-members', 'Pod/e-0'], 'one policy, not two');
  t.ok((replaced.children.find((c) => c.kind === 'NetworkPolicy') as any).spec.egress, 'as the rules make it');
  t.same(kinds(answer([member], { memberNetworkPolicy: false })), ['Pod/e-0'], 'the setting off: none');
});
