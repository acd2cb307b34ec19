// PodBuggerTool's "inject once" (hooks/podbuggertool/sync.ts) over several syncs, with each answered status
// written back and the request lagging behind the API server, as Metacontroller's informer cache can; and the
// re-read before a PATCH in the states the request does not show (a tool without a UID, a pod answered from
// another namespace, a pod that cannot be read).
import t from 'tap';
import { createHash } from 'node:crypto';
import { DEFAULT_POLICY, policyFromEnv, refusal, type DebugPolicy } from '../hooks/podbuggertool/match.js';
import {
  customizeTool,
  MAX_FAILURES,
  MAX_PER_SYNC,
  RETRY_SECONDS,
  toolSettings,
  WORK_BUDGET_MS,
} from '../hooks/podbuggertool/sync.js';
import { toolSync as syncTool } from './fixtures/hooks.js';
import { KubeError, type KubeApi, type KubeEvent, type Precondition } from '../lib/kube.js';
import type { CompositeSyncResponse, KubeObject } from '../lib/metacontroller.js';
import { FIXED_NOW, objectMap } from './fixtures/requests.js';

const ANY: DebugPolicy = { ...DEFAULT_POLICY, allowlist: ['*'] };
const TOOL_KEY = (ns: string, name: string) => `PodBuggerTool/${ns}/${name}`;

class Api implements KubeApi {
  objects = new Map<string, any>();
  patches: string[] = [];
  events: KubeEvent[] = [];
  failPodGet = new Set<string>();
  /** The pods read, in the order the reads began. */
  reads: string[] = [];
  /** Answers the read of a pod with this object instead (an API server or proxy that answers wrongly). */
  answerPod = new Map<string, any>();
  private rv = 1;
  put(obj: any): this {
    const c = structuredClone(obj);
    c.metadata.resourceVersion = String(++this.rv);
    this.objects.set(`${c.kind}/${c.metadata.namespace ?? 'default'}/${c.metadata.name}`, c);
    return this;
  }
  async get(_v: string, resource: string, ns: string, name: string) {
    if (resource === 'pods') this.reads.push(name);
    if (resource === 'pods' && this.failPodGet.has(name)) throw new KubeError(403, 'forbidden', 'Forbidden');
    if (resource === 'pods' && this.answerPod.has(name)) return structuredClone(this.answerPod.get(name));
    const obj = this.objects.get(`${resource === 'pods' ? 'Pod' : 'PodBuggerTool'}/${ns}/${name}`);
    return obj ? structuredClone(obj) : undefined;
  }
  async addEphemeralContainers(ns: string, name: string, containers: any[], pre?: Precondition) {
    this.patches.push(`${ns}/${name}`);
    const p = this.objects.get(`Pod/${ns}/${name}`);
    if (!p) throw new KubeError(404, 'not found', 'NotFound');
    if (pre?.resourceVersion && pre.resourceVersion !== p.metadata.resourceVersion)
      throw new KubeError(409, 'rv', 'Conflict');
    const have = (p.spec.ephemeralContainers ??= []);
    for (const c of containers) {
      if (have.some((x: any) => x.name === c.name)) throw new KubeError(422, 'duplicate', 'Invalid');
      have.push(c);
    }
    this.put(p);
  }
  async createEvent(e: KubeEvent) {
    this.events.push(structuredClone(e));
  }
}

const tool = (name: string, namespace: string | undefined, uid: string | undefined, image = 'busybox'): KubeObject => ({
  apiVersion: 'debug.metaops.dev/v1alpha1',
  kind: 'PodBuggerTool',
  metadata: { name, ...(namespace ? { namespace } : {}), ...(uid ? { uid } : {}), generation: 1 },
  spec: { label: 'app=web', image },
});
const pod = (name: string, namespace: string | null = 'dbg'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...(namespace ? { namespace } : {}), labels: { app: 'web' }, uid: `uid-${name}` },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
});

async function sync(
  api: KubeApi,
  parent: KubeObject,
  pods: KubeObject[],
  more: { budgetMs?: number; log?: { warn(obj: Record<string, unknown>, msg: string): void } } = {},
): Promise<CompositeSyncResponse> {
  return syncTool(
    { controller: {}, parent: structuredClone(parent), children: {}, related: objectMap(pods, 'v1', ['Pod.v1']) },
    { kube: api, policy: ANY, now: FIXED_NOW, ...more },
  );
}

