// Every answer of a sync that keeps the observed children and makes nothing keeps the pods it keeps running under
// their NetworkPolicy, one rule for every kind whose pods run a tenant's image (the kind's `kept`, lib/operator.ts;
// lib/network-policy.ts keptWithPolicies): a TemporaryError or PermanentError of the sync, an answer not given
// (ChildOutsideNamespace, AnswerTooLarge, ChildTooLarge, StatusTooLarge), as a refused spec (InvalidSpec) and a name
// held already did. The policy is answered where its name is free, and NetworkPolicyCreated says which is not observed
// while the pods run (CreatingNetworkPolicy, with a resync). A finalize's answer makes nothing: no policy is added.
// Each kind's own `kept` is run under a stand-in sync that gives each answer class (EtcdCluster: its members and its
// restore check pod; PodSet: its pods; Memcached: its Deployment).
import { Type } from '@sinclair/typebox';
import t from 'tap';
import { servicesSelectOwn } from '../../hooks/etcdcluster/sync.js';
import { withMemberPolicy } from '../../hooks/etcdcluster/network.js';
import { kept as memcachedKept, networkPolicyName as memcachedPolicy } from '../../hooks/memcached/sync.js';
import { kept as podsetKept, networkPolicyName as podsetPolicy } from '../../hooks/podset/sync.js';
import { resource as podsetResource } from '../../hooks/podset/schema.js';
import { PermanentError, TemporaryError } from '../../lib/errors.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ObservedObject,
} from '../../lib/metacontroller.js';
import { defineComposite, runHook } from '../../lib/operator.js';
import { specParser } from '../../lib/spec.js';
import { FIXED_NOW } from '../fixtures/requests.js';

type Kept = (
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  settings: any,
  now: Date,
) => CompositeSyncResponse;

const pod = (name: string, labels: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', labels }, status: { phase: 'Running' } }) as any;

interface Kind {
  kind: string;
  name: string;
  kept: Kept;
  children: Record<string, Record<string, KubeObject>>;
  policies: string[];
}

const kinds: Kind[] = [
  {
    kind: 'EtcdCluster',
    name: 'e',
    kept: (request, response, settings, now) =>
      withMemberPolicy(request, response, settings ?? {}, servicesSelectOwn(request), now),
    children: {
      'Pod.v1': {
        'e-0': pod('e-0', { 'app.kubernetes.io/name': 'etcd', etcd_cluster: 'e' }),
        'e-1': pod('e-1', { 'app.kubernetes.io/name': 'etcd', etcd_cluster: 'e' }),
        'e-restore-check': pod('e-restore-check', { 'app.kubernetes.io/component': 'restore-check' }),
      },
    },
    policies: ['e-members', 'e-restore-check'],
  },
  {
    kind: 'PodSet',
    name: 'web',
    kept: podsetKept,
    children: { 'Pod.v1': { 'web-0': pod('web-0', { 'app.kubernetes.io/name': 'podset' }) } },
    policies: [podsetPolicy('web')],
  },
  {
    kind: 'Memcached',
    name: 'mc',
    kept: memcachedKept,
    children: {
      'Deployment.apps/v1': {
        mc: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'mc', namespace: 'ns' },
          spec: { replicas: 2 },
          status: { replicas: 2, readyReplicas: 2 },
        } as any,
      },
    },
    policies: [memcachedPolicy('mc')],
  },
];

const cm = (name: string, extra: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, ...extra }) as any;

/** Each answer class, as a stand-in sync gives it, and the Ready reason that says it. */
const classes: Array<[string, string, () => CompositeSyncResponse]> = [
  [
    'a PermanentError',
    'ClusterDomainNotAllowed',
    () => {
      throw new PermanentError('ClusterDomainNotAllowed', 'spec.pod.clusterDomain is not allowed');
    },
  ],
  [
    'a TemporaryError',
    'Unreachable',
    () => {
      throw new TemporaryError('Unreachable', 'down for now', { retryAfterSeconds: 300 });
    },
  ],
  [
    'a child outside the namespace',
    'ChildOutsideNamespace',
    () => ({ status: {}, children: [{ ...cm('x'), metadata: { name: 'x', namespace: 'other' } } as any] }),
  ],
  [
    'an answer over its budget',
    'AnswerTooLarge',
    () => ({ status: {}, children: [cm('x', { data: { a: 'x'.repeat(8000) } })] }),
  ],
  [
    'a child over its annotations with its last-applied copy',
    'ChildTooLarge',
    () => ({
      status: {},
      children: [
        { ...cm('x'), metadata: { name: 'x', namespace: 'ns', annotations: { a: 'x'.repeat(200_000) } } } as any,
      ],
    }),
  ],
  ['a status over its budget', 'StatusTooLarge', () => ({ status: { big: 'x'.repeat(300_000) }, children: [] })],
];

