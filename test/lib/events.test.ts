// Events (lib/events.ts): names and aggregation, the recorder against fakes of the Kubernetes API (one that
// fails included), and the etcd and S3 hooks through the server: the events a transition gives, once; none for an
// unauthenticated caller; the same answer whatever happens to the events.
import { etcdClusterId, etcdParent, upAs } from '../fixtures/etcd.js';
import t from 'tap';
import { EtcdError, type EtcdClient, type EtcdMember, type MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { memberPod, clusterOf, peerURL } from '../../hooks/etcdcluster/members.js';
import { AwsError, type AwsApi } from '../../hooks/s3/api.js';
import { testApp as buildApp } from '../fixtures/app.js';
import {
  conditionEvents,
  eventFor,
  eventName,
  EVENT_BUCKET_SECONDS,
  KubeEventRecorder,
  type EventSpec,
} from '../../lib/events.js';
import type { EventSeries, KubeApi, KubeEvent } from '../../lib/kube.js';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { STAND_IN_CLUSTER_ID } from '../fixtures/backup.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';

const TOKEN = 'events-test-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };

/** A Kubernetes API that keeps the events it is given, refuses a repeat with 409 as the API server does, and counts series PATCHes. */
class FakeKube implements KubeApi {
  readonly events = new Map<string, KubeEvent & { series?: EventSeries }>();
  readonly created: KubeEvent[] = [];
  readonly patches: Array<{ name: string; series: EventSeries }> = [];
  async get() {
    return undefined;
  }
  async addEphemeralContainers() {}
  async createEvent(event: KubeEvent): Promise<'created' | 'exists'> {
    if (this.events.has(`${event.namespace}/${event.name}`)) return 'exists';
    this.events.set(`${event.namespace}/${event.name}`, structuredClone(event));
    this.created.push(event);
    return 'created';
  }
  async patchEventSeries(namespace: string, name: string, series: EventSeries) {
    this.events.get(`${namespace}/${name}`)!.series = series;
    this.patches.push({ name, series });
  }
}

/** One that fails every write, asynchronously or at once. */
class BrokenKube extends FakeKube {
  constructor(private readonly how: 'reject' | 'throw' | 'hang') {
    super();
  }
  override createEvent(): Promise<'created' | 'exists'> {
    if (this.how === 'throw') throw new Error('boom: synchronous');
    if (this.how === 'hang') return new Promise(() => undefined);
    return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
  }
}

function logSink() {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
  return {
    lines,
    log: {
      info: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'info', obj, msg }),
      warn: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'warn', obj, msg }),
    },
  };
}

const parentOf = (kind: string, status?: Record<string, unknown>): ParentObject => {
  const p: ParentObject = {
    apiVersion: 'x.example/v1',
    kind,
    metadata: { name: 'thing', namespace: 'ns', uid: 'uid-thing', generation: 1 },
    spec: {},
  };
  if (status) p.status = status;
  return p;
};
const warning: EventSpec = {
  type: 'Warning',
  reason: 'EtcdCallFailed',
  action: 'Reconcile',
  note: 'Synced: add e-3 failed',
  subject: 'Synced',
};

t.test('event names: per resource, reason, subject and ten-minute bucket; the standard shape', async (t) => {
  const p = parentOf('EtcdCluster');
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  t.equal(
    eventName(p, warning, at(0)),
    eventName(p, warning, at(EVENT_BUCKET_SECONDS - 1)),
    'the same bucket: the same name',
  );
  t.not(eventName(p, warning, at(0)), eventName(p, warning, at(EVENT_BUCKET_SECONDS)), 'the next bucket: a new event');
  t.not(eventName(p, warning, at(0)), eventName(p, { ...warning, reason: 'QuorumLost' }, at(0)), 'another reason');
  t.not(eventName(p, warning, at(0)), eventName(p, { ...warning, subject: 'Other' }, at(0)), 'another subject');
  t.not(
    eventName(p, warning, at(0)),
    eventName({ ...p, metadata: { ...p.metadata, uid: 'other' } }, warning, at(0)),
    'another resource (uid)',
  );
  t.match(eventName(p, warning, at(0)), /^thing\.[0-9a-f]{16}$/);
  const e = eventFor(p, warning, at(0));
  t.same(e.regarding, {
    apiVersion: 'x.example/v1',
    kind: 'EtcdCluster',
    namespace: 'ns',
    name: 'thing',
    uid: 'uid-thing',
  });
  t.match(e, { namespace: 'ns', type: 'Warning', reason: 'EtcdCallFailed', action: 'Reconcile' });
});

