// Attacks on the framework (lib/operator.ts defineComposite, lib/app.ts routes, clients, settings and the deadline,
// lib/errors.ts rendering): every observed child and the status kept on doubt, nothing done for a stranger,
// the same answer for the same observed state, and hostile but valid JSON answered, never a 500 or a polluted
// prototype.
import t from 'tap';
import { failingClient, testApp as buildApp } from '../fixtures/app.js';
import { DEFAULT_POLICY } from '../../hooks/podbuggertool/match.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import type { AwsApi } from '../../hooks/s3/api.js';
import type { EtcdClient } from '../../hooks/etcdcommon/etcd.js';
import type { KubeApi } from '../../lib/kube.js';
import {
  asObserved,
  debugInjectorRequest,
  debugToolRequest,
  etcdClusterRequest,
  example,
  FIXED_NOW,
  objectMap,
} from '../fixtures/requests.js';
import { memberPod } from '../../hooks/etcdcluster/members.js';
import type { ParentObject } from '../../lib/metacontroller.js';
import { defineComposite, runHook, silentLog } from '../../lib/operator.js';
import { PermanentError, TemporaryError } from '../../lib/errors.js';
import { specParser } from '../../lib/spec.js';
import { Type } from '@sinclair/typebox';
import { buildApp as rawBuildApp } from '../../lib/app.js';
import { resource as podsetResource } from '../../hooks/podset/schema.js';

const TOKEN = 'attack-framework-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const s3Request = () => ({
  controller: {},
  parent: {
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name: 'bucket', namespace: 'default', uid: 'u-s3', generation: 1 },
    spec: { bucketName: 'metaops-attack-bucket', deletionPolicy: 'Delete', forceDelete: true },
  },
  children: { 'Secret.v1': {} },
  related: {},
});

const toolRequest = debugToolRequest;
const podRequest = debugInjectorRequest;
/** The server's debug policy with the author check off: these tests are about the deadline, not the author. */
const NO_AUTHOR_CHECK = { ...DEFAULT_POLICY, authorCheck: 'off' as const };

const etcdRequest = etcdClusterRequest;

/** An EtcdCluster with three running member pods: the hook must ask etcd about them. */
function etcdWithPods() {
  const req = etcdRequest();
  const parent = req.parent as unknown as ParentObject;
  const spec = { repository: 'quay.io/coreos/etcd', paused: false, size: 3, version: '3.5.21' } as never;
  const pods = [0, 1, 2].map((i) =>
    asObserved(memberPod({ parent, spec, name: `example-${i}`, initialCluster: '', state: 'existing' }), {
      phase: 'Running',
    }),
  );
  return { ...req, children: { ...req.children, ...objectMap(pods) } };
}

