import t from 'tap';
import {
  containerName,
  DEFAULT_POLICY,
  ephemeralContainer,
  imageAllowed,
  parseImage,
  parseList,
  parser,
  policyFromEnv,
  selectorOf,
  type DebugPolicy,
} from '../hooks/podbuggertool/match.js';
import { customizePod, customizeTool, syncPod, syncTool, type PodHookLog } from '../hooks/podbuggertool/sync.js';
import { KubeError, type KubeApi, type KubeEvent, type Precondition } from '../lib/kube.js';
import type { KubeObject, ObjectMap } from '../lib/metacontroller.js';
import { FIXED_NOW } from './fixtures/requests.js';

const INJECTIONS = 'debug.metaops.dev/injections';
const FAILURES = 'debug.metaops.dev/failures';
const ANY: DebugPolicy = { ...DEFAULT_POLICY, allowlist: ['*'] };

const tool = (name: string, spec: Record<string, unknown>, namespace = 'dbg'): KubeObject => ({
  apiVersion: 'debug.metaops.dev/v1alpha1',
  kind: 'PodBuggerTool',
  metadata: { name, namespace, generation: 1 },
  spec,
});
const pod = (name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}, namespace = 'dbg'): any => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels, uid: `uid-${name}`, resourceVersion: '1' },
  spec: { containers: [{ name: 'app', image: 'nginx' }], ...extra },
});

/**
 * An observed-objects map as Metacontroller sends it, through JSON text: a tool called `__proto__` is then an
 * own key, as it is on the wire (an object literal would make it the map's prototype instead).
 */
