import t from 'tap';
import YAML from 'yaml';
import { operators as hooks } from '../main/operators.js';
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
import { customizeTool, MAX_PER_SYNC, type ToolHookLog } from '../hooks/podbuggertool/sync.js';
import { toolSync as syncTool } from './fixtures/hooks.js';
import { KubeError, type KubeApi, type KubeEvent, type Precondition } from '../lib/kube.js';
import type { KubeObject, ObjectMap } from '../lib/metacontroller.js';
import { renderManifests } from '../scripts/render-manifests.js';
import { FIXED_NOW } from './fixtures/requests.js';

const ANY: DebugPolicy = { ...DEFAULT_POLICY, allowlist: ['*'] };

const tool = (name: string, spec: Record<string, unknown>, namespace = 'dbg'): KubeObject => ({
  apiVersion: 'debug.metaops.dev/v1alpha1',
  kind: 'PodBuggerTool',
  metadata: { name, namespace, generation: 1, uid: `uid-tool-${name}` },
  spec,
});
const pod = (
  name: string,
  labels: Record<string, string>,
  extra: Record<string, unknown> = {},
  namespace = 'dbg',
): any => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels, uid: `uid-${name}`, resourceVersion: '1' },
  spec: { containers: [{ name: 'app', image: 'nginx' }], ...extra },
});

/**
 * An observed-objects map as Metacontroller sends it, through JSON text: a pod called `__proto__` is then an
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
const copy = (x: any) => JSON.parse(JSON.stringify(x));

/** The API server as far as the tool hook uses it: pods and tools to read, the ephemeral-container PATCH. */
class FakeApi implements KubeApi {
  objects = new Map<string, any>();
  gets: string[] = [];
  patches: Array<{ ns: string; pod: string; containers: any[]; precondition: Precondition | undefined }> = [];
  failPatch: Error | undefined;
  failGet: Error | undefined;
  failEvent: Error | undefined;
  events: KubeEvent[] = [];
  private rv = 10;

  /** Stores an object as the API server has it (the hook's truth, whatever the request says). */
  put(obj: any): this {
    const c = structuredClone(obj);
    c.metadata.resourceVersion = String(++this.rv);
    this.objects.set(`${c.kind}/${c.metadata.namespace}/${c.metadata.name}`, c);
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
    if (precondition?.resourceVersion && precondition.resourceVersion !== p.metadata.resourceVersion)
      throw new KubeError(409, 'rv', 'Conflict');
    const have = (p.spec.ephemeralContainers ??= []);
    for (const c of containers) {
      if (have.some((x: any) => x.name === c.name)) throw new KubeError(422, 'duplicate', 'Invalid');
      have.push(c);
    }
    this.put(p);
  }
  /** Metacontroller writes the status the hook answered. */
  setStatus(ns: string, name: string, status: unknown): void {
    const tl = this.stored('PodBuggerTool', ns, name);
    tl.status = structuredClone(status);
    this.put(tl);
  }
}

class Log implements ToolHookLog {
  lines: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  warn(obj: Record<string, unknown>, msg: string) {
    this.lines.push({ obj, msg });
  }
}

/**
 * A sync as Metacontroller would send it: the tool and, as related objects, the pods of the API server. Every pod
 * of every namespace is listed (more than Metacontroller would send), so that the hook's own selection is tested.
 */
async function syncFrom(
  api: FakeApi,
  toolKey: [string, string],
  policy: DebugPolicy = ANY,
  log?: Log,
  now = FIXED_NOW,
) {
  const [ns, name] = toolKey;
  const pods = [...api.objects.values()].filter((o) => o.kind === 'Pod');
  return syncTool(
    { controller: {}, parent: copy(api.stored('PodBuggerTool', ns, name)), children: {}, related: wire(pods) },
    { kube: api, policy, now, ...(log ? { log } : {}) },
  );
}
/** Syncs and writes the answered status back, as Metacontroller does. */
async function syncAndApply(
  api: FakeApi,
  toolKey: [string, string],
  policy: DebugPolicy = ANY,
  log?: Log,
  now = FIXED_NOW,
) {
  const res = await syncFrom(api, toolKey, policy, log, now);
  api.setStatus(toolKey[0], toolKey[1], res.status);
  return res;
}
const ephemeralNames = (api: FakeApi, ns: string, name: string) =>
  ((api.stored('Pod', ns, name).spec.ephemeralContainers ?? []) as any[]).map((c) => c.name);