t.test('deadline: an S3 client factory slower than the deadline still hands the hook an aborted signal', async (t) => {
  // The route answers 429 at the deadline and aborts the call's signal, so that the AWS calls still running stop.
  // CallContext makes its AbortController only when the hook first reads `signal`; S3's sync reads it after
  // `await hook.clients.aws()`. A factory that resolves after the deadline (a lazily loaded SDK on a cold start)
  // then gets a fresh, never-aborted signal: the hook creates the bucket after the caller was told 429.
  const aws = new FakeAws();
  const signals: Array<AbortSignal | undefined> = [];
  // As the SDK client does with its abortSignal: a call made with an aborted signal fails before it is sent.
  aws.withDeadline = ((_ms: number, signal?: AbortSignal) => {
    signals.push(signal);
    return new Proxy(aws, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          signal?.throwIfAborted();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }) as unknown as FakeAws['withDeadline'];
  const app = buildApp({
    auth: { bearer: TOKEN },
    hookDeadlineMs: 100,
    services: { now: () => FIXED_NOW },
    clients: {
      s3: {
        aws: async () => {
          await sleep(250);
          return aws as AwsApi;
        },
      },
    },
  });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/hooks/s3/sync', headers: AUTH, payload: s3Request() });
  t.equal(res.statusCode, 429, 'the deadline answers 429');
  t.equal(res.headers['retry-after'], '5', 'with Retry-After');
  const callsAt429 = aws.calls.length;
  await sleep(400);
  t.equal(signals.length, 1, 'the hook went on and asked for its AWS client');
  t.equal(signals[0]?.aborted, true, 'the signal the hook hands to AWS is aborted: the deadline has passed');
  t.same(aws.calls.slice(callsAt429), [], 'nothing is created in AWS after the caller was answered 429');
});

t.test('deadline (control): EtcdCluster reads its signal before it waits, and that signal is aborted', async (t) => {
  const signals: AbortSignal[] = [];
  const hang = () => new Promise<never>(() => {});
  const etcd: EtcdClient = {
    memberList: hang,
    memberAdd: hang,
    memberRemove: hang,
    memberPromote: hang,
    health: hang,
    withSignal(signal) {
      signals.push(signal);
      return this;
    },
  };
  const app = buildApp({
    auth: { bearer: TOKEN },
    hookDeadlineMs: 100,
    services: { now: () => FIXED_NOW },
    clients: { etcdcluster: { etcd: () => etcd } },
  });
  t.teardown(() => app.close());
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/etcdcluster/sync',
    headers: AUTH,
    payload: etcdWithPods(),
  });
  t.equal(res.statusCode, 429);
  t.equal(signals.length, 1);
  t.equal(signals[0]!.aborted, true, 'aborted at the deadline');
});

/** An authenticated PodBuggerTool injection through the app, with this Kubernetes API and hook deadline. */
async function toolSyncWithDeadline(t: { teardown(fn: () => unknown): void }, kube: KubeApi, deadlineMs: number) {
  const app = buildApp({
    auth: { bearer: TOKEN },
    hookDeadlineMs: deadlineMs,
    services: { now: () => FIXED_NOW, kube: () => kube },
    settings: { podbuggertool: { policy: NO_AUTHOR_CHECK }, 'podbuggertool-injector': { policy: NO_AUTHOR_CHECK } },
  });
  t.teardown(() => app.close());
  return app.inject({
    method: 'POST',
    url: '/hooks/podbuggertool-injector/sync',
    headers: AUTH,
    payload: podRequest(),
  });
}

t.test('deadline: PodBuggerTool does not PATCH pods after the caller was answered 429', async (t) => {
  // METAOPS_HOOK_DEADLINE_MS may be as low as 100 ms (lib/config.ts MIN_HOOK_DEADLINE_MS), while the tool's work
  // budget is 3.5 s: were the signal not checked before each call, the route would give up while the hook goes on and patches.
  const patched: string[] = [];
  const seen: Record<string, unknown> = {
    tool: { ...toolRequest().parent },
    victim: podRequest().object,
  };
  const kube: KubeApi = {
    get: async (_a, _r, _ns, name) => {
      await sleep(150);
      return structuredClone(seen[name]) as never;
    },
    addEphemeralContainers: async (_ns, pod) => {
      patched.push(pod);
    },
    createEvent: async () => 'created',
  };
  const res = await toolSyncWithDeadline(t, kube, 100);
  t.equal(res.statusCode, 429, 'the deadline answers 429');
  const before = patched.length;
  await sleep(600);
  t.same(patched.slice(before), [], 'no pod is patched after the 429');
});

t.test("deadline: PodBuggerTool's Kubernetes call in flight at the deadline is abandoned, not finished", async (t) => {
  // Checking the signal between calls is not enough: a call already sent at the deadline would run to its own
  // 3 s limit. The hook makes its calls through the client's withSignal view, which abandons them at the abort.
  const abandoned: string[] = [];
  const hang = () => new Promise<never>(() => undefined);
  const kube: KubeApi = {
    get: hang,
    addEphemeralContainers: hang,
    withSignal: (signal) => ({
      get: (_a, _r, _ns, name) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            abandoned.push(name);
            reject(signal.reason as Error);
          }),
        ),
      addEphemeralContainers: hang,
    }),
  };
  const res = await toolSyncWithDeadline(t, kube, 100);
  t.equal(res.statusCode, 429);
  await sleep(50);
  t.same(
    abandoned.sort(),
    [toolRequest().parent.metadata.name, podRequest().object.metadata.name].sort(),
    'the re-reads of the pod and the tool, in flight, abandoned at the deadline',
  );
});