function wire(objects: KubeObject[]): ObjectMap {
  const groups = new Map<string, string[]>();
  for (const o of objects) {
    const key = `${o.kind}.${o.apiVersion}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(`${JSON.stringify(o.metadata.name)}:${JSON.stringify(o)}`);
  }
  return JSON.parse(`{${[...groups].map(([k, v]) => `${JSON.stringify(k)}:{${v.join(',')}}`).join(',')}}`);
}
const wirePod = (p: any) => JSON.parse(JSON.stringify(p));

/** The API server as far as the pod hook uses it: pods and tools to read, the ephemeral-container PATCH. */
class FakeApi implements KubeApi {
  objects = new Map<string, any>();
  gets: string[] = [];
  patches: Array<{ ns: string; pod: string; containers: any[]; precondition: Precondition | undefined }> = [];
  failPatch: Error | undefined;
  failGet: Error | undefined;
  failEvent: Error | undefined;
  events: KubeEvent[] = [];
  private rv = 10;

  /** Stores an object as the API server has it (the pod hook's truth, whatever the request says). */
  put(obj: any): this {
    const copy = structuredClone(obj);
    copy.metadata.resourceVersion = String(++this.rv);
    this.objects.set(`${copy.kind}/${copy.metadata.namespace}/${copy.metadata.name}`, copy);
    return this;
  }
  stored(kind: string, ns: string, name: string): any {
    return this.objects.get(`${kind}/${ns}/${name}`);
  }
  async get(apiVersion: string, resource: string, ns: string, name: string) {
    this.gets.push(`${apiVersion} ${resource} ${ns}/${name}`);
    if (this.failGet) throw this.failGet;
    const kind = resource === 'pods' ? 'Pod' : resource === 'podbuggertools' ? 'PodBuggerTool' : '?';
    const obj = this.stored(kind, ns, name);
    return obj ? structuredClone(obj) : undefined;
  }
  async createEvent(event: KubeEvent) {
    if (this.failEvent) throw this.failEvent;
    this.events.push(structuredClone(event));
  }
  async addEphemeralContainers(ns: string, name: string, containers: any[], precondition?: Precondition) {
    this.patches.push({ ns, pod: name, containers: structuredClone(containers), precondition });
    if (this.failPatch) throw this.failPatch;
    const p = this.stored('Pod', ns, name);
    if (!p) throw new KubeError(404, 'not found', 'NotFound');
    if (precondition?.uid && precondition.uid !== p.metadata.uid) throw new KubeError(409, 'uid', 'Conflict');
    if (precondition?.resourceVersion && precondition.resourceVersion !== p.metadata.resourceVersion) throw new KubeError(409, 'rv', 'Conflict');
    const have = (p.spec.ephemeralContainers ??= []);
    for (const c of containers) {
      if (have.some((x: any) => x.name === c.name)) throw new KubeError(422, 'duplicate', 'Invalid');
      have.push(c);
    }
    this.put(p);
  }
}

class Log implements PodHookLog {
  lines: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  warn(obj: Record<string, unknown>, msg: string) {
    this.lines.push({ obj, msg });
  }
}

/** A sync as Metacontroller would send it: the pod and the tools of the API server, through JSON. */
async function syncFrom(api: FakeApi, podKey: [string, string], policy: DebugPolicy = ANY, log?: Log, now = FIXED_NOW) {
  const [ns, name] = podKey;
  const tools = [...api.objects.values()].filter((o) => o.kind === 'PodBuggerTool' && o.metadata.namespace === ns);
  return syncPod(
    { controller: {}, object: wirePod(api.stored('Pod', ns, name)), related: wire(tools) },
    { kube: api, policy, now, ...(log ? { log } : {}) },
  );
}

t.test('container names are valid DNS-1123 labels, whatever the tool is called', async (t) => {
  t.equal(containerName('busybox'), 'debug-busybox');
  t.equal(containerName('My.Tool_v2'), 'debug-my-tool-v2');
  const long = containerName('x'.repeat(80));
  t.ok(long.length <= 63);
  t.match(long, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  t.not(containerName('x'.repeat(80)), containerName('x'.repeat(81)), 'long names stay distinct');
});

t.test('selectors: matchLabels, matchExpressions and the key=value shorthand', async (t) => {
  t.same(selectorOf({ label: 'app=web' } as any), { matchLabels: { app: 'web' } });
  t.same(selectorOf({ label: 'debug' } as any), { matchExpressions: [{ key: 'debug', operator: 'Exists' }] });
  t.same(selectorOf({ label: 'app=web', selector: { matchLabels: { tier: 'front' } } } as any), {
    matchLabels: { tier: 'front', app: 'web' },
  });
  const bad = parser.parse({ image: 'busybox' });
  t.notOk(bad.ok, 'a tool without a selector is refused');
});

t.test('image references are parsed as the runtime resolves them', async (t) => {
  t.same(parseImage('busybox'), { registry: 'docker.io', repository: 'library/busybox' });
  t.same(parseImage('busybox:1.36'), { registry: 'docker.io', repository: 'library/busybox', tag: '1.36' });
  t.same(parseImage('index.docker.io/library/busybox:1.36'), { registry: 'docker.io', repository: 'library/busybox', tag: '1.36' });
  t.same(parseImage('busybox.evil.example/pwn'), { registry: 'busybox.evil.example', repository: 'pwn' });
  t.same(parseImage('localhost:5000/a/b:c'), { registry: 'localhost:5000', repository: 'a/b', tag: 'c' });
  t.same(parseImage(`ghcr.io/o/d@sha256:${'a'.repeat(64)}`), { registry: 'ghcr.io', repository: 'o/d', digest: `sha256:${'a'.repeat(64)}` });
  for (const bad of ['', 'BusyBox', 'busybox:', 'a//b', '../x', 'busybox:1 2', 'ghcr.io/o/d@sha256:short', 'evil.example:99999999x/a']) {
    t.equal(parseImage(bad), undefined, `${JSON.stringify(bad)} is not an image`);
  }
});

t.test('the allowlist matches registry and repository, never a string prefix across a host', async (t) => {
  const list = parseList(' busybox*, ghcr.io/org/debug:1 ,')!;
  t.same(list, ['busybox*', 'ghcr.io/org/debug:1']);
  t.equal(parseList(''), undefined);
  // busybox*: Docker Hub's busybox, any tag or digest.
  for (const ok of ['busybox', 'busybox:1.36', 'docker.io/library/busybox:1.36', 'index.docker.io/library/busybox', `busybox@sha256:${'b'.repeat(64)}`]) {
    t.ok(imageAllowed(ok, list), `${ok} allowed`);
  }
  for (const no of ['busybox.evil.example/pwn', 'busybox.evil.example/library/busybox', 'busyboxevil:1', 'evil/busybox', 'docker.io/busybox-x', 'busybox:1.36/x', 'ghcr.io/busybox']) {
    t.notOk(imageAllowed(no, list), `${no} refused`);
  }
  // An exact tag is only that tag.
  t.ok(imageAllowed('ghcr.io/org/debug:1', list));
  t.notOk(imageAllowed('ghcr.io/org/debug:2', list));
  t.notOk(imageAllowed('ghcr.io/org/debug', list), 'no tag is :latest, not :1');
  t.notOk(imageAllowed('ghcr.io/org/debug:1.evil', list));
  t.notOk(imageAllowed('ghcr.io/org/debugger:1', list));

  // A repository without a tag: any tag; `:latest` is what no tag means.
  t.ok(imageAllowed('ghcr.io/org/debug:7', ['ghcr.io/org/debug']));
  t.notOk(imageAllowed('ghcr.io/org/debugger:7', ['ghcr.io/org/debug']));
  t.ok(imageAllowed('nicolaka/netshoot', ['nicolaka/netshoot:latest']));
  t.notOk(imageAllowed('nicolaka/netshoot:v1', ['nicolaka/netshoot:latest']));
  t.ok(imageAllowed('busybox:1.36', ['busybox:*']));
  t.notOk(imageAllowed(`nicolaka/netshoot@sha256:${'e'.repeat(64)}`, ['nicolaka/netshoot:latest']), 'a digest alone is not :latest');

  // path/*: the repositories below a path of one registry, on a path-segment boundary.
  const org = ['ghcr.io/org/*'];
  t.ok(imageAllowed('ghcr.io/org/a:1', org));
  t.ok(imageAllowed('ghcr.io/org/a/b', org));
  t.ok(imageAllowed('GHCR.io/org/a', org), 'host names are case-insensitive');
  t.notOk(imageAllowed('ghcr.io/orgx/a', org));
  t.notOk(imageAllowed('ghcr.io.evil.example/org/a', org));
  t.notOk(imageAllowed('docker.io/org/a', org));
  t.ok(imageAllowed('anything/at:all', ['docker.io/*']));
  t.notOk(imageAllowed('quay.io/anything', ['docker.io/*']));

  // Digests are exact.
  const digest = `sha256:${'c'.repeat(64)}`;
  t.ok(imageAllowed(`ghcr.io/o/d@${digest}`, [`ghcr.io/o/d@${digest}`]));
  t.notOk(imageAllowed(`ghcr.io/o/d@sha256:${'d'.repeat(64)}`, [`ghcr.io/o/d@${digest}`]));
  t.notOk(imageAllowed('ghcr.io/o/d:1', [`ghcr.io/o/d@${digest}`]));

  // `*` is the explicit "any image"; no entry, an invalid entry or an invalid image allows nothing.
  t.ok(imageAllowed('quay.io/x/y:z', ['*']));
  t.notOk(imageAllowed('busybox', []));
  t.notOk(imageAllowed('busybox', ['busy*box', 'ghcr.io/o/debug-*', 'busybox:1*']));
  t.notOk(imageAllowed('busybox:1', ['busybox:1*']), '`*` is no tag pattern: the entry is invalid');
  t.notOk(imageAllowed(`busybox@sha256:${'f'.repeat(64)}`, [`busybox@sha256:${'f'.repeat(64)}*`]));
  t.notOk(imageAllowed('Not An Image', ['*']));
  t.ok(imageAllowed('busybox', ['nothing-here', 'busybox']), 'any entry may allow');
});

t.test('the server policy: defaults are narrow, the environment widens them', async (t) => {
  const defaults = policyFromEnv({});
  t.same(defaults, { allowlist: ['busybox'], excludedNamespaces: ['kube-system'], profiles: ['general', 'baseline', 'restricted'] });
  t.notOk(imageAllowed('nicolaka/netshoot', defaults.allowlist), 'not any image by default');
  t.ok(imageAllowed('busybox:1.36', defaults.allowlist));
  const wide = policyFromEnv({
    METAOPS_DEBUG_IMAGE_ALLOWLIST: '*',
    METAOPS_DEBUG_EXCLUDED_NAMESPACES: 'kube-system, secure',
    METAOPS_DEBUG_PROFILES: 'general,sysadmin,bogus',
  });
  t.same(wide, { allowlist: ['*'], excludedNamespaces: ['kube-system', 'secure'], profiles: ['general', 'sysadmin'] });
});

t.test('profiles and target container', async (t) => {
  const spec = (p: string) => parser.parse({ label: 'a=b', image: 'busybox', securityProfile: p, targetContainerName: 'app' });
  const c = ephemeralContainer('x', (spec('restricted') as any).spec, pod('p', {}));
  t.match(c, { name: 'debug-x', image: 'busybox', targetContainerName: 'app', securityContext: { runAsNonRoot: true } });
  t.notOk('securityContext' in ephemeralContainer('x', (spec('baseline') as any).spec, pod('p', {})));
  const noTarget = ephemeralContainer('x', (spec('general') as any).spec, { ...pod('p', {}), spec: { containers: [{ name: 'other' }] } });
  t.notOk('targetContainerName' in noTarget, 'a target the pod does not have is not asked for');
});

t.test('a matching pod gets one container per matching tool, once', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(tool('b', { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] }, image: 'alpine' }))
    .put(tool('c', { label: 'app=db', image: 'busybox' }))
    .put(tool('d', { label: 'app=web', image: 'busybox' }, 'elsewhere'))
    .put(pod('web-1', { app: 'web' }));
  const res = await syncFrom(api, ['dbg', 'web-1']);
  t.equal(api.patches.length, 1);
  t.same(api.patches[0]!.containers.map((c) => c.name), ['debug-a', 'debug-b']);
  t.same(api.patches[0]!.precondition, { uid: 'uid-web-1', resourceVersion: api.patches[0]!.precondition!.resourceVersion });
  const record = JSON.parse(res.annotations![INJECTIONS]!);
  t.same(record, { a: { container: 'debug-a', image: 'busybox', at: FIXED_NOW.toISOString() }, b: { container: 'debug-b', image: 'alpine', at: FIXED_NOW.toISOString() } });
  t.notOk(res.resyncAfterSeconds);
  t.notOk(FAILURES in res.annotations!);

  // The pod now has them (and the annotation, as Metacontroller writes it): nothing is asked or added again.
  const stored = api.stored('Pod', 'dbg', 'web-1');
  stored.metadata.annotations = res.annotations;
  api.put(stored);
  const gets = api.gets.length;
  for (let i = 0; i < 3; i++) {
    const again = await syncFrom(api, ['dbg', 'web-1'], ANY, undefined, new Date(FIXED_NOW.getTime() + 60_000 * (i + 1)));
    t.same(again, res, 'the same answer, the injection time kept');
  }
  t.equal(api.patches.length, 1, 'no second PATCH');
  t.equal(api.gets.length, gets, 'at rest, no call to the API server at all');
});

t.test('inject once: a request that lags behind the API server adds nothing twice', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  const before = wirePod(api.stored('Pod', 'dbg', 'web-1'));
  await syncFrom(api, ['dbg', 'web-1']);
  t.equal(api.patches.length, 1);
  // Metacontroller's next request still carries the pod as it was before the PATCH.
  const res = await syncPod({ controller: {}, object: before, related: wire([api.stored('PodBuggerTool', 'dbg', 'a')]) }, { kube: api, policy: ANY, now: FIXED_NOW });
  t.equal(api.patches.length, 1, 'the re-read pod has the container: no second PATCH');
  t.same(JSON.parse(res.annotations![INJECTIONS]!), { a: { container: 'debug-a', image: 'busybox', at: FIXED_NOW.toISOString() } });
  t.notOk(res.resyncAfterSeconds);

  // A container of that name added by hand, with another image: kept, recorded with the image it has.
  const byHand = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('p', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'alpine' }] }));
  const r2 = await syncFrom(byHand, ['dbg', 'p']);
  t.equal(byHand.patches.length, 0);
  t.equal(byHand.gets.length, 0);
  t.same(JSON.parse(r2.annotations![INJECTIONS]!), { a: { container: 'debug-a', image: 'alpine', at: FIXED_NOW.toISOString() } });

  // Two tools, one already there: only the other one is added.
  const half = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(tool('b', { label: 'app=web', image: 'busybox' }))
    .put(pod('p', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] }));
  await syncFrom(half, ['dbg', 'p']);
  t.same(half.patches.map((p) => p.containers.map((c) => c.name)), [['debug-b']]);
});

t.test('the request is not trusted: the pod and the tools are read again from the API server', async (t) => {
  // The API server's tool: busybox, general profile. The request claims a privileged tool with another image.
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox:1.36' })).put(pod('web-1', { app: 'web' }));
  const lie = tool('a', { label: 'app=web', image: 'evil.example/rootkit', securityProfile: 'sysadmin', command: ['sh', '-c', 'pwn'] });
  const policy: DebugPolicy = { ...ANY, profiles: ['general', 'sysadmin'] };
  await syncPod({ controller: {}, object: wirePod(api.stored('Pod', 'dbg', 'web-1')), related: wire([lie]) }, { kube: api, policy, now: FIXED_NOW });
  t.equal(api.patches.length, 1);
  const c = api.patches[0]!.containers[0];
  t.equal(c.image, 'busybox:1.36', "the API server's image");
  t.same(c.securityContext, { capabilities: { add: ['SYS_PTRACE'] } }, "the API server's profile");
  t.notOk('command' in c);
  t.ok(api.gets.includes('debug.metaops.dev/v1alpha1 podbuggertools dbg/a'));
  t.ok(api.gets.includes('v1 pods dbg/web-1'));

  // A tool that exists only in the request: nothing.
  const none = new FakeApi().put(pod('web-1', { app: 'web' }));
  const r = await syncPod({ controller: {}, object: wirePod(none.stored('Pod', 'dbg', 'web-1')), related: wire([tool('ghost', { label: 'app=web', image: 'busybox' })]) }, { kube: none, policy: ANY, now: FIXED_NOW });
  t.equal(none.patches.length, 0);
  t.same(r, { attachments: [] }, 'no record, no failure');

  // The request's pod carries the label, the API server's does not: nothing.
  const relabelled = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'db' }));
  await syncPod({ controller: {}, object: pod('web-1', { app: 'web' }), related: wire([relabelled.stored('PodBuggerTool', 'dbg', 'a')]) }, { kube: relabelled, policy: ANY, now: FIXED_NOW });
  t.equal(relabelled.patches.length, 0);

  // The API server's tool selects other pods, or is being deleted: nothing.
  const moved = new FakeApi().put(tool('a', { label: 'app=db', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  await syncPod({ controller: {}, object: pod('web-1', { app: 'web' }), related: wire([tool('a', { label: 'app=web', image: 'busybox' })]) }, { kube: moved, policy: ANY, now: FIXED_NOW });
  t.equal(moved.patches.length, 0);
  const dying = tool('a', { label: 'app=web', image: 'busybox' });
  dying.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  const deleting = new FakeApi().put(dying).put(pod('web-1', { app: 'web' }));
  await syncPod({ controller: {}, object: pod('web-1', { app: 'web' }), related: wire([tool('a', { label: 'app=web', image: 'busybox' })]) }, { kube: deleting, policy: ANY, now: FIXED_NOW });
  t.equal(deleting.patches.length, 0);

  // The API server's pod is being deleted, the request's is not: nothing.
  const leaving = pod('web-1', { app: 'web' });
  leaving.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  const podDying = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(leaving);
  await syncPod({ controller: {}, object: pod('web-1', { app: 'web' }), related: wire([podDying.stored('PodBuggerTool', 'dbg', 'a')]) }, { kube: podDying, policy: ANY, now: FIXED_NOW });
  t.equal(podDying.patches.length, 0);

  // The pod is gone, or is another pod of the same name now: nothing, or a refused (409) PATCH retried later.
  const gone = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  const rg = await syncPod({ controller: {}, object: pod('web-1', { app: 'web' }), related: wire([gone.stored('PodBuggerTool', 'dbg', 'a')]) }, { kube: gone, policy: ANY, now: FIXED_NOW });
  t.equal(gone.patches.length, 0);
  t.same(rg, { attachments: [] });
  const raced = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  const real = raced.get.bind(raced);
  raced.get = async (...args) => {
    const obj = await real(...args);
    if (args[1] === 'pods') raced.put(raced.stored('Pod', 'dbg', 'web-1')); // changed between the GET and the PATCH
    return obj;
  };
  const rr = await syncFrom(raced, ['dbg', 'web-1']);
  t.equal(raced.stored('Pod', 'dbg', 'web-1').spec.ephemeralContainers, undefined, 'the precondition held the PATCH back');
  t.same(JSON.parse(rr.annotations![FAILURES]!), { a: { container: 'debug-a', reason: 'Conflict' } });
  t.equal(rr.resyncAfterSeconds, 30);
});

t.test('excluded namespaces are never touched', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }, 'kube-system')).put(pod('dns', { app: 'web' }, {}, 'kube-system'));
  const res = await syncFrom(api, ['kube-system', 'dns'], { ...ANY, excludedNamespaces: DEFAULT_POLICY.excludedNamespaces });
  t.same(res, { attachments: [] });
  t.equal(api.patches.length + api.gets.length, 0, 'not even a read');
  const custom = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  await syncFrom(custom, ['dbg', 'web-1'], { ...ANY, excludedNamespaces: ['kube-system', 'dbg'] });
  t.equal(custom.patches.length, 0);
  await syncFrom(custom, ['dbg', 'web-1'], { ...ANY, excludedNamespaces: [] });
  t.equal(custom.patches.length, 1, 'the same pod outside the exclusion is injected');
});

t.test('privileged profiles and images outside the allowlist inject nothing unless the server allows them', async (t) => {
  for (const profile of ['sysadmin', 'netadmin']) {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox', securityProfile: profile })).put(pod('web-1', { app: 'web' }));
    t.same(await syncFrom(api, ['dbg', 'web-1'], DEFAULT_POLICY), { attachments: [] }, `${profile} refused by default`);
    t.equal(api.patches.length, 0);
    await syncFrom(api, ['dbg', 'web-1'], { ...DEFAULT_POLICY, profiles: [...DEFAULT_POLICY.profiles, profile as 'sysadmin'] });
    t.equal(api.patches.length, 1, `${profile} when enabled`);
  }
  const evil = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox.evil.example/pwn' })).put(pod('web-1', { app: 'web' }));
  t.same(await syncFrom(evil, ['dbg', 'web-1'], { ...DEFAULT_POLICY, allowlist: ['busybox*'] }), { attachments: [] });
  t.equal(evil.patches.length + evil.gets.length, 0);
  // The request's tool says busybox, the API server's a refused image: the re-read decides.
  const swapped = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox.evil.example/pwn' })).put(pod('web-1', { app: 'web' }));
  await syncPod({ controller: {}, object: pod('web-1', { app: 'web' }), related: wire([tool('a', { label: 'app=web', image: 'busybox' })]) }, { kube: swapped, policy: DEFAULT_POLICY, now: FIXED_NOW });
  t.equal(swapped.patches.length, 0);
});

t.test('tools and pods named constructor, __proto__ or toString, and a label key __proto__, work', async (t) => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
  const api = new FakeApi();
  for (const n of names) api.put(tool(n, { label: '__proto__=yes', image: 'busybox' }));
  api.put(pod('constructor', { __proto__: 'yes' } as any));
  // An own label `__proto__`, as JSON gives it.
  const stored = api.stored('Pod', 'dbg', 'constructor');
  stored.metadata.labels = JSON.parse('{"__proto__":"yes"}');
  t.ok(Object.hasOwn(stored.metadata.labels, '__proto__'));
  const res = await syncFrom(api, ['dbg', 'constructor']);
  t.same(api.patches.map((p) => p.containers.map((c) => c.name).sort()), [['debug-constructor', 'debug-hasownproperty', 'debug-proto', 'debug-tostring']]);
  const record = JSON.parse(res.annotations![INJECTIONS]!);
  t.same(Object.keys(record).sort(), [...names].sort());
  t.equal(record['__proto__'].container, 'debug-proto');

  // Next sync, with the containers and the annotation: quiet, and the record intact.
  const p = api.stored('Pod', 'dbg', 'constructor');
  p.metadata.annotations = res.annotations;
  api.put(p);
  const again = await syncFrom(api, ['dbg', 'constructor'], ANY, undefined, new Date(FIXED_NOW.getTime() + 1000));
  t.same(again, res);
  t.equal(api.patches.length, 1);

  // A pod without the label is not selected by a `__proto__` selector.
  const plain = new FakeApi().put(tool('constructor', { label: '__proto__=yes', image: 'busybox' })).put(pod('toString', { app: 'web' }));
  t.same(await syncFrom(plain, ['dbg', 'toString']), { attachments: [] });
  t.equal(plain.patches.length, 0);

  // The tool's status: the pod is counted, whatever the names.
  for (const n of names) {
    const parent = JSON.parse(JSON.stringify(api.stored('PodBuggerTool', 'dbg', n)));
    const status = syncTool({ controller: {}, parent, related: wire([api.stored('Pod', 'dbg', 'constructor')]) }, ANY, FIXED_NOW).status as any;
    t.match(status, { matched: 1, injected: 1, lastInjected: ['constructor'] }, `tool ${n}`);
  }
});

t.test('a failed PATCH: recorded on the pod with a stable reason, logged with the names, retried', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  api.failPatch = new KubeError(403, 'PATCH /api/v1/...: 403 pods "web-1" is forbidden: User "x" cannot patch resource', 'Forbidden');
  const log = new Log();
  const failed = await syncFrom(api, ['dbg', 'web-1'], ANY, log);
  t.equal(failed.resyncAfterSeconds, 30);
  t.notOk(INJECTIONS in failed.annotations!, 'a failed injection is not recorded as done');
  t.same(JSON.parse(failed.annotations![FAILURES]!), { a: { container: 'debug-a', reason: 'Forbidden' } });
  t.equal(log.lines.length, 1);
  t.match(log.lines[0]!.msg, /PodBuggerTool dbg\/a: .*debug-a.* pod dbg\/web-1: Forbidden/);
  t.match(log.lines[0]!.obj, { podbuggertool: 'dbg/a', pod: 'dbg/web-1', reason: 'Forbidden', err: /forbidden/ });

  // An event on the tool, the pod related, with the condition's reason.
  t.equal(api.events.length, 1);
  t.match(api.events[0], {
    namespace: 'dbg',
    name: /^a\.[0-9a-f]{16}$/,
    type: 'Warning',
    reason: 'InjectionFailed',
    note: 'could not add debug-a to pod dbg/web-1: Forbidden',
    regarding: { apiVersion: 'debug.metaops.dev/v1alpha1', kind: 'PodBuggerTool', namespace: 'dbg', name: 'a' },
    related: { apiVersion: 'v1', kind: 'Pod', namespace: 'dbg', name: 'web-1', uid: 'uid-web-1' },
  });
  t.equal(api.events[0]!.eventTime.toISOString(), FIXED_NOW.toISOString());

  // The same failure again: the same answer (quiet), whatever the error text, and no second event.
  const p = api.stored('Pod', 'dbg', 'web-1');
  p.metadata.annotations = failed.annotations;
  api.put(p);
  api.failPatch = new KubeError(403, 'another text entirely', 'Forbidden');
  t.same(await syncFrom(api, ['dbg', 'web-1'], ANY, log, new Date(FIXED_NOW.getTime() + 30_000)), failed);
  t.equal(api.events.length, 1, 'one event per failure, not per retry');


  // A failure to read is a failure too; an unreachable API server has its own reason (and no event: it could
  // not be recorded either).
  api.failGet = new Error('connect ECONNREFUSED 127.0.0.1:6443');
  const unreachable = await syncFrom(api, ['dbg', 'web-1'], ANY, log);
  t.same(JSON.parse(unreachable.annotations![FAILURES]!), { a: { container: 'debug-a', reason: 'Unreachable' } });
  t.equal(api.events.length, 1);
  api.failGet = undefined;

  // Another failure: another event, under another name; the uid is the API server's tool's.
  const stored = api.stored('PodBuggerTool', 'dbg', 'a');
  stored.metadata.uid = 'uid-tool-a';
  api.put(stored);
  api.failPatch = new KubeError(422, 'invalid', 'Invalid');
  await syncFrom(api, ['dbg', 'web-1'], ANY, log);
  t.equal(api.events.length, 2);
  t.match(api.events[1], { note: 'could not add debug-a to pod dbg/web-1: Invalid', regarding: { uid: 'uid-tool-a' } });
  t.not(api.events[1]!.name, api.events[0]!.name);

  // Events that cannot be recorded are logged; the answer is the same.
  const quiet = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  quiet.failPatch = new KubeError(403, 'x', 'Forbidden');
  quiet.failEvent = new KubeError(403, 'events is forbidden', 'Forbidden');
  const qlog = new Log();
  t.same(await syncFrom(quiet, ['dbg', 'web-1'], ANY, qlog), failed);
  t.match(qlog.lines[1]!.msg, /PodBuggerTool dbg\/a: could not record the event InjectionFailed: Forbidden/);

  // It works now: recorded, and the failure removed.
  api.failPatch = undefined;
  const ok = await syncFrom(api, ['dbg', 'web-1'], ANY, log);
  t.equal(ok.annotations![FAILURES], null, 'the failure annotation is deleted');
  t.ok(JSON.parse(ok.annotations![INJECTIONS]!).a);
  t.notOk(ok.resyncAfterSeconds);
});

t.test('terminating pods are left alone', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  const gone = pod('p', { app: 'web' });
  gone.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  api.put(gone);
  t.same(await syncFrom(api, ['dbg', 'p']), { attachments: [] });
  t.equal(api.patches.length + api.gets.length, 0);
});

const injectedAt = (tool: string, image: string, at: string) => ({ [INJECTIONS]: JSON.stringify({ [tool]: { container: `debug-${tool}`, image, at } }) });

t.test('tool status: matched, injected, last injected, policy', async (t) => {
  const p1 = pod('p1', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] });
  p1.metadata.annotations = injectedAt('a', 'busybox', '2026-01-01T00:00:00Z');
  const p2 = pod('p2', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] });
  p2.metadata.annotations = injectedAt('a', 'busybox', '2026-01-02T00:00:00Z');
  const p3 = pod('p3', { app: 'web' });
  const other = pod('p4', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] }, 'elsewhere');
  const req = { controller: {}, parent: tool('a', { label: 'app=web', image: 'busybox' }) as any, related: wire([p1, p2, p3, other]) };
  const res = syncTool(req, DEFAULT_POLICY, FIXED_NOW);
  t.match(res.status, { matched: 3, injected: 2, outdated: 0, failed: 0, lastInjected: ['p2', 'p1'], containerName: 'debug-a' });
  t.match((res.status as any).conditions[0], { type: 'Ready', status: 'True', reason: 'Injecting', message: '2 of 3 matching pods carry debug-a' });
  t.same(res.children, []);
  const refused = syncTool(req, { ...DEFAULT_POLICY, allowlist: ['alpine*'] }, FIXED_NOW);
  t.match((refused.status as any).conditions[0], { status: 'False', reason: 'ImageNotAllowed' });
  const privileged = syncTool({ ...req, parent: tool('a', { label: 'app=web', image: 'busybox', securityProfile: 'sysadmin' }) as any }, DEFAULT_POLICY, FIXED_NOW);
  t.match((privileged.status as any).conditions[0], { status: 'False', reason: 'ProfileNotAllowed', message: /sysadmin/ });
  const excluded = syncTool({ ...req, parent: tool('a', { label: 'app=web', image: 'busybox' }, 'kube-system') as any }, DEFAULT_POLICY, FIXED_NOW);
  t.match((excluded.status as any).conditions[0], { status: 'False', reason: 'NamespaceExcluded', message: /kube-system/ });
});

t.test('a tool whose image changed does not count old-image pods as carrying its container', async (t) => {
  const old = pod('old', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox:1.35' }] });
  old.metadata.annotations = injectedAt('a', 'busybox:1.35', '2026-01-03T00:00:00Z');
  const fresh = pod('fresh', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox:1.36' }] });
  fresh.metadata.annotations = injectedAt('a', 'busybox:1.36', '2026-01-01T00:00:00Z');
  const res = syncTool({ controller: {}, parent: tool('a', { label: 'app=web', image: 'busybox:1.36' }) as any, related: wire([old, fresh]) }, DEFAULT_POLICY, FIXED_NOW);
  t.match(res.status, { matched: 2, injected: 1, outdated: 1, lastInjected: ['fresh'] });
  t.match((res.status as any).conditions[0].message, /1 of 2 matching pods carry debug-a; 1 carry it with an older image/);
});

t.test('a failure to act is a condition on the tool, naming the pods', async (t) => {
  const failing = (name: string, reason: string) => {
    const p = pod(name, { app: 'web' });
    p.metadata.annotations = { [FAILURES]: JSON.stringify({ a: { container: 'debug-a', reason }, b: { container: 'debug-b', reason: 'Invalid' } }) };
    return p;
  };
  const ok = pod('ok', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] });
  const parent = tool('a', { label: 'app=web', image: 'busybox' }) as any;
  const res = syncTool({ controller: {}, parent, related: wire([failing('web-2', 'Forbidden'), ok, failing('web-1', 'Conflict')]) }, DEFAULT_POLICY, FIXED_NOW);
  t.match(res.status, { matched: 3, injected: 1, failed: 2 });
  t.match((res.status as any).conditions[0], {
    type: 'Ready',
    status: 'False',
    reason: 'InjectionFailed',
    message: 'debug-a could not be added to 2 of 3 matching pods: web-1 (Conflict), web-2 (Forbidden); retried every 30s',
  });
  // Quiet: the same pods give the same status, the transition time kept.
  parent.status = res.status;
  const again = syncTool({ controller: {}, parent, related: wire([failing('web-2', 'Forbidden'), ok, failing('web-1', 'Conflict')]) }, DEFAULT_POLICY, new Date(FIXED_NOW.getTime() + 60_000));
  t.same(again.status, res.status);
  // Once the pods carry the container, a stale failure record does not count.
  const healed = failing('web-1', 'Forbidden');
  healed.spec.ephemeralContainers = [{ name: 'debug-a', image: 'busybox' }];
  const r2 = syncTool({ controller: {}, parent: tool('a', { label: 'app=web', image: 'busybox' }) as any, related: wire([healed]) }, DEFAULT_POLICY, FIXED_NOW);
  t.match((r2.status as any).conditions[0], { status: 'True', reason: 'Injecting' });
});

t.test('customize hooks', async (t) => {
  t.same(customizePod(), { relatedResources: [{ apiVersion: 'debug.metaops.dev/v1alpha1', resource: 'podbuggertools' }] });
  t.same(customizeTool({ controller: {}, parent: tool('a', { label: 'app=web', image: 'x' }) as any }), {
    relatedResources: [{ apiVersion: 'v1', resource: 'pods', labelSelector: { matchLabels: { app: 'web' } } }],
  });
  t.same(customizeTool({ controller: {}, parent: tool('a', { image: 'x' }) as any }), { relatedResources: [] });
});
