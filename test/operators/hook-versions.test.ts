// Metacontroller's hook version v2 keys observed and related objects by `namespace/name` instead of `name`
// (v4.17: `spec.hooks.sync.version: v2`). Every hook must answer a v2-keyed request exactly as the v1-keyed one.
import t, { type Test } from 'tap';
import { operators as hooks } from '../../main/operators.js';
import { testApp as buildApp } from '../fixtures/app.js';
import { dependenciesDown } from '../fixtures/dependencies-down.js';
import type { HookDefinition } from '../../lib/hook.js';
import { firstRequest, observedAfter } from '../fixtures/generated-request.js';
import { example } from '../fixtures/requests.js';
import { greeting } from '../toy/index.js';

const deps = {
  ...dependenciesDown,
  services: { ...dependenciesDown.services, randomSecret: () => 'not-random-in-this-test' },
};

type ObjectMap = Record<string, Record<string, any>>;

/** The same map keyed the v2 way: `namespace/name` (cluster-scoped objects: `/name`). */
function v2(map: ObjectMap | undefined): ObjectMap | undefined {
  if (!map) return map;
  const out: ObjectMap = {};
  for (const [group, objects] of Object.entries(map)) {
    out[group] = {};
    for (const obj of Object.values(objects)) out[group]![`${obj.metadata.namespace ?? ''}/${obj.metadata.name}`] = obj;
  }
  return out;
}

const pod = (name: string, labels: Record<string, string>, ns = 'default') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, uid: `u-${name}`, labels },
  spec: { containers: [{ name: 'c', image: 'busybox' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});

/** A request per hook route, with observed children and related objects so that lookups by name are exercised. */
function requests(): Array<[string, any]> {
  const etcdPods = Object.fromEntries(
    [0, 1, 2].map((i) => [`example-${i}`, pod(`example-${i}`, { etcd_cluster: 'example', app: 'etcd' })]),
  );
  const etcdCluster = {
    controller: {},
    parent: {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdCluster',
      metadata: { name: 'example', namespace: 'default', uid: 'u-e', generation: 1 },
      spec: { size: 3, version: '3.5.21' },
      status: { phase: 'Running' },
    },
    children: { 'Pod.v1': etcdPods, 'Service.v1': {}, 'PersistentVolumeClaim.v1': {} },
    related: { 'EtcdRestore.etcd.database.coreos.com/v1beta2': {} },
  };
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'bucket-credentials', namespace: 'default', uid: 'u-s' },
    data: { BUCKET_NAME: 'Yg==' },
  };
  const s3 = {
    controller: {},
    parent: {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name: 'bucket', namespace: 'default', uid: 'u-b', generation: 1 },
      spec: { bucketName: 'metaops-versions' },
    },
    children: { 'Secret.v1': { 'bucket-credentials': secret } },
    related: {},
  };
  const tool = {
    apiVersion: 'debug.metaops.dev/v1alpha1',
    kind: 'PodBuggerTool',
    metadata: { name: 'tool', namespace: 'default', uid: 'u-t' },
    spec: { label: 'app=web', image: 'busybox:1.36' },
  };
  const target = pod('web-1', { app: 'web' });
  const cluster = { ...etcdCluster.parent, status: { phase: 'Running', members: { ready: ['example-0'] } } };
  const backup = {
    controller: {},
    parent: {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdBackup',
      metadata: { name: 'nightly', namespace: 'default', uid: 'u-k', generation: 1 },
      spec: {
        clusterName: 'example',
        storageType: 'S3',
        backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2 },
        s3: { path: 'b/default/example', awsSecret: 'aws' },
      },
    },
    children: { 'CronJob.batch/v1': {}, 'Job.batch/v1': {} },
    related: { 'EtcdCluster.etcd.database.coreos.com/v1beta2': { example: cluster }, 'Secret.v1': {}, 'Pod.v1': {} },
  };
  const restore = {
    controller: {},
    parent: {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdRestore',
      metadata: { name: 'back', namespace: 'default', uid: 'u-r', generation: 1 },
      spec: {
        etcdCluster: { name: 'example' },
        backupStorageType: 'S3',
        s3: { path: 'b/default/example_v1', awsSecret: 'aws' },
      },
    },
    children: {},
    related: { 'EtcdCluster.etcd.database.coreos.com/v1beta2': { example: cluster } },
  };
  return [
    ['etcdbackup/sync', backup],
    ['etcdrestore/sync', restore],
    ['memcached/sync', example('memcached-sync')],
    ['podset/sync', example('podset-sync')],
    ['mysqlcluster/sync', example('mysqlcluster-sync')],
    ['etcdcluster/sync', etcdCluster],
    ['s3/sync', s3],
    ['podbuggertool/sync', { controller: {}, parent: tool, children: {} }],
    [
      'pod-network-policy/sync',
      {
        controller: {},
        object: {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'NetworkPolicy',
          metadata: { name: 'web-podset', namespace: 'default', uid: 'u-np', generation: 1 },
          spec: { podSelector: { matchLabels: { 'app.kubernetes.io/instance': 'web' } }, policyTypes: ['Egress'] },
        },
        attachments: {},
        related: {
          'Pod.v1': {
            'web-0': {
              apiVersion: 'v1',
              kind: 'Pod',
              metadata: { name: 'web-0', namespace: 'default', labels: { 'app.kubernetes.io/instance': 'web' } },
            },
          },
        },
      },
    ],
    [
      'podbuggertool-injector/sync',
      {
        controller: {},
        object: {
          ...target,
          metadata: { ...target.metadata, annotations: { 'debug.metaops.dev/failures': '{"debug-gone":"Invalid"}' } },
        },
        attachments: {},
        related: { 'PodBuggerTool.debug.metaops.dev/v1alpha1': { tool } },
      },
    ],
  ];
}