/** An etcd client that answers: a healthy three-member cluster. */
function answeringEtcd(): EtcdClient {
  const members = [0, 1, 2].map((i) => ({
    id: String(1000 + i),
    name: `example-${i}`,
    peerURLs: [`http://example-${i}.example.default.svc:2380`],
    clientURLs: [`http://example-${i}.example.default.svc:2379`],
    isLearner: false,
  }));
  return {
    memberList: async () => ({ members, clusterVersion: '3.5.0' }),
    memberAdd: async () => members[0]!,
    memberRemove: async () => undefined,
    memberPromote: async () => undefined,
    health: async () => ({ healthy: true, version: '3.5.21', leader: '1000' }),
  };
}

t.test(
  'Events never change the answer: a malformed observed pod is not a 500 for an authenticated caller',
  async (t) => {
    // eventsOf (EtcdCluster's upgradeEvents) is called with the request in lib/operator.ts call(), before the hook
    // runs and outside every try: it reads each observed pod's containers. A terminating pod (which the hook
    // itself only counts by name) whose spec.containers holds a null makes the whole call a 500, only when Events
    // are recorded (an authenticated caller), while the hook itself answers the same request.
    const req = etcdWithPods() as any;
    const pods = req.children['Pod.v1'];
    const first = Object.keys(pods)[0]!;
    // A member pod on its way out (the hook only counts it by name) whose containers list holds a null.
    pods[first].metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    pods[first].spec.containers = [null];
    const direct = await runHook(
      (await import('../../hooks/etcdcluster/index.js')).etcdcluster,
      'sync',
      structuredClone(req),
      { now: FIXED_NOW, clients: { etcd: () => answeringEtcd() } },
    ).then(
      (r) => r,
      (e: unknown) => e,
    );
    t.notOk(direct instanceof Error, `the hook alone answers (${direct instanceof Error ? direct.message : 'ok'})`);
    const written: unknown[] = [];
    const app = buildApp({
      auth: { bearer: TOKEN },
      services: {
        now: () => FIXED_NOW,
        events: () => ({ record: async (_p: unknown, e: unknown[]) => void written.push(...e) }),
      },
      clients: { etcdcluster: { etcd: () => answeringEtcd() } },
    });
    t.teardown(() => app.close());
    const res = await app.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', headers: AUTH, payload: req });
    t.equal(res.statusCode, 200, 'the authenticated call answers too, not 500');
    if (res.statusCode === 200 && !(direct instanceof Error)) {
      // The same children as the hook alone gives (a terminating pod is only counted: it is being deleted).
      const podNames = (children: any[]) =>
        children
          .filter((c) => c.kind === 'Pod')
          .map((c) => c.metadata.name)
          .sort();
      t.same(podNames(res.json().children), podNames((direct as any).children), 'the same pods as without Events');
      t.same(res.json().status, (direct as any).status, 'and the same status');
    }
  },
);