t.test('a repeat in the same bucket is one event with a series; a log line names the resource', async (t) => {
  const kube = new FakeKube();
  const recorder = new KubeEventRecorder(() => kube);
  const { lines, log } = logSink();
  const p = parentOf('EtcdCluster');
  for (let i = 0; i < 3; i++) await recorder.record(p, [warning], new Date(FIXED_NOW.getTime() + i * 1000), log);
  t.equal(kube.created.length, 1, 'one event');
  t.same(
    kube.patches.map((x) => x.series.count),
    [2, 3],
    'then its series counts the repeats',
  );
  t.same([...kube.events.values()][0]!.series?.lastObservedTime, new Date(FIXED_NOW.getTime() + 2000));
  t.equal(
    lines.filter((l) => l.level === 'warn' && l.msg.startsWith('EtcdCluster ns/thing: EtcdCallFailed')).length,
    3,
    'each occurrence logged, naming the resource',
  );
});

t.test('an event that cannot be written: logged, never thrown, and the wait is bounded', async (t) => {
  for (const how of ['reject', 'throw', 'hang'] as const) {
    const recorder = new KubeEventRecorder(() => new BrokenKube(how));
    const { lines, log } = logSink();
    await t.resolves(recorder.record(parentOf('S3'), [warning], FIXED_NOW, log), `${how}: record resolves`);
    if (how !== 'hang')
      t.ok(
        lines.some((l) => /could not record the event EtcdCallFailed/.test(l.msg)),
        `${how}: the failure is logged`,
      );
  }
  const unreachable = new KubeEventRecorder(() => {
    throw new Error('no Kubernetes API');
  });
  await t.resolves(unreachable.record(parentOf('S3'), [warning], FIXED_NOW), 'no client at all: nothing thrown');
});

t.test(
  'conditionEvents: a condition that takes a failure reason is a Warning; the same status again says nothing',
  async (t) => {
    const rules = { action: 'Reconcile', warnings: new Set(['AccessDenied']), normals: new Set(['BucketRetained']) };
    const failed = {
      conditions: [{ type: 'Ready', status: 'False', reason: 'AccessDenied', message: 'bucket: AccessDenied' }],
    };
    t.match(conditionEvents(parentOf('S3'), failed, rules), [
      { type: 'Warning', reason: 'AccessDenied', note: 'Ready: bucket: AccessDenied', subject: 'Ready' },
    ]);
    t.same(conditionEvents(parentOf('S3', failed), failed, rules), [], 'fed back: nothing');
    t.same(
      conditionEvents(parentOf('S3'), { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] }, rules),
      [],
      'not a reason the rules name',
    );
    const retained = { conditions: [{ type: 'Finalized', status: 'True', reason: 'BucketRetained', message: 'kept' }] };
    t.match(conditionEvents(parentOf('S3'), retained, rules), [{ type: 'Normal', reason: 'BucketRetained' }]);
  },
);

t.test(
  'conditionEvents: a reason the framework holds an answer for is a Warning for every kind, named in its rules or not',
  async (t) => {
    const rules = { action: 'Reconcile', warnings: new Set(['PodNameTaken']) };
    for (const reason of ['AnswerTooLarge', 'ChildTooLarge', 'ChildOutsideNamespace', 'StatusTooLarge']) {
      const status = { conditions: [{ type: 'Ready', status: 'False', reason, message: `held: ${reason}` }] };
      t.match(
        conditionEvents(parentOf('PodSet'), status, rules),
        [{ type: 'Warning', reason, note: `Ready: held: ${reason}`, subject: 'Ready' }],
        reason,
      );
      t.same(conditionEvents(parentOf('PodSet', status), status, rules), [], `${reason} fed back: nothing`);
    }
    const other = { conditions: [{ type: 'Ready', status: 'False', reason: 'Progressing', message: 'rolling' }] };
    t.same(conditionEvents(parentOf('PodSet'), other, rules), [], 'a reason neither names: nothing');
  },
);