t.test('container names are valid DNS-1123 labels, whatever the tool is called', async (t) => {
  t.equal(containerName('busybox'), 'debug-busybox');
  t.match(containerName('My.Tool_v2'), /^debug-my-tool-v2-[0-9a-f]{8}$/, 'a name that is not a label keeps a hash');
  t.not(containerName('x.y'), containerName('x-y'), 'x.y and x-y never share a container (second attack review F2)');
  t.equal(containerName('x-y'), 'debug-x-y');
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
  t.same(parseImage('index.docker.io/library/busybox:1.36'), {
    registry: 'docker.io',
    repository: 'library/busybox',
    tag: '1.36',
  });
  t.same(parseImage('busybox.evil.example/pwn'), { registry: 'busybox.evil.example', repository: 'pwn' });
  t.same(parseImage('localhost:5000/a/b:c'), { registry: 'localhost:5000', repository: 'a/b', tag: 'c' });
  t.same(parseImage(`ghcr.io/o/d@sha256:${'a'.repeat(64)}`), {
    registry: 'ghcr.io',
    repository: 'o/d',
    digest: `sha256:${'a'.repeat(64)}`,
  });
  for (const bad of [
    '',
    'BusyBox',
    'busybox:',
    'a//b',
    '../x',
    'busybox:1 2',
    'ghcr.io/o/d@sha256:short',
    'evil.example:99999999x/a',
  ]) {
    t.equal(parseImage(bad), undefined, `${JSON.stringify(bad)} is not an image`);
  }
});

