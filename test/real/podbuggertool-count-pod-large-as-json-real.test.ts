// The tool's status counts the pods it selects from the API server, a page at a time, halving a page too large to
// read (docs/podbuggertool.md: "a count of any size completes"). A pod is at most ~1.5 MiB as etcd stores it, but
// the API server answers JSON, in which some characters take six bytes (`<`, `>` and `&` are written \u003c...): a
// pod that anyone who may create pods in the namespace makes, with a 1 MB environment value of `<`, is one pod larger
// than any page the hook server reads. The count must still complete (or say honestly why that pod is not counted),
// not fail on every sync for as long as that pod lives.
import t from 'tap';
import { podbuggertool, podbuggertoolInjector } from '../../hooks/podbuggertool/index.js';
import { WORK_BUDGET_MS } from '../../hooks/podbuggertool/inject.js';
import { DEFAULT_POLICY, type DebugPolicy } from '../../hooks/podbuggertool/match.js';
import type { KubeApi } from '../../lib/kube.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { startApiServer } from '../fixtures/apiserver.js';
import { root } from '../fixtures/requests.js';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const NS = 'big';
const api = startApiServer(t, 'pbt-large-json', [NS]);
const kubectl = (args: string[], input?: string) => api.kubectl(args, input);
const bin = execFileSync('bash', [join(root, 'e2e', 'build.sh'), 'kube', 'etcd'], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
  .toString()
  .trim()
  .split('\n')
  .pop()!;
const getJson = (args: string[]) => JSON.parse(kubectl(['get', ...args, '-o', 'json'])) as KubeObject;

t.before(() => {
  kubectl(['apply', '-f', join(root, 'manifests', 'crds', 'podbuggertools.debug.metaops.dev.yaml')]);
  kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/podbuggertools.debug.metaops.dev']);
});

const pod = (name: string, env?: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS, labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'app', image: 'nginx:1.27', ...(env !== undefined ? { env: [{ name: 'BLOB', value: env }] } : {}) },
    ],
  },
});

t.test('a count completes when one selected pod is larger as JSON than the hook server reads', async (t) => {
  for (const name of ['a-small', 'c-small']) kubectl(['create', '-f', '-'], JSON.stringify(pod(name)));
  // 1 MB sent and stored (as the client writes it: `<` is one byte); about 6 MB as the API server's JSON.
  // (The API server's answer to the create is that JSON too: larger than the client reads; the pod is made.)
  await api
    .kube()
    .create('v1', 'pods', NS, pod('b-large', '<'.repeat(1_000_000)))
    .catch(() => undefined);
  const bytes = Number(
    execFileSync('sh', ['-c', 'kubectl get --raw "$0" | wc -c', `/api/v1/namespaces/${NS}/pods/b-large`], {
      env: { ...process.env, KUBECONFIG: join(api.dir, 'kubeconfig'), PATH: `${bin}:${process.env['PATH']}` },
    }).toString(),
  );
  t.ok(bytes > 4 * 1024 * 1024, `the pod is ${bytes} bytes as the API server's JSON`);
  kubectl(
    ['create', '-f', '-'],
    JSON.stringify({
      apiVersion: 'debug.metaops.dev/v1alpha1',
      kind: 'PodBuggerTool',
      metadata: { name: 'web', namespace: NS },
      spec: { label: 'app=web', image: 'busybox:1.36' },
    }),
  );
  const kube: KubeApi = api.kube();
  const policy: DebugPolicy = { ...DEFAULT_POLICY, authorCheck: 'off' };
  const sync = () =>
    runHook(
      podbuggertool,
      'sync',
      { controller: {}, parent: getJson(['pbt', 'web', '-n', NS]), children: {} } as never,
      {
        now: new Date(),
        services: { kube: () => kube },
        settings: { policy, workBudgetMs: WORK_BUDGET_MS },
      },
    );
  const results: unknown[] = [];
  let res: any;
  for (let i = 0; i < 3; i++) results.push((res = await sync()));
  t.match(res.status, { matched: 3 }, 'the three selected pods are counted');
  const ready = (res.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
  t.notMatch(ready?.message ?? '', /Unreachable/, 'the API server answered: it is not said to be unreachable');
  t.comment(JSON.stringify(ready));
});

t.test('the injector adds the container to a pod larger as JSON than 4 MiB that Metacontroller sends it', async (t) => {
  // Metacontroller's request carries the pod (6 MB) and the tool: within the hook server's 8 MiB body limit.
  const page = await api.kube().list!('v1', 'pods', NS, { limit: 10, maxBytes: 64 * 1024 * 1024 });
  const large = page.items.find((p) => p.metadata.name === 'b-large')!;
  t.ok(large, 'the pod as Metacontroller has it');
  const kube: KubeApi = api.kube();
  const policy: DebugPolicy = { ...DEFAULT_POLICY, authorCheck: 'off' };
  const res = await runHook(
    podbuggertoolInjector,
    'sync',
    {
      controller: {},
      object: large,
      attachments: {},
      related: { 'PodBuggerTool.debug.metaops.dev/v1alpha1': { web: getJson(['pbt', 'web', '-n', NS]) } },
    } as never,
    { now: new Date(), services: { kube: () => kube }, settings: { policy, workBudgetMs: WORK_BUDGET_MS } },
  );
  t.notMatch(JSON.stringify(res.annotations ?? {}), /Unreachable/, 'the API server is not said to be unreachable');
  const after = (await api.kube().list!('v1', 'pods', NS, { limit: 10, maxBytes: 64 * 1024 * 1024 })).items.find(
    (p) => p.metadata.name === 'b-large',
  )!;
  t.same(
    ((after['spec'] as any).ephemeralContainers ?? []).map((c: any) => c.name),
    ['debug-web'],
    'the pod got the container',
  );
});

t.test('a metadata-only page names the large pod without its spec, and goes on past it', async (t) => {
  // How a pod too large to read whole is passed (hooks/podbuggertool/sync.ts tooLarge): the API server answers a
  // PartialObjectMetadataList, a page of one pod's metadata, with the next page's token.
  const kube: KubeApi = api.kube();
  const first = await kube.list!('v1', 'pods', NS, { labelSelector: 'app=web', limit: 1 });
  const page = await kube.list!('v1', 'pods', NS, {
    labelSelector: 'app=web',
    limit: 1,
    continue: first.continue!,
    metadataOnly: true,
    maxBytes: 64 * 1024,
  });
  t.same(
    page.items.map((p) => [p.kind, p.metadata.name]),
    [['PartialObjectMetadata', 'b-large']],
    'the large pod, named, in 64 KiB',
  );
  t.notOk(page.items[0]!['spec'], 'without its spec');
  t.ok(page.continue, 'and the token of the page after it');
  const rest = await kube.list!('v1', 'pods', NS, { labelSelector: 'app=web', limit: 10, continue: page.continue! });
  t.same(
    rest.items.map((p) => p.metadata.name),
    ['c-small'],
    'the count goes on past it',
  );
});