function standIn(k: Kind, answer: () => CompositeSyncResponse, maxBytes?: number) {
  return defineComposite({
    name: `stand-in-${k.kind}`,
    resource: { ...podsetResource, kind: k.kind, plural: 'standins', singular: 'standin' },
    spec: specParser(Type.Object({})),
    childResources: [],
    ...(maxBytes ? { answerBudget: { estimate: () => ({ bytes: 0, what: '' }), advice: '', maxBytes } } : {}),
    kept: k.kept,
    sync: answer,
    finalize: () => {
      throw new TemporaryError('Unreachable', 'down for now');
    },
  });
}

const requestOf = (k: Kind): CompositeSyncRequest =>
  ({
    controller: {},
    parent: {
      apiVersion: 'x/v1',
      kind: k.kind,
      metadata: { name: k.name, namespace: 'ns', uid: `uid-${k.name}`, generation: 1 },
      spec: {},
      status: { observedGeneration: 1 },
    },
    children: k.children,
    related: {},
  }) as any;

for (const k of kinds)
  t.test(`${k.kind}: every answer that keeps its running pods answers their NetworkPolicy`, async (t) => {
    for (const [what, reason, answer] of classes) {
      const def = standIn(k, answer, reason === 'AnswerTooLarge' ? 4000 : undefined);
      const res = await runHook(def, 'sync', requestOf(k), { now: FIXED_NOW });
      const status = res.status as any;
      t.match(
        status.conditions.find((c: any) => c.type === 'Ready'),
        { status: 'False', reason },
        `${what}: said (${reason})`,
      );
      t.same(
        res.children
          .filter((c) => c.kind === 'NetworkPolicy')
          .map((c) => c.metadata.name)
          .sort(),
        [...k.policies].sort(),
        `${what}: the pods' policy answered`,
      );
      t.same(
        res.children.filter((c) => c.kind !== 'NetworkPolicy').map((c) => c.metadata.name),
        Object.values(k.children).flatMap((m) => Object.keys(m)),
        `${what}: every observed child kept, nothing else made`,
      );
      const said = status.conditions.find((c: any) => c.type === 'NetworkPolicyCreated');
      t.match(said, { status: 'False', reason: 'CreatingNetworkPolicy' }, `${what}: the missing policy said`);
      for (const name of k.policies) t.match(said?.message, name, `${what}: ${name} named`);
      t.ok(res.resyncAfterSeconds !== undefined && res.resyncAfterSeconds <= 60, `${what}: looked at again`);
    }
  });

t.test('the policy observed: answered as it is, and nothing said of it', async (t) => {
  const k = kinds[1]!;
  const answered = podsetKept(requestOf(k), { status: {}, children: [pod('web-0', {})] }, undefined, FIXED_NOW);
  const policy = answered.children.find((c) => c.kind === 'NetworkPolicy')!;
  const request = requestOf(k);
  request.children = {
    ...request.children,
    'NetworkPolicy.networking.k8s.io/v1': { [policy.metadata.name!]: policy as ObservedObject },
  };
  (request.parent as any).status = {
    observedGeneration: 1,
    conditions: [
      {
        type: 'NetworkPolicyCreated',
        status: 'False',
        reason: 'CreatingNetworkPolicy',
        message: 'waiting',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
  };
  const res = await runHook(standIn(k, classes[0]![2]), 'sync', request, { now: FIXED_NOW });
  t.same(
    res.children.filter((c) => c.kind === 'NetworkPolicy'),
    [policy],
  );
  t.notOk(
    (res.status as any).conditions.find((c: any) => c.type === 'NetworkPolicyCreated'),
    'no NetworkPolicyCreated once it exists',
  );
});

t.test('a finalize that fails makes no policy', async (t) => {
  for (const k of kinds) {
    const res = await runHook(standIn(k, classes[0]![2]), 'finalize', requestOf(k), { now: FIXED_NOW });
    t.same(
      res.children.filter((c) => c.kind === 'NetworkPolicy'),
      [],
      `${k.kind}: nothing made while deleted`,
    );
    t.equal(res.finalized, false, `${k.kind}: not released`);
  }
});