t.test('the allowlist matches registry and repository, never a string prefix across a host', async (t) => {
  const list = parseList(' busybox*, ghcr.io/org/debug:1 ,')!;
  t.same(list, ['busybox*', 'ghcr.io/org/debug:1']);
  t.equal(parseList(''), undefined);
  // busybox*: Docker Hub's busybox, any tag or digest.
  for (const ok of [
    'busybox',
    'busybox:1.36',
    'docker.io/library/busybox:1.36',
    'index.docker.io/library/busybox',
    `busybox@sha256:${'b'.repeat(64)}`,
  ]) {
    t.ok(imageAllowed(ok, list), `${ok} allowed`);
  }
  for (const no of [
    'busybox.evil.example/pwn',
    'busybox.evil.example/library/busybox',
    'busyboxevil:1',
    'evil/busybox',
    'docker.io/busybox-x',
    'busybox:1.36/x',
    'ghcr.io/busybox',
  ]) {
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
  t.notOk(
    imageAllowed(`nicolaka/netshoot@sha256:${'e'.repeat(64)}`, ['nicolaka/netshoot:latest']),
    'a digest alone is not :latest',
  );

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
  t.same(defaults, {
    allowlist: ['busybox'],
    excludedNamespaces: ['kube-system'],
    profiles: ['general', 'baseline', 'restricted'],
  });
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
  const spec = (p: string) =>
    parser.parse({ label: 'a=b', image: 'busybox', securityProfile: p, targetContainerName: 'app' });
  const c = ephemeralContainer('x', (spec('restricted') as any).spec, pod('p', {}));
  t.match(c, {
    name: 'debug-x',
    image: 'busybox',
    targetContainerName: 'app',
    securityContext: { runAsNonRoot: true },
  });
  t.notOk('securityContext' in ephemeralContainer('x', (spec('baseline') as any).spec, pod('p', {})));
  const noTarget = ephemeralContainer('x', (spec('general') as any).spec, {
    ...pod('p', {}),
    spec: { containers: [{ name: 'other' }] },
  });
  t.notOk('targetContainerName' in noTarget, 'a target the pod does not have is not asked for');
});

t.test(
  'no hook is called about a pod no tool selects: no DecoratorController on pods, one CompositeController on the tools',
  async (t) => {
    for (const def of hooks) {
      if (def.type === 'decorator')
        t.notOk(
          def.resources.some((r) => r.resource === 'pods'),
          `${def.name} decorates no pods`,
        );
    }
    for (const [path, text] of renderManifests()) {
      if (!path.startsWith('controllers/')) continue;
      const doc = YAML.parse(text);
      if (doc.kind === 'DecoratorController')
        t.notOk(
          doc.spec.resources.some((r: any) => r.resource === 'pods'),
          `${path}: no decorator on pods`,
        );
    }
    const pbt = YAML.parse(renderManifests().get('controllers/metaops-podbuggertool.yaml')!);
    t.match(pbt, {
      kind: 'CompositeController',
      spec: {
        parentResource: { apiVersion: 'debug.metaops.dev/v1alpha1', resource: 'podbuggertools' },
        childResources: [],
      },
    });
    t.equal(pbt.spec.hooks.sync.webhook.path, '/hooks/podbuggertool/sync');
    t.equal(pbt.spec.hooks.customize.webhook.path, '/hooks/podbuggertool/customize');
    const def = hooks.find((h) => h.name === 'podbuggertool')!;
    t.equal(def.effects, true, 'the tool hook acts on pods: it serves only authenticated callers');
    t.notOk(
      hooks.some((h) => h.name === 'podbuggertool-status'),
      'no second controller on the tools',
    );
  },
);

t.test(
  "the tool's sync injects into the pods it selects, never into one it does not select even if the request lists it",
  async (t) => {
    const api = new FakeApi()
      .put(tool('a', { label: 'app=web', image: 'busybox' }))
      .put(pod('web-1', { app: 'web' }))
      .put(pod('web-2', { app: 'web' }))
      .put(pod('db-1', { app: 'db' }))
      .put(pod('web-x', { app: 'web' }, {}, 'elsewhere'));
    const res = await syncAndApply(api, ['dbg', 'a']);
    t.same(api.patches.map((p) => `${p.ns}/${p.pod}`).sort(), ['dbg/web-1', 'dbg/web-2']);
    t.same(ephemeralNames(api, 'dbg', 'web-1'), ['debug-a']);
    t.same(ephemeralNames(api, 'dbg', 'db-1'), [], 'a pod of the namespace the tool does not select');
    t.same(ephemeralNames(api, 'elsewhere', 'web-x'), [], 'a matching pod of another namespace');
    t.notOk(
      api.gets.some((g) => g.includes('db-1') || g.includes('web-x')),
      'not even read',
    );
    for (const p of api.patches)
      t.same(p.precondition, { uid: `uid-${p.pod}`, resourceVersion: p.precondition!.resourceVersion });
    t.match(res.status, {
      matched: 2,
      injected: 2,
      outdated: 0,
      failed: 0,
      failures: [],
      lastInjected: ['web-1', 'web-2'],
      containerName: 'debug-a',
    });
    t.match((res.status as any).conditions[0], {
      type: 'Ready',
      status: 'True',
      reason: 'Injecting',
      message: '2 of 2 matching pods carry debug-a',
    });
    t.same(res.children, []);
    t.notOk(res.resyncAfterSeconds);
    t.notOk(JSON.stringify(res).includes('debug.metaops.dev/injections'), 'no pod annotation');

    // Two tools selecting the same pod: each adds its own container, in its own sync.
    api.put(
      tool('b', {
        selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] },
        image: 'alpine',
      }),
    );
    await syncAndApply(api, ['dbg', 'b']);
    t.same(ephemeralNames(api, 'dbg', 'web-1'), ['debug-a', 'debug-b']);

    // At rest: the same answer, whatever the time, and no call to the API server at all.
    const gets = api.gets.length;
    const patches = api.patches.length;
    const rest = await syncFrom(api, ['dbg', 'a']);
    for (let i = 0; i < 3; i++) {
      t.same(
        await syncFrom(api, ['dbg', 'a'], ANY, undefined, new Date(FIXED_NOW.getTime() + 60_000 * (i + 1))),
        rest,
        'quiet',
      );
    }
    t.same(rest.status, res.status);
    t.equal(api.patches.length, patches, 'no second PATCH');
    t.equal(api.gets.length, gets, 'no read');

    // A new matching pod: Metacontroller syncs the tool again (related pod added); only the new pod is touched.
    api.put(pod('web-3', { app: 'web' }));
    const more = await syncAndApply(api, ['dbg', 'a'], ANY, undefined, new Date(FIXED_NOW.getTime() + 1000));
    t.same(
      api.patches.slice(patches).map((p) => p.pod),
      ['web-3'],
    );
    t.match(more.status, { matched: 3, injected: 3, lastInjected: ['web-3', 'web-1', 'web-2'] });
  },
);