t.test(
  'a child whose namespace is an object with an own `toString` key: the keep-every-child answer is not a 500',
  async (t) => {
    // Valid JSON: ObservedObject checks only apiVersion, kind and metadata.name. compareObjects (lib/objects.ts)
    // compares namespaces with `<`, which converts an object through its `toString`; `{"toString": 1}` cannot be
    // converted, and the sort that allObserved does for the InvalidSpec answer (and the failure answer) throws.
    const req = example('memcached-sync') as any;
    req.parent.spec = { size: 'many' };
    const odd = (name: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: { toString: 1 } },
    });
    req.children = { ...(req.children ?? {}), 'ConfigMap.v1': { a: odd('a'), b: odd('b') } };
    const app = buildApp({ services: { now: () => FIXED_NOW } });
    t.teardown(() => app.close());
    const res = await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload: req });
    t.equal(res.statusCode, 200, 'InvalidSpec answered');
    if (res.statusCode === 200) {
      const names = (res.json().children as any[]).map((c) => c.metadata.name);
      t.ok(names.includes('a') && names.includes('b'), 'both odd children kept');
    }
    const podset = example('podset-sync') as any;
    const pod = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: { toString: 1 }, labels: {} },
    });
    podset.children = { ...(podset.children ?? {}), 'Pod.v1': { p1: pod('p1'), p2: pod('p2') } };
    const res2 = await app.inject({ method: 'POST', url: '/hooks/podset/sync', payload: podset });
    t.not(res2.statusCode, 500, `podset with the same children: ${res2.statusCode}`);
  },
);

t.test('EtcdCluster: a live member pod whose containers list holds a null is an answer, not a 500', async (t) => {
  // memberImage (hooks/etcdcluster/members.ts) reads `c.name` of each container: a null one throws a TypeError,
  // which the framework (rightly) does not render, so the parent can never be synced again until the pod changes.
  const req = etcdWithPods() as any;
  const pods = req.children['Pod.v1'];
  pods[Object.keys(pods)[0]!].spec.containers = [null];
  const app = buildApp({
    auth: { bearer: TOKEN },
    services: { now: () => FIXED_NOW },
    clients: { etcdcluster: { etcd: () => answeringEtcd() } },
  });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', headers: AUTH, payload: req });
  t.not(res.statusCode, 500, `answered ${res.statusCode}`);
});

const hostileStatuses: Array<[string, string]> = [
  ['null', 'null'],
  ['conditions a string', '{"conditions":"Ready"}'],
  [
    'conditions of odd types',
    '{"conditions":[null,1,"s",{"type":{}},{"type":"Ready","status":5,"lastTransitionTime":{}}]}',
  ],
  ['observedGeneration a string', '{"observedGeneration":"seven"}'],
  ['__proto__ key', '{"__proto__":{"polluted":"yes","observedGeneration":99},"kept":"yes"}'],
  ['constructor key', '{"constructor":{"prototype":{"polluted":"yes"}},"kept":"yes"}'],
  ['deep', `{"deep":${'['.repeat(900)}${']'.repeat(900)}}`],
];