// --- Through the server ---------------------------------------------------------------------------------------

const cluster = clusterOf(etcdParent({}), etcdParent({}).spec as any);
const member = (i: number): EtcdMember => ({
  id: String(1000 + i),
  name: `e-${i}`,
  peerURLs: [peerURL(cluster, `e-${i}`)],
  clientURLs: [`http://e-${i}.e.ns.svc:2379`],
  isLearner: false,
});
const healthy: MemberHealth = { healthy: true, version: '3.5.0', leader: '1000' };
const memberPodOf = (i: number) =>
  asObserved(
    memberPod({
      parent: etcdParent({}),
      spec: etcdParent({}).spec as any,
      name: `e-${i}`,
      initialCluster: '',
      state: 'existing',
    }),
    { phase: 'Running' },
  );

/** etcd with the members given; an add is refused when `refuse` is set. */
class FakeEtcd implements EtcdClient {
  adds = 0;
  constructor(
    public members: EtcdMember[],
    private readonly refuse = false,
  ) {}
  async memberList() {
    return { members: this.members, clusterVersion: '3.5.0', clusterId: etcdClusterId(1) };
  }
  async memberAdd(_e: string[], peerURL: string, learner: boolean): Promise<EtcdMember> {
    this.adds += 1;
    if (this.refuse) throw new EtcdError('etcdserver: unhealthy cluster', 'Rejected');
    const m: EtcdMember = {
      id: String(2000 + this.adds),
      name: '',
      peerURLs: [peerURL],
      clientURLs: [],
      isLearner: learner,
    };
    this.members = [...this.members, m];
    return m;
  }
  async memberRemove() {}
  async memberPromote(_e: string[], id: string) {
    this.members = this.members.map((m) =>
      m.id === id
        ? {
            ...m,
            isLearner: false,
            name: `e-${this.members.indexOf(m)}`,
            clientURLs: [`http://e-${this.members.indexOf(m)}.e.ns.svc:2379`],
          }
        : m,
    );
  }
  async health(url: string) {
    const pod = new URL(url).hostname.split('.')[0];
    const m = this.members.find((x) => x.peerURLs[0]?.includes(`//${pod}.`));
    return { ...healthy, clusterId: etcdClusterId(1), ...(m ? { memberId: m.id } : {}) };
  }
}

function app(kube: KubeApi, etcd?: EtcdClient, aws?: AwsApi, authenticated = true) {
  const a = buildApp({
    ...(authenticated ? { auth: { bearer: TOKEN } } : {}),
    services: { now: () => FIXED_NOW, kube: () => kube },
    clients: {
      ...(etcd ? { etcdcluster: { etcd: () => etcd } } : {}),
      ...(aws ? { s3: { aws: async () => aws } } : {}),
    },
  });
  t.teardown(() => a.close());
  return a;
}

/** The next request as Metacontroller would send it once the answer was applied: status and children fed back. */
function fedBack(
  request: CompositeSyncRequest,
  answer: { status?: unknown; children?: KubeObject[] },
): CompositeSyncRequest {
  const parent = { ...request.parent, status: answer.status } as ParentObject;
  const known = Object.values(request.children ?? {}).flatMap((g) => Object.values(g));
  const children = (answer.children ?? []).map(
    (c) =>
      known.find((k) => k.kind === c.kind && k.metadata.name === c.metadata.name) ??
      asObserved(c, c.kind === 'Pod' ? { phase: 'Running' } : undefined),
  );
  return { ...request, parent, children: objectMap(children, 'v1', Object.keys(request.children ?? {})) };
}