t.test('inject once: a request that lags behind the API server adds nothing twice', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  const lagging = {
    controller: {},
    parent: copy(api.stored('PodBuggerTool', 'dbg', 'a')),
    children: {},
    related: wire([api.stored('Pod', 'dbg', 'web-1')]),
  };
  const first = await syncTool(copy(lagging), { kube: api, policy: ANY, now: FIXED_NOW });
  t.equal(api.patches.length, 1);
  // Metacontroller's next request still carries the pod as it was before the PATCH.
  const res = await syncTool(copy(lagging), { kube: api, policy: ANY, now: FIXED_NOW });
  t.equal(api.patches.length, 1, 'the re-read pod has the container: no second PATCH');
  t.match(res.status, { matched: 1, injected: 1, failed: 0 });
  t.same(res.status, first.status);
  t.notOk(res.resyncAfterSeconds);

  // A container of that name added by hand, with another image: kept, counted as outdated, nothing asked.
  const byHand = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(pod('p', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'alpine' }] }));
  const r2 = await syncFrom(byHand, ['dbg', 'a']);
  t.equal(byHand.patches.length + byHand.gets.length, 0);
  t.match(r2.status, { matched: 1, injected: 0, outdated: 1 });

  // Another tool's container on the pod does not count.
  const other = new FakeApi()
    .put(tool('b', { label: 'app=web', image: 'busybox' }))
    .put(pod('p', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox' }] }));
  await syncFrom(other, ['dbg', 'b']);
  t.same(
    other.patches.map((p) => p.containers.map((c) => c.name)),
    [['debug-b']],
  );
});