t.test(
  'hostile status on an invalid spec, every operator: 200, every child kept, the status kept, no pollution',
  async (t) => {
    const calls: string[] = [];
    const failing = (what: string) => failingClient(calls, what);
    const app = buildApp({
      auth: { bearer: TOKEN },
      services: { now: () => FIXED_NOW, kube: () => failing('kube') },
      clients: { etcdcluster: { etcd: () => failing('etcd') }, s3: { aws: async () => failing('aws') } },
    });
    t.teardown(() => app.close());
    const bodies: Array<[string, any, any]> = [
      ['memcached', example('memcached-sync'), { size: 'many' }],
      ['podset', example('podset-sync'), { replicas: 'many' }],
      ['mysqlcluster', example('mysqlcluster-sync'), { version: { major: 8 } }],
      ['etcdcluster', etcdWithPods(), { size: 'many' }],
      ['s3', s3Request(), { bucketName: 7 }],
      ['podbuggertool', toolRequest(), { image: 7 }],
    ];
    const keep = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep-me', namespace: 'default' } };
    for (const [kind, base, badSpec] of bodies) {
      for (const [label, statusText] of hostileStatuses) {
        const req = structuredClone(base);
        req.parent.spec = badSpec;
        req.children = { ...(req.children ?? {}), 'ConfigMap.v1': { 'keep-me': keep } };
        const text =
          JSON.stringify(req)
            .replace(/}$/, '')
            .replace(/"parent":\{/, `"parent":{"status":${statusText},`) + '}';
        const res = await app.inject({
          method: 'POST',
          url: `/hooks/${kind}/sync`,
          headers: { ...AUTH, 'content-type': 'application/json' },
          payload: text,
        });
        t.equal(res.statusCode, 200, `${kind}, status ${label}: 200`);
        if (res.statusCode !== 200) continue;
        const out = JSON.parse(res.body);
        const names = (out.children as any[]).map((c) => `${c.kind}/${c.metadata.name}`);
        const observedNames = Object.values(req.children as Record<string, Record<string, any>>).flatMap((g) =>
          Object.values(g).map((o) => `${o.kind}/${o.metadata.name}`),
        );
        for (const n of observedNames) t.ok(names.includes(n), `${kind}, status ${label}: ${n} kept`);
        if (statusText.includes('"kept"')) t.equal(out.status.kept, 'yes', `${kind}, status ${label}: status kept`);
        if (label === '__proto__ key')
          t.not(out.status.observedGeneration, 99, `${kind}: observedGeneration is not read through an own __proto__`);
        t.equal(out.status.conditions?.[0]?.reason, 'InvalidSpec', `${kind}, status ${label}: InvalidSpec`);
      }
    }
    // S3's refusal reads its own IAM user first (hooks/s3/sync.ts refused: a grant the rules no longer give is
    // withdrawn while the spec is refused); here AWS fails, which the InvalidSpec message says.
    t.same(
      calls.filter((c) => c !== 'kube.createEvent' && c !== 'aws.getUser'),
      [],
      'an invalid spec calls no dependency but S3 reading its IAM user (only the InvalidSpec Events of an authenticated caller are written)',
    );
    t.equal(({} as any).polluted, undefined, 'Object.prototype untouched');
  },
);

t.test('a dependency failure with a hostile status, through the framework: children and status kept', async (t) => {
  const aws = new FakeAws();
  const down = async () => {
    throw Object.assign(new Error('SlowDown'), { name: 'SlowDown' });
  };
  aws.findBucket = down;
  aws.getUser = down;
  const app = buildApp({
    auth: { bearer: TOKEN },
    services: { now: () => FIXED_NOW },
    clients: { s3: { aws: async () => aws as AwsApi } },
  });
  t.teardown(() => app.close());
  for (const [label, statusText] of hostileStatuses) {
    for (const hook of ['sync', 'finalize']) {
      const req = s3Request() as any;
      req.children = {
        'Secret.v1': {
          'bucket-credentials': {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'bucket-credentials', namespace: 'default' },
            data: { __proto__x: 'eA==' },
          },
        },
        'ConfigMap.v1': { constructor: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'constructor' } } },
      };
      const text = JSON.stringify(req).replace(/"parent":\{/, `"parent":{"status":${statusText},`);
      const res = await app.inject({
        method: 'POST',
        url: `/hooks/s3/${hook}`,
        headers: { ...AUTH, 'content-type': 'application/json' },
        payload: text,
      });
      t.equal(res.statusCode, 200, `s3 ${hook}, status ${label}: 200`);
      if (res.statusCode !== 200) continue;
      const out = JSON.parse(res.body);
      const names = (out.children as any[]).map((c) => c.metadata.name).sort();
      t.same(names, ['bucket-credentials', 'constructor'], `s3 ${hook}, status ${label}: every child kept`);
      if (statusText.includes('"kept"')) t.equal(out.status.kept, 'yes', `s3 ${hook}, status ${label}: status kept`);
      if (hook === 'finalize') t.equal(out.finalized, false, 'a failed finalize does not release the parent');
      t.ok(out.resyncAfterSeconds > 0, 'a temporary failure comes back');
    }
  }
  t.same(aws.calls, [], 'nothing changed in AWS');
});

