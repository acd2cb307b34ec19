// PodBuggerTool's "inject once" (hooks/podbuggertool/sync.ts) over several syncs, with each answered status
// written back and the request lagging behind the API server, as Metacontroller's informer cache can; and the
// re-read before a PATCH in the states the request does not show (a tool without a UID, a pod answered from
// another namespace, a pod that cannot be read).
import t from 'tap';
import { DEFAULT_POLICY, type DebugPolicy } from '../hooks/podbuggertool/match.js';
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

async function sync(api: Api, parent: KubeObject, pods: KubeObject[]): Promise<CompositeSyncResponse> {
  return syncTool(
    { controller: {}, parent: structuredClone(parent), children: {}, related: objectMap(pods, 'v1', ['Pod.v1']) },
    { kube: api, policy: ANY, now: FIXED_NOW },
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