t.test(
  'EtcdCluster: MemberAdded once when the hook adds a member; nothing more when its answer is fed back',
  async (t) => {
    const kube = new FakeKube();
    const etcd = new FakeEtcd([member(0)]);
    const a = app(kube, etcd);
    const request: CompositeSyncRequest = {
      controller: {},
      parent: etcdParent({ size: 2 }, { lastMemberIndex: 0 }),
      children: objectMap([memberPodOf(0)], 'v1', ['Pod.v1', 'Service.v1']),
    };
    const first = await a.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', payload: request, headers: auth });
    t.equal(first.statusCode, 200);
    t.same(
      kube.created.map((e) => [e.type, e.reason]),
      [['Normal', 'MemberAdded']],
    );
    t.match(kube.created[0], {
      regarding: { kind: 'EtcdCluster', name: 'e', uid: 'uid-e' },
      note: /added member e-1 as a learner/,
    });
    // Fed back, the learner has started: the next step (its promotion) is the next event, and the one after that
    // sync, at rest, says nothing.
    const next = fedBack(request, first.json());
    const again = await a.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', payload: next, headers: auth });
    t.equal(again.statusCode, 200);
    t.equal(etcd.adds, 1, 'no second add');
    t.same(
      kube.created.map((e) => e.reason),
      ['MemberAdded', 'MemberPromoted'],
    );
    const rest = fedBack(next, again.json());
    const third = await a.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', payload: rest, headers: auth });
    t.match(
      third.json().status.conditions.find((c: any) => c.type === 'Scaling'),
      { status: 'False', reason: 'AtSize' },
      'at rest',
    );
    t.equal(kube.created.length, 2, 'no new event at rest');
    t.equal(kube.patches.length, 0, 'nor a repeat');
    const fourth = await a.inject({
      method: 'POST',
      url: '/hooks/etcdcluster/sync',
      payload: fedBack(rest, third.json()),
      headers: auth,
    });
    t.equal(fourth.body, third.body, 'quiet at rest');
    t.equal(kube.created.length + kube.patches.length, 2, 'and silent');
  },
);

t.test(
  "EtcdCluster: a failed etcd call is a Warning with the condition's reason; retried at rest it aggregates, the answer unchanged",
  async (t) => {
    const kube = new FakeKube();
    const a = app(kube, new FakeEtcd([member(0)], true));
    const request: CompositeSyncRequest = {
      controller: {},
      parent: etcdParent({ size: 2 }, { lastMemberIndex: 0 }),
      children: objectMap([memberPodOf(0)], 'v1', ['Pod.v1', 'Service.v1']),
    };
    const first = await a.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', payload: request, headers: auth });
    const synced = first.json().status.conditions.find((c: any) => c.type === 'Synced');
    t.match(synced, { status: 'False', reason: 'EtcdCallFailed' });
    t.same(
      kube.created.map((e) => [e.type, e.reason]),
      [['Warning', 'EtcdCallFailed']],
    );
    // Ready (listed first) takes Synced's reason while a step fails: one event, said as S3's are (Ready: ...).
    t.match(kube.created[0]!.note, /^Ready: add e-1 failed: etcd refused/);
    const next = fedBack(request, first.json());
    const second = await a.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', payload: next, headers: auth });
    t.equal(
      second.body,
      (await a.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', payload: next, headers: auth })).body,
      'the same request: the same answer',
    );
    t.equal(kube.created.length, 1, 'the same failure again: no new event');

    // The same answers whatever happens to the events.
    for (const how of ['reject', 'throw'] as const) {
      const broken = app(new BrokenKube(how), new FakeEtcd([member(0)], true));
      const res = await broken.inject({
        method: 'POST',
        url: '/hooks/etcdcluster/sync',
        payload: request,
        headers: auth,
      });
      t.equal(res.statusCode, 200, `${how}: the hook answers`);
      t.equal(res.body, first.body, `${how}: the same answer as with events written`);
    }
  },
);

t.test('EtcdCluster: an upgrade step is an event, once', async (t) => {
  const kube = new FakeKube();
  const a = app(kube, new FakeEtcd([member(0)]));
  const request: CompositeSyncRequest = {
    controller: {},
    parent: etcdParent({ size: 1, version: '3.5.1' }, { lastMemberIndex: 0, currentVersion: '3.5.0' }),
    children: objectMap([memberPodOf(0)], 'v1', ['Pod.v1', 'Service.v1']),
  };
  const first = await a.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', payload: request, headers: auth });
  t.same(
    kube.created.map((e) => e.reason),
    ['UpgradingMember'],
  );
  t.match(kube.created[0]!.note, /e-0: quay.io\/coreos\/etcd:v3.5.0 -> quay.io\/coreos\/etcd:v3.5.1/);
  // Applied: the pod has the new image.
  const next = fedBack(request, first.json());
  const pod = (next.children!['Pod.v1'] as Record<string, KubeObject>)['e-0']!;
  (pod['spec'] as any).containers[0].image = 'quay.io/coreos/etcd:v3.5.1';
  await a.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', payload: next, headers: auth });
  t.equal(kube.created.length, 1, 'no second event for the same step');
});

const backupParent = (status?: Record<string, unknown>): ParentObject => {
  const p: ParentObject = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdBackup',
    metadata: { name: 'nightly', namespace: 'ns', uid: 'uid-b', generation: 1 },
    spec: {
      clusterName: 'e',
      storageType: 'S3',
      backupPolicy: { backupIntervalInSecond: 0, maxBackups: 0, timeoutInSecond: 60 },
      s3: { path: 'bucket/ns/e', awsSecret: 'aws' },
    },
  };
  if (status) p.status = status;
  return p;
};
const backupJob = (status: Record<string, unknown>, created = '2026-01-02T03:00:00Z'): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'nightly-backup', namespace: 'ns', uid: 'uid-job', creationTimestamp: created },
  spec: {},
  status,
});
const backupRequest = (job: KubeObject, status?: Record<string, unknown>): CompositeSyncRequest => ({
  controller: {},
  parent: backupParent(status),
  children: objectMap([job], 'v1', ['Job.batch/v1', 'CronJob.batch/v1']),
  related: {
    'Pod.v1': {},
    'EtcdCluster.etcd.database.coreos.com/v1beta2': {
      // A running cluster: its etcd cluster ID recorded (a backup waits for it).
      e: {
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdCluster',
        metadata: { name: 'e', namespace: 'ns' },
        status: { clusterID: STAND_IN_CLUSTER_ID },
      },
    },
  },
});
const failedJob = backupJob({
  failed: 3,
  conditions: [{ type: 'Failed', status: 'True', message: 'Job has reached the specified backoff limit' }],
});