t.test('same observed state, same answer: twice, and with or without Events recorded', async (t) => {
  const written: unknown[] = [];
  const withEvents = buildApp({
    auth: { bearer: TOKEN },
    services: {
      now: () => FIXED_NOW,
      randomSecret: () => 'fixed-secret',
      events: () => ({ record: async (_p: unknown, e: unknown[]) => void written.push(...e) }),
    },
  });
  // A new MySQL cluster's passwords are random by design: the clock and the secrets are fixed here.
  const withoutEvents = buildApp({ services: { now: () => FIXED_NOW, randomSecret: () => 'fixed-secret' } });
  t.teardown(() => withEvents.close());
  t.teardown(() => withoutEvents.close());
  const backup = {
    controller: {},
    parent: {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdBackup',
      metadata: { name: 'b', namespace: 'default', uid: 'u-b', generation: 2 },
      spec: { etcdEndpoints: ['http://example-client:2379'], s3: { path: 'bucket/x', awsSecret: 'aws' } },
      status: { constructor: 'x', __proto__: null },
    },
    children: { 'Job.batch/v1': {}, 'CronJob.batch/v1': {} },
    related: {},
  };
  for (const [kind, body] of [
    ['memcached', example('memcached-sync')],
    ['podset', example('podset-sync')],
    ['mysqlcluster', example('mysqlcluster-sync')],
    ['etcdbackup', backup],
  ] as Array<[string, object]>) {
    const a = await withEvents.inject({ method: 'POST', url: `/hooks/${kind}/sync`, headers: AUTH, payload: body });
    const b = await withEvents.inject({ method: 'POST', url: `/hooks/${kind}/sync`, headers: AUTH, payload: body });
    const c = await withoutEvents.inject({ method: 'POST', url: `/hooks/${kind}/sync`, payload: body });
    t.equal(a.statusCode, 200, `${kind}: 200`);
    t.ok(a.body === b.body, `${kind}: the same answer twice`);
    t.ok(a.body === c.body, `${kind}: the same answer whether Events are recorded or not`);
    t.equal(a.headers['etag'], c.headers['etag'], `${kind}: the same ETag`);
  }
});

t.test('a TemporaryError or PermanentError with hostile options, in a definition of its own', async (t) => {
  // A toy operator through defineComposite: a failure whose `status` option carries `__proto__` and whose
  // conditions list is empty must still keep every child, and never pollute.
  const spec = specParser(Type.Object({ fail: Type.String() }));
  const toy = defineComposite({
    name: 'toy',
    resource: { ...podsetResource, kind: 'Toy', plural: 'toys', singular: 'toy' },
    spec,
    childResources: [],
    sync: ({ spec: s }) => {
      const status = JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}');
      if (s.fail === 'temporary')
        throw new TemporaryError('Down', 'down', { status, conditions: [], retryAfterSeconds: 7 });
      if (s.fail === 'permanent') throw new PermanentError('Bad', 'bad', { status });
      if (s.fail === 'async') return Promise.reject(new TemporaryError('Down', 'later'));
      return { status: {}, children: [] };
    },
  });
  const app = rawBuildApp({ operators: [toy], services: { now: () => FIXED_NOW } });
  t.teardown(() => app.close());
  for (const fail of ['temporary', 'permanent', 'async']) {
    const req = {
      controller: {},
      parent: {
        apiVersion: 'x/v1',
        kind: 'Toy',
        metadata: { name: 't', generation: 3 },
        spec: { fail },
        status: { kept: 'yes' },
      },
      children: { 'ConfigMap.v1': { a: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } } } },
    };
    const res = await app.inject({ method: 'POST', url: '/hooks/toy/sync', payload: req });
    t.equal(res.statusCode, 200, `${fail}: 200`);
    const out = res.json();
    t.same(
      out.children.map((c: any) => c.metadata.name),
      ['a'],
      `${fail}: the child kept`,
    );
    t.equal(out.status.kept, 'yes', `${fail}: the status kept`);
    t.notOk(Object.hasOwn(out.status, 'observedGeneration'), `${fail}: observedGeneration not stamped on a failure`);
  }
  t.equal(({} as any).polluted, undefined, 'Object.prototype untouched');
});