t.test('the request is not trusted: the tool and the pod are read again from the API server', async (t) => {
  // The API server's tool: busybox, general profile. The request claims a privileged tool with another image.
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox:1.36' }))
    .put(pod('web-1', { app: 'web' }));
  const lie = tool('a', {
    label: 'app=web',
    image: 'evil.example/rootkit',
    securityProfile: 'sysadmin',
    command: ['sh', '-c', 'pwn'],
  });
  const policy: DebugPolicy = { ...ANY, profiles: ['general', 'sysadmin'] };
  const req = (parent: KubeObject, pods: KubeObject[]) => ({
    controller: {},
    parent: copy(parent),
    children: {},
    related: wire(pods),
  });
  await syncTool(req(lie, [api.stored('Pod', 'dbg', 'web-1')]), { kube: api, policy, now: FIXED_NOW });
  t.equal(api.patches.length, 1);
  const c = api.patches[0]!.containers[0];
  t.equal(c.image, 'busybox:1.36', "the API server's image");
  t.same(c.securityContext, { capabilities: { add: ['SYS_PTRACE'] } }, "the API server's profile");
  t.notOk('command' in c);
  t.ok(api.gets.includes('debug.metaops.dev/v1alpha1 podbuggertools dbg/a'));
  t.ok(api.gets.includes('v1 pods dbg/web-1'));

  // A tool that exists only in the request: nothing.
  const none = new FakeApi().put(pod('web-1', { app: 'web' }));
  const r = await syncTool(
    req(tool('ghost', { label: 'app=web', image: 'busybox' }), [none.stored('Pod', 'dbg', 'web-1')]),
    { kube: none, policy: ANY, now: FIXED_NOW },
  );
  t.equal(none.patches.length, 0);
  t.match(r.status, { failed: 0, failures: [] }, 'no failure');

  // Another tool of the same name now (another uid): nothing; the next sync is about it.
  const recreated = new FakeApi()
    .put({
      ...tool('a', { label: 'app=web', image: 'busybox' }),
      metadata: { name: 'a', namespace: 'dbg', uid: 'other' },
    })
    .put(pod('web-1', { app: 'web' }));
  await syncTool(req(tool('a', { label: 'app=web', image: 'busybox' }), [recreated.stored('Pod', 'dbg', 'web-1')]), {
    kube: recreated,
    policy: ANY,
    now: FIXED_NOW,
  });
  t.equal(recreated.patches.length, 0);

  // The request's pod carries the label, the API server's does not: nothing.
  const relabelled = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(pod('web-1', { app: 'db' }));
  await syncTool(req(relabelled.stored('PodBuggerTool', 'dbg', 'a'), [pod('web-1', { app: 'web' })]), {
    kube: relabelled,
    policy: ANY,
    now: FIXED_NOW,
  });
  t.equal(relabelled.patches.length, 0);

  // The API server's tool selects other pods, or is being deleted: nothing.
  const moved = new FakeApi().put(tool('a', { label: 'app=db', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  await syncTool(req(tool('a', { label: 'app=web', image: 'busybox' }), [pod('web-1', { app: 'web' })]), {
    kube: moved,
    policy: ANY,
    now: FIXED_NOW,
  });
  t.equal(moved.patches.length, 0);
  const dying = tool('a', { label: 'app=web', image: 'busybox' });
  dying.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  const deleting = new FakeApi().put(dying).put(pod('web-1', { app: 'web' }));
  await syncTool(req(tool('a', { label: 'app=web', image: 'busybox' }), [pod('web-1', { app: 'web' })]), {
    kube: deleting,
    policy: ANY,
    now: FIXED_NOW,
  });
  t.equal(deleting.patches.length, 0);
  // The request's tool is being deleted: nothing is even read.
  const leavingTool = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(pod('web-1', { app: 'web' }));
  await syncTool(req(dying, [pod('web-1', { app: 'web' })]), { kube: leavingTool, policy: ANY, now: FIXED_NOW });
  t.equal(leavingTool.patches.length + leavingTool.gets.length, 0);

  // The API server's tool asks for a refused image: nothing.
  const swapped = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox.evil.example/pwn' }))
    .put(pod('web-1', { app: 'web' }));
  await syncTool(req(tool('a', { label: 'app=web', image: 'busybox' }), [pod('web-1', { app: 'web' })]), {
    kube: swapped,
    policy: DEFAULT_POLICY,
    now: FIXED_NOW,
  });
  t.equal(swapped.patches.length, 0);

  // The API server's pod is being deleted, the request's is not: nothing.
  const leaving = pod('web-1', { app: 'web' });
  leaving.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  const podDying = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(leaving);
  await syncTool(req(podDying.stored('PodBuggerTool', 'dbg', 'a'), [pod('web-1', { app: 'web' })]), {
    kube: podDying,
    policy: ANY,
    now: FIXED_NOW,
  });
  t.equal(podDying.patches.length, 0);

  // The pod is gone, or is another pod of the same name now: nothing, or a refused (409) PATCH retried later.
  const gone = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  const rg = await syncTool(req(gone.stored('PodBuggerTool', 'dbg', 'a'), [pod('web-1', { app: 'web' })]), {
    kube: gone,
    policy: ANY,
    now: FIXED_NOW,
  });
  t.equal(gone.patches.length, 0);
  t.match(rg.status, { matched: 1, injected: 0, failed: 0 });
  t.notOk(rg.resyncAfterSeconds);
  const raced = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  const real = raced.get.bind(raced);
  raced.get = async (...args) => {
    const obj = await real(...args);
    if (args[1] === 'pods') raced.put(raced.stored('Pod', 'dbg', 'web-1')); // changed between the GET and the PATCH
    return obj;
  };
  const rr = await syncFrom(raced, ['dbg', 'a']);
  t.equal(
    raced.stored('Pod', 'dbg', 'web-1').spec.ephemeralContainers,
    undefined,
    'the precondition held the PATCH back',
  );
  t.same((rr.status as any).failures, [{ pod: 'web-1', reason: 'Conflict' }]);
  t.equal(rr.resyncAfterSeconds, 30);
});

t.test('excluded namespaces are never touched', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }, 'kube-system'))
    .put(pod('dns', { app: 'web' }, {}, 'kube-system'));
  const res = await syncFrom(api, ['kube-system', 'a'], {
    ...ANY,
    excludedNamespaces: DEFAULT_POLICY.excludedNamespaces,
  });
  t.equal(api.patches.length + api.gets.length, 0, 'not even a read');
  t.match((res.status as any).conditions[0], { status: 'False', reason: 'NamespaceExcluded', message: /kube-system/ });
  const custom = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  await syncFrom(custom, ['dbg', 'a'], { ...ANY, excludedNamespaces: ['kube-system', 'dbg'] });
  t.equal(custom.patches.length, 0);
  await syncFrom(custom, ['dbg', 'a'], { ...ANY, excludedNamespaces: [] });
  t.equal(custom.patches.length, 1, 'the same pod outside the exclusion is injected');
});