t.test(
  'EtcdBackup (a pure hook): a failed Job is a Warning for an authenticated caller, nothing for a stranger; the same answer',
  async (t) => {
    const kube = new FakeKube();
    const first = await app(kube).inject({
      method: 'POST',
      url: '/hooks/etcdbackup/sync',
      payload: backupRequest(failedJob),
      headers: auth,
    });
    t.equal(first.statusCode, 200);
    t.match(first.json().status.conditions[0], { reason: 'BackupFailed' });
    t.same(
      kube.created.map((e) => [e.type, e.reason, e.regarding.kind]),
      [['Warning', 'BackupFailed', 'EtcdBackup']],
    );
    t.match(kube.created[0]!.note, /backoff limit/);

    const again = await app(kube).inject({
      method: 'POST',
      url: '/hooks/etcdbackup/sync',
      payload: backupRequest(failedJob, first.json().status),
      headers: auth,
    });
    t.equal(again.statusCode, 200);
    t.equal(kube.created.length + kube.patches.length, 1, 'fed back: nothing new');

    const stranger = new FakeKube();
    const open = await app(stranger, undefined, undefined, false).inject({
      method: 'POST',
      url: '/hooks/etcdbackup/sync',
      payload: backupRequest(failedJob),
    });
    t.equal(open.statusCode, 200, 'the pure hook still answers a caller without credentials');
    t.equal(open.body, first.body, 'with the same answer');
    t.same(stranger.created, [], 'and no event is created for it');
    t.same(stranger.patches, []);

    const broken = await app(new BrokenKube('reject')).inject({
      method: 'POST',
      url: '/hooks/etcdbackup/sync',
      payload: backupRequest(failedJob),
      headers: auth,
    });
    t.equal(broken.body, first.body, 'an event that cannot be written changes nothing');
  },
);