type App = ReturnType<typeof buildApp>;

/** Posts the request keyed both ways and asserts the same answer. */
async function sameUnderBothKeyings(t: Test, app: App, route: string, body: any) {
  const one = await app.inject({ method: 'POST', url: `/hooks/${route}`, payload: body });
  const keyed = { ...body };
  for (const field of ['children', 'related', 'attachments']) if (keyed[field]) keyed[field] = v2(keyed[field]);
  const two = await app.inject({ method: 'POST', url: `/hooks/${route}`, payload: keyed });
  t.equal(one.statusCode, 200, `${route} v1: ${one.body.slice(0, 200)}`);
  t.equal(two.statusCode, 200, `${route} v2`);
  t.same(two.json(), one.json(), `${route}: the same answer under v2 keys`);
}

/**
 * A request for a composite operator with no hand-written one: its first answer's children sent back as observed,
 * so that the second request has children to key both ways. How many it observes is returned.
 */
async function generated(app: App, definition: HookDefinition): Promise<[any, number]> {
  if (definition.type !== 'composite') throw new Error(`${definition.name}: a decorator needs a hand-written request`);
  const first = firstRequest(definition);
  const answer = await app.inject({ method: 'POST', url: `/hooks/${definition.name}/sync`, payload: first });
  const children = answer.statusCode === 200 ? (answer.json().children ?? []) : [];
  return [observedAfter(first, children), children.length];
}

t.test('every hook answers a v2-keyed request (namespace/name) exactly as the v1-keyed one', async (t) => {
  const app = buildApp({ ...deps, allowUnauthenticated: true, hookDeadlineMs: 3000 });
  t.teardown(() => app.close());
  const written = new Map(requests());
  for (const definition of hooks) {
    const route = `${definition.name}/sync`;
    const body = written.get(route) ?? (await generated(app, definition))[0];
    await sameUnderBothKeyings(t, app, route, body);
  }
  t.same(
    [...written.keys()].filter((r) => !hooks.some((h) => `${h.name}/sync` === r)),
    [],
    'every hand-written request is for a route the registry serves',
  );
});

t.test(
  'an operator added to the registry with no request written for it is still asked both ways, with children',
  async (t) => {
    const app = buildApp({
      ...deps,
      allowUnauthenticated: true,
      hookDeadlineMs: 3000,
      operators: [...hooks, greeting],
    });
    t.teardown(() => app.close());
    const [body, observed] = await generated(app, greeting);
    t.ok(observed > 0, `the generated request observes the children its first answer asked for (${observed})`);
    await sameUnderBothKeyings(t, app, 'greeting/sync', body);
  },
);