t.test('inject once over many syncs: the request lags, the status is written back, one PATCH per pod', async (t) => {
  const api = new Api()
    .put(tool('a', 'dbg', 'uid-a'))
    .put(pod('p1'))
    .put(pod('p2'));
  // The request keeps showing the pods as they were before any PATCH (a stale informer cache).
  const stale = [pod('p1'), pod('p2')];
  let parent = api.objects.get(TOOL_KEY('dbg', 'a'));
  const statuses: unknown[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await sync(api, parent, stale);
    statuses.push(res.status);
    parent = { ...parent, status: res.status };
    t.match(res.status, { matched: 2, injected: 2, failed: 0 }, `sync ${i}: both carry it`);
  }
  t.same(api.patches.sort(), ['dbg/p1', 'dbg/p2'], 'each pod patched once');
  t.same(statuses[3], statuses[1], 'the status settles');
  for (const p of ['p1', 'p2'])
    t.same(
      api.objects.get(`Pod/dbg/${p}`).spec.ephemeralContainers.map((c: any) => c.name),
      ['debug-a'],
    );
});

t.test("a request without the tool's UID: the API server's tool is used, and named by its UID in events", async (t) => {
  const api = new Api()
    .put(tool('a', 'dbg', 'uid-real'))
    .put(pod('p1'))
    .put(pod('p2'));
  api.failPodGet.add('p2');
  const res = await sync(api, tool('a', 'dbg', undefined), [pod('p1'), pod('p2')]);
  t.same(api.patches, ['dbg/p1'], 'injected into the pod that could be read');
  t.match(res.status, { matched: 2, injected: 1, failed: 1, failures: [{ pod: 'p2', reason: 'Forbidden' }] });
  t.equal(api.events.length, 1);
  t.match(api.events[0], {
    reason: 'InjectionFailed',
    regarding: { name: 'a', uid: 'uid-real' },
    related: { name: 'p2', uid: 'uid-p2' },
  });
  // The API server's tool without a UID (an answer from something that is not quite the API server): still used.
  const bare = new Api().put(tool('b', 'dbg', undefined)).put(pod('p1'));
  await sync(bare, tool('b', 'dbg', 'uid-b'), [pod('p1')]);
  t.same(bare.patches, ['dbg/p1']);
  // Another UID: a tool deleted and re-created under the name since the request; nothing done for the old one.
  const other = new Api().put(tool('c', 'dbg', 'uid-new')).put(pod('p1'));
  await sync(other, tool('c', 'dbg', 'uid-old'), [pod('p1')]);
  t.same(other.patches, []);
});

t.test('a pod read back from another namespace is not patched', async (t) => {
  const api = new Api().put(tool('a', 'dbg', 'uid-a')).put(pod('p1'));
  api.answerPod.set('p1', {
    ...pod('p1', 'elsewhere'),
    metadata: { ...pod('p1', 'elsewhere').metadata, resourceVersion: '9' },
  });
  const res = await sync(api, api.objects.get(TOOL_KEY('dbg', 'a')), [pod('p1')]);
  t.same(api.patches, []);
  t.match(res.status, { matched: 1, injected: 0, failed: 0 });
  // A pod read back without a namespace is the tool's namespace's.
  const bare = new Api().put(tool('a', 'dbg', 'uid-a')).put(pod('p1'));
  const noNs = pod('p1', null);
  bare.answerPod.set('p1', {
    ...noNs,
    metadata: { ...noNs.metadata, resourceVersion: bare.objects.get('Pod/dbg/p1').metadata.resourceVersion },
  });
  await sync(bare, bare.objects.get(TOOL_KEY('dbg', 'a')), [pod('p1')]);
  t.same(bare.patches, ['dbg/p1']);
});

t.test('a tool and pods without a namespace are in "default"', async (t) => {
  const api = new Api().put(tool('a', undefined, 'uid-a')).put(pod('p1', null));
  const res = await sync(api, tool('a', undefined, 'uid-a'), [pod('p1', null), pod('p2', 'other')]);
  t.same(api.patches, ['default/p1']);
  t.match(res.status, { matched: 1, injected: 1 });
});