t.test('EtcdBackup: a backup written is an event, once per snapshot', async (t) => {
  const kube = new FakeKube();
  const pod = (key: string, at: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p-${at}`, namespace: 'ns' },
    spec: {},
    status: {
      containerStatuses: [
        {
          name: 'backup',
          state: {
            terminated: {
              finishedAt: at,
              message: JSON.stringify({
                succeeded: true,
                bucket: 'bucket',
                key,
                etcdRevision: 7,
                etcdVersion: '3.5.0',
                lastSuccessDate: at,
              }),
            },
          },
        },
      ],
    },
  });
  // A periodic backup (each run a new snapshot, under the path's own keys), in the path's bucket.
  const request = (pods: KubeObject[], status?: Record<string, unknown>): CompositeSyncRequest => {
    const req: CompositeSyncRequest = {
      ...backupRequest(backupJob({ succeeded: 1 }), status),
      related: { ...backupRequest(backupJob({})).related, ...objectMap(pods, 'v1', ['Pod.v1']) },
    };
    (req.parent.spec as { backupPolicy: { backupIntervalInSecond: number } }).backupPolicy.backupIntervalInSecond =
      3600;
    return req;
  };
  const a = app(kube);
  const first = await a.inject({
    method: 'POST',
    url: '/hooks/etcdbackup/sync',
    payload: request([pod('ns/e_v7_1', '2026-01-02T03:00:00Z')]),
    headers: auth,
  });
  t.same(
    kube.created.map((e) => [e.type, e.reason]),
    [['Normal', 'BackupSucceeded']],
  );
  t.match(kube.created[0]!.note, /written to ns\/e_v7_1/);
  await a.inject({
    method: 'POST',
    url: '/hooks/etcdbackup/sync',
    payload: request([pod('ns/e_v7_1', '2026-01-02T03:00:00Z')], first.json().status),
    headers: auth,
  });
  t.equal(kube.created.length, 1, 'the same snapshot: nothing new');
  await a.inject({
    method: 'POST',
    url: '/hooks/etcdbackup/sync',
    payload: request(
      [pod('ns/e_v7_1', '2026-01-02T03:00:00Z'), pod('ns/e_v7_2', '2026-01-02T04:00:00Z')],
      first.json().status,
    ),
    headers: auth,
  });
  t.same(
    kube.created.map((e) => e.reason),
    ['BackupSucceeded', 'BackupSucceeded'],
    'a new snapshot: a new event',
  );
});

t.test('EtcdBackup: a Job that has no pod a minute after its creation says PodNotCreated', async (t) => {
  const kube = new FakeKube();
  const a = app(kube);
  const young = await a.inject({
    method: 'POST',
    url: '/hooks/etcdbackup/sync',
    payload: backupRequest(backupJob({}, '2026-01-02T03:04:00Z')),
    headers: auth,
  });
  t.match(young.json().status.conditions[0], { reason: 'Running' }, 'a few seconds old: running');
  const old = await a.inject({
    method: 'POST',
    url: '/hooks/etcdbackup/sync',
    payload: backupRequest(backupJob({}, '2026-01-02T03:00:00Z')),
    headers: auth,
  });
  t.match(old.json().status.conditions[0], {
    status: 'False',
    reason: 'PodNotCreated',
    message: /kubectl describe job nightly-backup/,
  });
  t.same(
    kube.created.map((e) => e.reason),
    ['PodNotCreated'],
  );
  const active = await a.inject({
    method: 'POST',
    url: '/hooks/etcdbackup/sync',
    payload: backupRequest(backupJob({ active: 1 }, '2026-01-02T03:00:00Z')),
    headers: auth,
  });
  t.match(active.json().status.conditions[0], { reason: 'Running' }, 'a Job with a pod is running');
});

t.test(
  'EtcdBackup: a one-off Job that completed, no result of it read, is a ResultUnknown Warning, once',
  async (t) => {
    const kube = new FakeKube();
    const a = app(kube);
    const complete = backupJob({
      succeeded: 1,
      completionTime: '2026-01-02T03:01:00Z',
      conditions: [{ type: 'Complete', status: 'True' }],
    });
    const first = await a.inject({
      method: 'POST',
      url: '/hooks/etcdbackup/sync',
      payload: backupRequest(complete),
      headers: auth,
    });
    t.match(first.json().status.conditions[0], { status: 'False', reason: 'ResultUnknown', message: /completed/ });
    t.same(
      kube.created.map((e) => [e.type, e.reason]),
      [['Warning', 'ResultUnknown']],
    );
    // The answer fed back: the same condition, no second Event.
    await a.inject({
      method: 'POST',
      url: '/hooks/etcdbackup/sync',
      payload: backupRequest(complete, first.json().status),
      headers: auth,
    });
    t.equal(kube.created.length, 1, 'said once');
  },
);

t.test('EtcdRestore: a restore that names no cluster is a Warning', async (t) => {
  const kube = new FakeKube();
  const payload: CompositeSyncRequest = {
    controller: {},
    parent: {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdRestore',
      metadata: { name: 'r', namespace: 'ns', uid: 'uid-r', generation: 1 },
      spec: { etcdCluster: { name: 'gone' }, backupStorageType: 'S3', s3: { path: 'b/ns/k', awsSecret: 'aws' } },
    },
    children: {},
    related: { 'EtcdCluster.etcd.database.coreos.com/v1beta2': {} },
  };
  const res = await app(kube).inject({ method: 'POST', url: '/hooks/etcdrestore/sync', payload, headers: auth });
  t.equal(res.statusCode, 200);
  t.same(
    kube.created.map((e) => [e.type, e.reason]),
    [['Warning', 'ClusterNotFound']],
  );
});

/** Just enough AWS for a new S3 resource: nothing exists, everything can be created; `fail` makes findBucket fail. */
function fakeAws(fail?: AwsError): AwsApi {
  const keys: Array<{ id: string; created: Date }> = [];
  // The ledger's entries (hooks/s3/ledger.ts): policies under a path, listed by its prefix.
  const policies: Array<{ name: string; arn: string; path: string; created: Date }> = [];
  let n = 0;
  const api: Partial<AwsApi> = {
    region: 'eu-west-1',
    endpoint: undefined,
    withDeadline: () => api as AwsApi,
    findBucket: async () => {
      if (fail) throw fail;
      return undefined;
    },
    createBucket: async () => undefined,
    tagBucket: async () => undefined,
    applyBucketSettings: async () => [],
    getUser: async () => undefined,
    createUser: async (user) => ({ arn: `arn:aws:iam::123456789012:user/${user}`, tags: new Map() }),
    tagUser: async () => undefined,
    untagUser: async () => undefined,
    getPolicy: async () => undefined,
    createPolicy: async (name, _document, _tags, path = '/') => {
      const arn = `arn:aws:iam::123456789012:policy${path}${name}`;
      policies.push({ name, arn, path, created: new Date(0) });
      return arn;
    },
    listPolicies: async (prefix: string) => ({
      policies: policies.filter((p) => p.path.startsWith(prefix)),
      truncated: false,
    }),
    attachedPolicies: async () => [],
    attachPolicy: async () => undefined,
    listAccessKeys: async () => [...keys],
    createAccessKey: async () => {
      const key = { id: `AKIA${String(++n).padStart(12, '0')}`, secret: 's3cr3t' };
      keys.push({ id: key.id, created: new Date(0) });
      return key;
    },
    deleteAccessKey: async () => undefined,
  };
  return api as AwsApi;
}
const s3Request = (): CompositeSyncRequest => ({
  controller: {},
  parent: {
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name: 'b', namespace: 'ns', uid: 'uid-s3', generation: 1 },
    spec: { bucketName: 'metaops-events-test' },
  },
  children: { 'Secret.v1': {} },
});

t.test(
  "S3: bucket created and first key are events; an AWS error is a Warning with the condition's reason, once",
  async (t) => {
    const kube = new FakeKube();
    const first = await app(kube, undefined, fakeAws()).inject({
      method: 'POST',
      url: '/hooks/s3/sync',
      payload: s3Request(),
      headers: auth,
    });
    t.equal(first.statusCode, 200);
    t.same(kube.created.map((e) => [e.type, e.reason]).sort(), [
      ['Normal', 'AccessKeyCreated'],
      ['Normal', 'BucketCreated'],
    ]);

    const denied = new FakeKube();
    const a = app(denied, undefined, fakeAws(new AwsError('AccessDenied', 'not allowed', 'HeadBucket')));
    const failed = await a.inject({ method: 'POST', url: '/hooks/s3/sync', payload: s3Request(), headers: auth });
    t.match(
      failed.json().status.conditions.find((c: any) => c.type === 'Ready'),
      { reason: 'AccessDenied' },
    );
    // Ready and Synced both take the reason: one event, on the resource.
    t.same(
      denied.created.map((e) => [e.type, e.reason, e.regarding.name]),
      [['Warning', 'AccessDenied', 'b']],
    );
    t.match(denied.created[0]!.note, /^Ready: bucket: HeadBucket: AccessDenied/);
    const next = { ...s3Request(), parent: { ...s3Request().parent, status: failed.json().status } };
    await a.inject({ method: 'POST', url: '/hooks/s3/sync', payload: next, headers: auth });
    t.equal(denied.created.length, 1, 'the same failure at the next resync: no new event');
  },
);

t.test('EtcdCluster: TLSFailed, EtcdUnreachable and ScaleUpRefused are Warnings too', async (t) => {
  // The operator's Secret is missing: nothing is dialled, Synced=False TLSFailed, and an Event says so.
  const kube = new FakeKube();
  const a = app(kube, new FakeEtcd([member(0)]));
  const tls = { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'etcd-client' } };
  const request: CompositeSyncRequest = {
    controller: {},
    parent: etcdParent({ size: 1, TLS: tls }, { lastMemberIndex: 0, phase: 'Running' }),
    children: objectMap([memberPodOf(0)], 'v1', ['Pod.v1', 'Service.v1']),
  };
  const res = await a.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', payload: request, headers: auth });
  t.equal(res.statusCode, 200);
  t.match(res.json().status.conditions, [{}], 'conditions answered');
  t.ok(res.json().status.conditions.some((c: any) => c.reason === 'TLSFailed'));
  t.ok(
    kube.created.some((e) => e.type === 'Warning' && e.reason === 'TLSFailed'),
    'a Warning event TLSFailed',
  );
  // A one-member cluster before 3.4 asked to grow: refused, with a Warning.
  const kube2 = new FakeKube();
  const old = new FakeEtcd([member(0)]);
  (old as any).version = '3.2.13';
  const b = app(kube2, {
    memberList: async () => ({ members: [member(0)], clusterVersion: '3.2.0', clusterId: etcdClusterId(1) }),
    memberAdd: async () => {
      throw new Error('must not add');
    },
    memberRemove: async () => undefined,
    memberPromote: async () => undefined,
    health: async () => ({ ...upAs(0, etcdClusterId(1)), version: '3.2.13', leader: '1' }),
  } as EtcdClient);
  const grow: CompositeSyncRequest = {
    controller: {},
    parent: etcdParent({ size: 3, version: '3.2.13' }, { lastMemberIndex: 0, phase: 'Running' }),
    children: objectMap([memberPodOf(0)], 'v1', ['Pod.v1', 'Service.v1']),
  };
  const r2 = await b.inject({ method: 'POST', url: '/hooks/etcdcluster/sync', payload: grow, headers: auth });
  t.equal(r2.statusCode, 200, r2.body);
  t.ok(
    kube2.created.some((e) => e.type === 'Warning' && e.reason === 'ScaleUpRefused'),
    'a Warning event ScaleUpRefused',
  );
});

t.test('EtcdRestore: a restore that will never act (superseded, older than its cluster) is a Warning', async (t) => {
  for (const [restoreCreated, clusterStatus, reason] of [
    [
      '2026-07-01T00:00:00Z',
      { restore: { uid: 'uid-newer', name: 'newer', phase: 'Restored', created: '2026-07-02T00:00:00Z' } },
      'RestoreSuperseded',
    ],
    ['2026-05-01T00:00:00Z', {}, 'OlderThanCluster'],
  ] as const) {
    const kube = new FakeKube();
    const cluster = {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdCluster',
      metadata: { name: 'e', namespace: 'ns', creationTimestamp: '2026-06-01T00:00:00Z' },
      status: clusterStatus,
    };
    const payload: CompositeSyncRequest = {
      controller: {},
      parent: {
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdRestore',
        metadata: { name: 'r', namespace: 'ns', uid: 'uid-r', generation: 1, creationTimestamp: restoreCreated },
        spec: { etcdCluster: { name: 'e' }, backupStorageType: 'S3', s3: { path: 'b/ns/k', awsSecret: 'aws' } },
      },
      children: {},
      related: { 'EtcdCluster.etcd.database.coreos.com/v1beta2': { e: cluster } },
    };
    const res = await app(kube).inject({ method: 'POST', url: '/hooks/etcdrestore/sync', payload, headers: auth });
    t.equal(res.statusCode, 200);
    t.equal(res.json().status.succeeded, false, reason);
    t.same(
      kube.created.map((e) => [e.type, e.reason]),
      [['Warning', reason]],
    );
  }
});