t.test(
  'privileged profiles and images outside the allowlist inject nothing unless the server allows them',
  async (t) => {
    for (const profile of ['sysadmin', 'netadmin']) {
      const api = new FakeApi()
        .put(tool('a', { label: 'app=web', image: 'busybox', securityProfile: profile }))
        .put(pod('web-1', { app: 'web' }));
      const refused = await syncFrom(api, ['dbg', 'a'], DEFAULT_POLICY);
      t.match((refused.status as any).conditions[0], {
        status: 'False',
        reason: 'ProfileNotAllowed',
        message: new RegExp(profile),
      });
      t.equal(api.patches.length + api.gets.length, 0, `${profile} refused by default`);
      await syncFrom(api, ['dbg', 'a'], {
        ...DEFAULT_POLICY,
        profiles: [...DEFAULT_POLICY.profiles, profile as 'sysadmin'],
      });
      t.equal(api.patches.length, 1, `${profile} when enabled`);
    }
    const evil = new FakeApi()
      .put(tool('a', { label: 'app=web', image: 'busybox.evil.example/pwn' }))
      .put(pod('web-1', { app: 'web' }));
    const r = await syncFrom(evil, ['dbg', 'a'], { ...DEFAULT_POLICY, allowlist: ['busybox*'] });
    t.match((r.status as any).conditions[0], { status: 'False', reason: 'ImageNotAllowed' });
    t.equal(evil.patches.length + evil.gets.length, 0);
  },
);

t.test('tools and pods named constructor, __proto__ or toString, and a label key __proto__, work', async (t) => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
  const api = new FakeApi();
  for (const n of names) api.put(tool(n, { label: '__proto__=yes', image: 'busybox' }));
  for (const n of names) {
    api.put(pod(n, {}));
    // An own label `__proto__`, as JSON gives it.
    const stored = api.stored('Pod', 'dbg', n);
    stored.metadata.labels = JSON.parse('{"__proto__":"yes"}');
    t.ok(Object.hasOwn(stored.metadata.labels, '__proto__'));
  }
  api.put(pod('plain', { app: 'web' }));
  for (const n of names) {
    const res = await syncAndApply(api, ['dbg', n]);
    t.match(res.status, { matched: 4, injected: 4, failed: 0 }, `tool ${n}`);
    t.same([...(res.status as any).lastInjected].sort(), [...names].sort());
  }
  for (const n of names)
    t.same(
      ephemeralNames(api, 'dbg', n),
      ['constructor', '__proto__', 'toString', 'hasOwnProperty'].map(containerName),
    );
  t.same(ephemeralNames(api, 'dbg', 'plain'), [], 'a pod without the label is not selected by a `__proto__` selector');
  // Next sync: quiet.
  const patches = api.patches.length;
  const again = await syncFrom(api, ['dbg', '__proto__'], ANY, undefined, new Date(FIXED_NOW.getTime() + 1000));
  t.same(again.status, api.stored('PodBuggerTool', 'dbg', '__proto__').status);
  t.equal(api.patches.length, patches);
});

t.test('a failed PATCH: in the status with a stable reason, logged with the names, an event, retried', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  api.failPatch = new KubeError(
    403,
    'PATCH /api/v1/...: 403 pods "web-1" is forbidden: User "x" cannot patch resource',
    'Forbidden',
  );
  const log = new Log();
  const failed = await syncAndApply(api, ['dbg', 'a'], ANY, log);
  t.equal(failed.resyncAfterSeconds, 30);
  t.match(failed.status, {
    matched: 1,
    injected: 0,
    failed: 1,
    failures: [{ pod: 'web-1', reason: 'Forbidden' }],
    lastInjected: [],
  });
  t.match((failed.status as any).conditions[0], {
    type: 'Ready',
    status: 'False',
    reason: 'InjectionFailed',
    message: 'debug-a could not be added to 1 of 1 matching pods: web-1 (Forbidden); retried every 30s',
  });
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
    regarding: {
      apiVersion: 'debug.metaops.dev/v1alpha1',
      kind: 'PodBuggerTool',
      namespace: 'dbg',
      name: 'a',
      uid: 'uid-tool-a',
    },
    related: { apiVersion: 'v1', kind: 'Pod', namespace: 'dbg', name: 'web-1', uid: 'uid-web-1' },
  });
  t.equal(api.events[0]!.eventTime.toISOString(), FIXED_NOW.toISOString());

  // The same failure again: the same status (quiet), whatever the error text and the time, and no second event.
  api.failPatch = new KubeError(403, 'another text entirely', 'Forbidden');
  const retry = await syncAndApply(api, ['dbg', 'a'], ANY, log, new Date(FIXED_NOW.getTime() + 30_000));
  t.same(retry, failed);
  t.equal(api.events.length, 1, 'one event per failure, not per retry');

  // A failure to read is a failure too; an unreachable API server has its own reason (and no event: it could
  // not be recorded either).
  api.failGet = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
  const unreachable = await syncAndApply(api, ['dbg', 'a'], ANY, log);
  t.same((unreachable.status as any).failures, [{ pod: 'web-1', reason: 'Unreachable' }]);
  t.equal(api.events.length, 1);
  api.failGet = undefined;

  // Another failure: another event, under another name.
  api.failPatch = new KubeError(422, 'invalid', 'Invalid');
  await syncAndApply(api, ['dbg', 'a'], ANY, log);
  t.equal(api.events.length, 2);
  t.match(api.events[1], { note: 'could not add debug-a to pod dbg/web-1: Invalid', regarding: { uid: 'uid-tool-a' } });
  t.not(api.events[1]!.name, api.events[0]!.name);

  // Events that cannot be recorded are logged; the answer is the same.
  const quiet = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  quiet.failPatch = new KubeError(403, 'x', 'Forbidden');
  quiet.failEvent = new KubeError(403, 'events is forbidden', 'Forbidden');
  const qlog = new Log();
  t.same(await syncFrom(quiet, ['dbg', 'a'], ANY, qlog), failed);
  t.match(qlog.lines[1]!.msg, /PodBuggerTool dbg\/a: could not record the event InjectionFailed: Forbidden/);

  // It works now: the failure is gone from the status.
  api.failPatch = undefined;
  const ok = await syncAndApply(api, ['dbg', 'a'], ANY, log);
  t.match(ok.status, { matched: 1, injected: 1, failed: 0, failures: [], lastInjected: ['web-1'] });
  t.match((ok.status as any).conditions[0], { status: 'True', reason: 'Injecting' });
  t.notOk(ok.resyncAfterSeconds);
});