/** Pods p01..pNN (two digits, so that names sort as numbers do). */
const podsNamed = (n: number) => Array.from({ length: n }, (_, i) => pod(`p${String(i + 1).padStart(2, '0')}`));
const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');

t.test('failures in the status: by name, the first five named in Ready and the rest counted', async (t) => {
  for (const n of [5, 7]) {
    const api = new Api().put(tool('a', 'dbg', 'uid-a'));
    const pods = podsNamed(n);
    for (const p of pods) api.put(p).failPodGet.add(p.metadata.name!);
    const res = await sync(api, tool('a', 'dbg', 'uid-a'), [...pods].reverse());
    const failures = pods.map((p) => ({ pod: p.metadata.name, reason: 'Forbidden' }));
    t.match(res.status, { matched: n, injected: 0, failed: n });
    t.same((res.status as any).failures, failures, `${n}: every failure, by pod name`);
    const named = 'p01 (Forbidden), p02 (Forbidden), p03 (Forbidden), p04 (Forbidden), p05 (Forbidden)';
    t.same(ready(res), {
      type: 'Ready',
      status: 'False',
      reason: 'InjectionFailed',
      message: `debug-a could not be added to ${n} of ${n} matching pods: ${named}${n > 5 ? ` and ${n - 5} more` : ''}; retried every ${RETRY_SECONDS}s`,
      lastTransitionTime: ready(res).lastTransitionTime,
      observedGeneration: 1,
    });
    t.equal(res.resyncAfterSeconds, RETRY_SECONDS);
  }
});

t.test(
  'pods that failed before are tried last; those left for later keep their failure; at most 100 listed',
  async (t) => {
    const api = new Api().put(tool('a', 'dbg', 'uid-a'));
    const pods = podsNamed(MAX_PER_SYNC + 1);
    for (const p of pods) api.put(p);
    // p01 failed at the last sync: the others first, and p01 is left for the next sync with its failure.
    const parent = { ...tool('a', 'dbg', 'uid-a'), status: { failures: [{ pod: 'p01', reason: 'Conflict' }] } };
    const res = await sync(api, parent, [...pods].reverse());
    t.same(
      api.reads,
      pods.slice(1).map((p) => p.metadata.name),
      'by name, the failed one not reached',
    );
    t.match(res.status, { injected: MAX_PER_SYNC, failed: 1, failures: [{ pod: 'p01', reason: 'Conflict' }] });
    t.equal(res.resyncAfterSeconds, 1, 'the rest at the next sync, a second later');

    // More failures than the status lists: all counted, the first MAX_FAILURES by name listed.
    const many = Array.from({ length: MAX_FAILURES + 30 }, (_, i) => pod(`q${String(i).padStart(3, '0')}`));
    const api2 = new Api().put(tool('a', 'dbg', 'uid-a'));
    for (const p of many) api2.put(p).failPodGet.add(p.metadata.name!);
    const failures = many.map((p) => ({ pod: p.metadata.name!, reason: 'Forbidden' }));
    const res2 = await sync(api2, { ...tool('a', 'dbg', 'uid-a'), status: { failures } }, many);
    t.equal(api2.reads.length, MAX_PER_SYNC);
    t.match(res2.status, { matched: many.length, failed: many.length });
    t.same((res2.status as any).failures, failures.slice(0, MAX_FAILURES));
    t.equal(api2.events.length, 0, 'the same failures again: no new Event');
  },
);

t.test('a malformed previous status is read for what it holds', async (t) => {
  const api = new Api().put(tool('a', 'dbg', 'uid-a'));
  const pods = podsNamed(3);
  for (const p of pods) api.put(p);
  const status = {
    failures: [null, 'p01', { pod: 1, reason: 'X' }, { pod: 'p02', reason: 5 }, { pod: 'p03', reason: 'Conflict' }],
    lastInjected: 'p01',
  };
  // No time to reach any pod: each keeps the failure the status gave it, when it gave one.
  const res = await sync(api, { ...tool('a', 'dbg', 'uid-a'), status }, pods, { budgetMs: -1 });
  t.same(api.reads, []);
  t.match(res.status, { failed: 1, failures: [{ pod: 'p03', reason: 'Conflict' }], lastInjected: [] });
  t.equal(res.resyncAfterSeconds, 1);
});

