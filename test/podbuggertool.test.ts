import t from 'tap';
import { containerName, ephemeralContainer, imageAllowed, parseAllowlist, parser, selectorOf } from '../hooks/podbuggertool/match.js';
import { customizePod, customizeTool, syncPod, syncTool } from '../hooks/podbuggertool/sync.js';
import type { KubeApi } from '../lib/kube.js';
import type { KubeObject } from '../lib/metacontroller.js';
import { FIXED_NOW, objectMap } from './fixtures/requests.js';

const tool = (name: string, spec: Record<string, unknown>, namespace = 'dbg'): KubeObject => ({
  apiVersion: 'debug.metaops.dev/v1alpha1',
  kind: 'PodBuggerTool',
  metadata: { name, namespace, generation: 1 },
  spec,
});
const pod = (name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}, namespace = 'dbg'): any => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { containers: [{ name: 'app', image: 'nginx' }], ...extra },
});

class FakeKube implements KubeApi {
  calls: Array<{ ns: string; pod: string; containers: any[] }> = [];
  fail = false;
  async addEphemeralContainers(ns: string, pod: string, containers: any[]) {
    if (this.fail) throw new Error('forbidden');
    this.calls.push({ ns, pod, containers });
  }
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

t.test('the allowlist: exact images and prefixes', async (t) => {
  t.ok(imageAllowed('anything', undefined));
  const list = parseAllowlist(' busybox*, ghcr.io/org/debug:1 ,');
  t.same(list, ['busybox*', 'ghcr.io/org/debug:1']);
  t.ok(imageAllowed('busybox:1.36', list));
  t.ok(imageAllowed('ghcr.io/org/debug:1', list));
  t.notOk(imageAllowed('ghcr.io/org/debug:2', list));
  t.equal(parseAllowlist(''), undefined);
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
  const kube = new FakeKube();
  const related = objectMap([
    tool('a', { label: 'app=web', image: 'busybox' }),
    tool('b', { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] }, image: 'alpine' }),
    tool('c', { label: 'app=db', image: 'busybox' }),
    tool('d', { label: 'app=web', image: 'busybox' }, 'elsewhere'),
  ]);
  const res = await syncPod({ controller: {}, object: pod('web-1', { app: 'web' }), related }, { kube, allowlist: undefined, now: FIXED_NOW });
  t.equal(kube.calls.length, 1);
  t.same(kube.calls[0]!.containers.map((c) => c.name), ['debug-a', 'debug-b']);
  const record = JSON.parse(res.annotations!['debug.metaops.dev/injections']!);
  t.same(Object.keys(record), ['a', 'b']);

  // The pod now has them: nothing is added again, the record is kept.
  const withContainers = pod('web-1', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a' }, { name: 'debug-b' }] });
  withContainers.metadata.annotations = res.annotations;
  const again = await syncPod({ controller: {}, object: withContainers, related }, { kube, allowlist: undefined, now: new Date() });
  t.equal(kube.calls.length, 1, 'no second PATCH');
  t.same(again.annotations, res.annotations, 'same answer');
});

t.test('disallowed images, terminating pods and API failures', async (t) => {
  const kube = new FakeKube();
  const related = objectMap([tool('a', { label: 'app=web', image: 'evil/image' })]);
  const res = await syncPod({ controller: {}, object: pod('p', { app: 'web' }), related }, { kube, allowlist: ['busybox*'], now: FIXED_NOW });
  t.equal(kube.calls.length, 0);
  t.same(res, { attachments: [] });
  const gone = pod('p', { app: 'web' });
  gone.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  t.same(await syncPod({ controller: {}, object: gone, related: objectMap([tool('a', { label: 'app=web', image: 'busybox' })]) }, { kube, allowlist: undefined, now: FIXED_NOW }), { attachments: [] });
  kube.fail = true;
  const failed = await syncPod(
    { controller: {}, object: pod('p', { app: 'web' }), related: objectMap([tool('a', { label: 'app=web', image: 'busybox' })]) },
    { kube, allowlist: undefined, now: FIXED_NOW },
  );
  t.equal(failed.resyncAfterSeconds, 30);
  t.notOk(failed.annotations, 'a failed injection is not recorded');
});

t.test('tool status: matched, injected, last injected, allowlist', async (t) => {
  const injectedAt = (at: string) => ({ 'debug.metaops.dev/injections': JSON.stringify({ a: { container: 'debug-a', image: 'busybox', at } }) });
  const p1 = pod('p1', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a' }] });
  p1.metadata.annotations = injectedAt('2026-01-01T00:00:00Z');
  const p2 = pod('p2', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a' }] });
  p2.metadata.annotations = injectedAt('2026-01-02T00:00:00Z');
  const p3 = pod('p3', { app: 'web' });
  const req = { controller: {}, parent: tool('a', { label: 'app=web', image: 'busybox' }) as any, related: objectMap([p1, p2, p3]) };
  const res = syncTool(req, undefined, FIXED_NOW);
  t.match(res.status, { matched: 3, injected: 2, lastInjected: ['p2', 'p1'], containerName: 'debug-a' });
  t.same(res.children, []);
  const refused = syncTool(req, ['alpine*'], FIXED_NOW);
  t.match((refused.status as any).conditions[0], { status: 'False', reason: 'ImageNotAllowed' });
});

t.test('customize hooks', async (t) => {
  t.same(customizePod(), { relatedResources: [{ apiVersion: 'debug.metaops.dev/v1alpha1', resource: 'podbuggertools' }] });
  t.same(customizeTool({ controller: {}, parent: tool('a', { label: 'app=web', image: 'x' }) as any }), {
    relatedResources: [{ apiVersion: 'v1', resource: 'pods', labelSelector: { matchLabels: { app: 'web' } } }],
  });
  t.same(customizeTool({ controller: {}, parent: tool('a', { image: 'x' }) as any }), { relatedResources: [] });
});