t.test('many pods: a few per sync, failing ones last, the rest at the next sync', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  const n = MAX_PER_SYNC + 5;
  const names = Array.from({ length: n }, (_, i) => `web-${String(i).padStart(2, '0')}`);
  for (const name of names) api.put(pod(name, { app: 'web' }));
  // web-00 fails.
  const real = api.addEphemeralContainers.bind(api);
  api.addEphemeralContainers = async (ns, name, c, p) =>
    name === 'web-00' ? Promise.reject(new KubeError(403, 'no', 'Forbidden')) : real(ns, name, c, p);
  const first = await syncAndApply(api, ['dbg', 'a']);
  t.equal(api.patches.length + 1, MAX_PER_SYNC, 'no more than MAX_PER_SYNC PATCHes');
  t.equal(first.resyncAfterSeconds, 1, 'called again soon for the rest');
  t.match(first.status, { matched: n, injected: MAX_PER_SYNC - 1, failed: 1 });
  const second = await syncAndApply(api, ['dbg', 'a']);
  t.match(second.status, {
    matched: n,
    injected: n - 1,
    failed: 1,
    failures: [{ pod: 'web-00', reason: 'Forbidden' }],
  });
  t.equal(second.resyncAfterSeconds, 30);
  for (const name of names.slice(1)) t.same(ephemeralNames(api, 'dbg', name), ['debug-a'], name);
});

t.test('terminating pods are left alone', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  const gone = pod('p', { app: 'web' });
  gone.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  api.put(gone);
  const res = await syncFrom(api, ['dbg', 'a']);
  t.equal(api.patches.length + api.gets.length, 0);
  t.match(res.status, { matched: 0, injected: 0 });
});

t.test('tool status: matched, injected, last injected kept from the previous status', async (t) => {
  const carrying = (name: string, image = 'busybox', ns = 'dbg') =>
    pod(name, { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image }] }, ns);
  const parent = tool('a', { label: 'app=web', image: 'busybox' }) as any;
  parent.status = { lastInjected: ['p2', 'gone', 'p1'] };
  const req = {
    controller: {},
    parent,
    related: wire([
      carrying('p1'),
      carrying('p2'),
      pod('p3', { app: 'web' }),
      carrying('p4', 'busybox', 'elsewhere'),
      carrying('p5'),
    ]),
  };
  const res = await syncTool(req, {
    kube: new FakeApi(),
    policy: { ...DEFAULT_POLICY, excludedNamespaces: ['dbg'] },
    now: FIXED_NOW,
  });
  t.match(res.status, {
    matched: 4,
    injected: 3,
    outdated: 0,
    failed: 0,
    lastInjected: ['p2', 'p1', 'p5'],
    containerName: 'debug-a',
  });
});