t.test('lastInjected: the pods added now by name, then those the last status named, then the others', async (t) => {
  const api = new Api().put(tool('a', 'dbg', 'uid-a'));
  const carrying = (name: string) => {
    const p = pod(name) as any;
    p.spec.ephemeralContainers = [{ name: 'debug-a', image: 'busybox' }];
    return p;
  };
  const fresh = ['c', 'a', 'b'].map((n) => pod(n));
  for (const p of fresh) api.put(p);
  const old = ['x', 'y', 'z'].map(carrying);
  const status = { lastInjected: ['z', 7, 'gone', 'y'] };
  const res = await sync(api, { ...tool('a', 'dbg', 'uid-a'), status }, [...old, ...fresh]);
  t.same((res.status as any).lastInjected, ['a', 'b', 'c', 'z', 'y', 'x']);
});

t.test("Ready's message: pods carrying the container, and those with an older image said apart", async (t) => {
  const api = new Api().put(tool('a', 'dbg', 'uid-a'));
  const withImage = (name: string, image: string) => {
    const p = pod(name) as any;
    p.spec.ephemeralContainers = [{ name: 'debug-a', image }];
    return p;
  };
  const res = await sync(api, tool('a', 'dbg', 'uid-a'), [withImage('p1', 'busybox'), withImage('p2', 'busybox')]);
  t.match(ready(res), { status: 'True', reason: 'Injecting' });
  t.equal(ready(res).message, '2 of 2 matching pods carry debug-a', 'no word of older images when there are none');
  t.equal(res.resyncAfterSeconds, undefined, 'at rest');
  const older = await sync(api, tool('a', 'dbg', 'uid-a'), [withImage('p1', 'busybox'), withImage('p2', 'alpine')]);
  t.equal(
    ready(older).message,
    '1 of 2 matching pods carry debug-a; 1 carry it with an older image (ephemeral containers cannot be changed)',
  );
  t.match(older.status, { injected: 1, outdated: 1 });
});

t.test('a tool the server policy refuses: Ready says why, nothing is read or patched', async (t) => {
  const api = new Api().put(tool('a', 'dbg', 'uid-a', 'evil.example/x')).put(pod('p1'));
  const res = await syncTool(
    {
      controller: {},
      parent: tool('a', 'dbg', 'uid-a', 'evil.example/x'),
      children: {},
      related: objectMap([pod('p1')], 'v1', ['Pod.v1']),
    },
    { kube: api, policy: DEFAULT_POLICY, now: FIXED_NOW },
  );
  const why = refusal({ label: 'app=web', image: 'evil.example/x' } as never, 'dbg', DEFAULT_POLICY)!;
  t.ok(why, 'the default policy refuses this image');
  t.match(ready(res), { type: 'Ready', status: 'False', reason: why.reason, message: why.message });
  t.same(api.reads, []);
  t.same(api.patches, []);
});

t.test(
  "the failure's Event: named after the tool and a hash of the occurrence, its action, the pod related",
  async (t) => {
    const name = (tool: string, occurrence: string, prefix: string) =>
      `${prefix ? `${prefix}.` : ''}${createHash('sha256').update(occurrence).digest('hex').slice(0, 16)}`;
    for (const [toolName, prefix] of [
      ['a', 'a'],
      ['-Debug..Tool-', 'debug-tool'],
      ['...', ''],
    ] as const) {
      const api = new Api().put(tool(toolName, 'dbg', 'uid-t'));
      const bare = pod('p1') as any;
      delete bare.metadata.uid;
      api.put(bare).failPodGet.add('p1');
      await sync(api, tool(toolName, 'dbg', 'uid-t'), [bare]);
      t.equal(api.events.length, 1, toolName);
      t.match(api.events[0], {
        name: name(toolName, `dbg/${toolName}/dbg/p1//Forbidden`, prefix),
        type: 'Warning',
        reason: 'InjectionFailed',
        action: 'AddEphemeralContainer',
        related: { kind: 'Pod', namespace: 'dbg', name: 'p1' },
      });
      t.equal(api.events[0]!.related!.uid, undefined, 'a pod without a UID is related without one');
    }
  },
);