t.test('an eventsOf that throws on input it did not expect changes nothing in the answer', async (t) => {
  // Events never change the answer: the operator's reader of more Events runs before the hook, on the request.
  const spec = specParser(Type.Object({}));
  const written: unknown[] = [];
  const warned: string[] = [];
  const toy = defineComposite({
    name: 'toy',
    resource: { ...podsetResource, kind: 'Toy', plural: 'toys', singular: 'toy' },
    spec,
    childResources: [],
    events: { action: 'Reconcile', warnings: new Set(['Down']) },
    eventsOf: () => {
      throw new TypeError("Cannot read properties of null (reading 'name')");
    },
    sync: ({ observed }) => ({ status: { seen: Object.keys(observed?.['ConfigMap.v1'] ?? {}).length }, children: [] }),
  });
  const req = {
    controller: {},
    parent: { apiVersion: 'x/v1', kind: 'Toy', metadata: { name: 't', generation: 1 }, spec: {} },
    children: { 'ConfigMap.v1': { a: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } } } },
  } as never;
  const log = { ...silentLog, warn: (_o: unknown, msg: string) => void warned.push(msg) } as never;
  const withEvents = await runHook(toy, 'sync', structuredClone(req), {
    now: FIXED_NOW,
    log,
    services: { events: () => ({ record: async (_p, e) => void written.push(...e) }) },
  });
  const without = await runHook(toy, 'sync', structuredClone(req), { now: FIXED_NOW });
  t.same(withEvents, without, 'the same answer as without Events');
  t.same(withEvents.status, { seen: 1, observedGeneration: 1 });
  t.match(warned, [/events: the request could not be read/], 'the failure is logged');
});

t.test(
  'PodBuggerTool stops where the deadline finds it: before the pod is read, and before it is patched',
  async (t) => {
    const { podbuggertoolInjector } = await import('../../hooks/podbuggertool/index.js');
    // The deadline passes while the pod and the tool are read (side by side): nothing is patched after it.
    for (const abortAt of ['tool', 'victim']) {
      const deadline = new AbortController();
      const read: string[] = [];
      const patched: string[] = [];
      const seen: Record<string, unknown> = {
        tool: toolRequest().parent,
        victim: podRequest().object,
      };
      const kube: KubeApi = {
        get: async (_a, _r, _ns, name) => {
          read.push(name);
          if (name === abortAt) deadline.abort(new Error('deadline'));
          return structuredClone(seen[name]) as never;
        },
        addEphemeralContainers: async (_ns, pod) => void patched.push(pod),
        createEvent: async () => 'created',
      };
      const res = await runHook(podbuggertoolInjector, 'sync', podRequest() as never, {
        now: FIXED_NOW,
        services: { kube: () => kube },
        settings: { policy: NO_AUTHOR_CHECK, workBudgetMs: 60_000 },
        signal: deadline.signal,
      });
      t.same(read.sort(), ['tool', 'victim'], `${abortAt}: the two reads, and nothing after the deadline`);
      t.same(patched, [], `${abortAt}: nothing patched`);
      t.same(res, { attachments: [], resyncAfterSeconds: 1 }, `${abortAt}: left for the next call`);
    }
    // The control: without the deadline the same pod is read and patched.
    const patched: string[] = [];
    const seen: Record<string, unknown> = {
      tool: toolRequest().parent,
      victim: podRequest().object,
    };
    await runHook(podbuggertoolInjector, 'sync', podRequest() as never, {
      now: FIXED_NOW,
      services: {
        kube: () => ({
          get: async (_a, _r, _ns, name) => structuredClone(seen[name]) as never,
          addEphemeralContainers: async (_ns, pod) => void patched.push(pod),
        }),
      },
      settings: { policy: NO_AUTHOR_CHECK, workBudgetMs: 60_000 },
    });
    t.same(patched, ['victim']);
  },
);