t.test('a tool whose image changed does not count old-image pods as carrying its container', async (t) => {
  const old = pod('old', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox:1.35' }] });
  const fresh = pod('fresh', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox:1.36' }] });
  const api = new FakeApi();
  const res = await syncTool(
    {
      controller: {},
      parent: tool('a', { label: 'app=web', image: 'busybox:1.36' }) as any,
      related: wire([old, fresh]),
    },
    { kube: api, policy: DEFAULT_POLICY, now: FIXED_NOW },
  );
  t.equal(api.gets.length, 0, 'an ephemeral container cannot be changed: nothing is tried');
  t.match(res.status, { matched: 2, injected: 1, outdated: 1, lastInjected: ['fresh'] });
  t.match(
    (res.status as any).conditions[0].message,
    /1 of 2 matching pods carry debug-a; 1 carry it with an older image/,
  );
});

t.test('an invalid spec: nothing is touched, the status kept, Ready=False', async (t) => {
  const api = new FakeApi().put(pod('web-1', { app: 'web' }));
  const parent = tool('a', { image: 'busybox' }) as any;
  parent.status = { matched: 3, injected: 3 };
  const res = await syncTool(
    { controller: {}, parent, related: wire([api.stored('Pod', 'dbg', 'web-1')]) },
    { kube: api, policy: ANY, now: FIXED_NOW },
  );
  t.equal(api.gets.length + api.patches.length, 0);
  t.match(res.status, {
    matched: 3,
    injected: 3,
    conditions: [{ type: 'Ready', status: 'False', reason: 'InvalidSpec' }],
  });
});

t.test('customize hook', async (t) => {
  t.same(customizeTool({ controller: {}, parent: tool('a', { label: 'app=web', image: 'x' }) as any }), {
    relatedResources: [{ apiVersion: 'v1', resource: 'pods', labelSelector: { matchLabels: { app: 'web' } } }],
  });
  t.same(customizeTool({ controller: {}, parent: tool('a', { image: 'x' }) as any }), { relatedResources: [] });
});

t.test('an empty selector is refused like no selector: it would debug every pod of the namespace', async (t) => {
  for (const spec of [
    { selector: {} },
    { selector: { matchLabels: {} } },
    { selector: { matchLabels: {}, matchExpressions: [] } },
  ]) {
    const parsed = parser.parse({ image: 'busybox', ...spec });
    t.match(parsed, { ok: false, message: /empty/ }, JSON.stringify(spec));
  }
  t.match(parser.parse({ image: 'busybox', selector: { matchLabels: { app: 'web' } } }), { ok: true });
  t.match(parser.parse({ image: 'busybox', label: 'app' }), { ok: true }, 'label key alone: Exists');
});

t.test(
  'a slow API server: no call starts after the work budget, the rest waits for the next sync, failures kept (attack on issue 18)',
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
    const names = Array.from({ length: 20 }, (_, i) => `web-${String(i).padStart(2, '0')}`);
    for (const name of names) api.put(pod(name, { app: 'web' }));
    api.failPatch = new KubeError(403, 'no', 'Forbidden');
    const slow = <T>(f: () => Promise<T>) =>
      new Promise<T>((resolve, reject) => setTimeout(() => f().then(resolve, reject), 100));
    const get = api.get.bind(api);
    const patch = api.addEphemeralContainers.bind(api);
    api.get = (...a) => slow(() => get(...a));
    api.addEphemeralContainers = (...a) => slow(() => patch(...a));
    const pods = [...api.objects.values()].filter((o) => o.kind === 'Pod');
    const request = {
      controller: {},
      parent: copy(api.stored('PodBuggerTool', 'dbg', 'a')),
      children: {},
      related: wire(pods),
    };
    const first = await syncTool(request, { kube: api, policy: ANY, now: FIXED_NOW, budgetMs: 250 });
    t.ok(
      api.patches.length < names.length,
      `only the pods reached within the budget are tried (${api.patches.length})`,
    );
    t.equal(first.resyncAfterSeconds, 1, 'the rest at the next sync, a second later');
    t.match(first.status, { failed: api.patches.length });
    t.match(
      (first.status as any).conditions.find((c: any) => c.type === 'Ready'),
      { status: 'False' },
      'a failing tool is not Ready',
    );
    // The failures found are kept by the next syncs, whichever pods they reach.
    (request.parent as any).status = first.status;
    const second = await syncTool(request, { kube: api, policy: ANY, now: FIXED_NOW, budgetMs: 250 });
    t.ok(
      (second.status as any).failed >= (first.status as any).failed,
      'failures are not forgotten for pods not reached',
    );
  },
);