t.test(
  'Events: an API without them is not asked; a failed write is logged; a write that hangs holds the answer ~1 s',
  async (t) => {
    const warned: Array<{ obj: Record<string, unknown>; msg: string }> = [];
    const log = { warn: (obj: Record<string, unknown>, msg: string) => void warned.push({ obj, msg }) };
    const failing = (createEvent: KubeApi['createEvent'] | undefined) => {
      const api = new Api().put(tool('a', 'dbg', 'uid-a')).put(pod('p1'));
      api.failPodGet.add('p1');
      const kube: KubeApi = {
        get: api.get.bind(api),
        addEphemeralContainers: api.addEphemeralContainers.bind(api),
        ...(createEvent ? { createEvent } : {}),
      };
      return kube;
    };
    await sync(failing(undefined), tool('a', 'dbg', 'uid-a'), [pod('p1')], { log });
    t.same(
      warned.map((w) => w.msg),
      ['PodBuggerTool dbg/a: could not add debug-a to pod dbg/p1: Forbidden'],
      'the failure only: no Event API, no Event write failed',
    );
    warned.length = 0;
    const refused = failing(async () => {
      throw new KubeError(403, 'no events for you', 'Forbidden');
    });
    await sync(refused, tool('a', 'dbg', 'uid-a'), [pod('p1')], { log });
    t.match(warned[1], {
      obj: { podbuggertool: 'dbg/a', reason: 'Forbidden', err: 'no events for you' },
      msg: 'PodBuggerTool dbg/a: could not record the event InjectionFailed: Forbidden',
    });
    const hanging = failing(() => new Promise(() => undefined));
    const began = Date.now();
    const res = await sync(hanging, tool('a', 'dbg', 'uid-a'), [pod('p1')]);
    t.match(res.status, { failed: 1 });
    t.ok(Date.now() - began < 5000, `answered while the Event write hangs (${Date.now() - began} ms)`);
  },
);

t.test('settings from the environment, and customize without a tool', async (t) => {
  const env = { METAOPS_DEBUG_IMAGE_ALLOWLIST: 'docker.io/library/busybox' };
  t.same(toolSettings({ env }), { policy: policyFromEnv(env), workBudgetMs: WORK_BUDGET_MS });
  t.equal(WORK_BUDGET_MS, 3500);
  t.same(customizeTool({ controller: {} }), { relatedResources: [] });
});

t.test(
  'lastInjected: the ten most recent, the ones added now by name whatever order their PATCHes ended in',
  async (t) => {
    const api = new Api().put(tool('a', 'dbg', 'uid-a'));
    const fresh = ['e', 'd', 'c', 'b', 'a'].map((n) => pod(n));
    for (const p of fresh) api.put(p);
    // The PATCH of a ends last, e's first.
    const patch = api.addEphemeralContainers.bind(api);
    api.addEphemeralContainers = async (ns, name, containers, pre) => {
      await new Promise((r) => setTimeout(r, 10 * (1 + fresh.findIndex((p) => p.metadata.name === name))));
      return patch(ns, name, containers, pre);
    };
    const carrying = Array.from({ length: 12 }, (_, i) => {
      const p = pod(`old-${String(i).padStart(2, '0')}`) as any;
      p.spec.ephemeralContainers = [{ name: 'debug-a', image: 'busybox' }];
      return p;
    });
    const res = await sync(api, tool('a', 'dbg', 'uid-a'), [...carrying, ...fresh]);
    t.match(res.status, { matched: 17, injected: 17 });
    t.same((res.status as any).lastInjected, [
      'a',
      'b',
      'c',
      'd',
      'e',
      'old-00',
      'old-01',
      'old-02',
      'old-03',
      'old-04',
    ]);
  },
);

t.test("an Event's name starts with at most 200 characters of the tool's name", async (t) => {
  const long = 'x'.repeat(250);
  const api = new Api().put(tool(long, 'dbg', 'uid-t')).put(pod('p1'));
  api.failPodGet.add('p1');
  await sync(api, tool(long, 'dbg', 'uid-t'), [pod('p1')]);
  t.match(api.events[0]!.name, new RegExp(`^${'x'.repeat(200)}\\.[0-9a-f]{16}$`));
});
