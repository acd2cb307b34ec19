// The pods' NetworkPolicy decorator (lib/policy-finalizer.ts, hooks/podpolicy/index.ts) decides, for a policy being
// deleted, whether a pod it selects still runs, from the policy's own podSelector and deletionTimestamp, and how
// soon to be asked again. Its functions called directly, at their edges (the whole hook by
// pods-policy-outlives-a-foreground-deletion.test.ts).
//
// Must hold: a selector is asked for by its matchLabels only when there are some (1 to 16 strings): an empty map or
// one of 17 keys would ask for every pod of the namespace or more than a rule holds, so such a policy is held for the
// bound alone; a pod or policy without a namespace is in `default`; a pod's labels are read as strings (another
// type is no label); a finalize asks again within 5 s and no later than the bound ends (rounded up, never 0); a
// deletionTimestamp ahead of the hook's clock is a deletion just made; sync attaches nothing; the decorator watches
// networking.k8s.io/v1 NetworkPolicies by the labels every pods' policy carries, under the name its hooks are served at.
import t from 'tap';
import { podNetworkPolicy } from '../../hooks/podpolicy/index.js';
import type { DecoratorSyncRequest, DecoratorSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import {
  PODS_POLICY_LABELS,
  podSelectorLabels,
  podsPolicyCustomize,
  podsPolicyFinalize,
  podsPolicySync,
  podsStillSelected,
} from '../../lib/policy-finalizer.js';
import { typeKey } from '../../lib/objects.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const DELETED = new Date(FIXED_NOW.getTime() - 10_000);

function policy(spec: unknown, metadata: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: 'web-podset',
      namespace: 'team-a',
      labels: { ...PODS_POLICY_LABELS },
      deletionTimestamp: DELETED.toISOString(),
      ...metadata,
    },
    spec: spec as any,
  } as KubeObject;
}

function pod(name: string, labels: unknown, metadata: Record<string, unknown> = { namespace: 'team-a' }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels, ...metadata } as any,
    status: { phase: 'Running' },
  } as KubeObject;
}

const selecting = (matchLabels: unknown, extra: Record<string, unknown> = {}) => ({
  podSelector: { matchLabels, ...extra },
  policyTypes: ['Egress'],
});

function finalizeRequest(object: KubeObject, related: KubeObject[] = []): DecoratorSyncRequest {
  return { controller: {}, object: object as any, attachments: {}, related: objectMap(related) };
}

const at = (seconds: number) => new Date(DELETED.getTime() + seconds * 1000);

t.test('a selector is asked for by 1 to 16 string labels, and else not at all (held for the bound)', async (t) => {
  const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
  t.same(podSelectorLabels(policy(selecting(labels(1)))), labels(1), 'one label');
  t.same(podSelectorLabels(policy(selecting(labels(16)))), labels(16), '16 labels: asked for');
  t.equal(podSelectorLabels(policy(selecting(labels(17)))), undefined, '17 labels: not asked for');
  t.equal(podSelectorLabels(policy(selecting({}))), undefined, 'an empty map (every pod): not asked for');
  t.equal(podSelectorLabels(policy(selecting([]))), undefined, 'a list: not asked for');
  t.equal(podSelectorLabels(policy(selecting({ a: 'b', c: 1 }))), undefined, 'a value that is no string');
  t.equal(podSelectorLabels(policy({ podSelector: 'app=web' })), undefined, 'a selector that is no map');
  t.equal(podSelectorLabels(policy('spec')), undefined, 'a spec that is no map');
  // customize asks by those labels, and for nothing when there are none.
  const asked = (p: KubeObject) => podsPolicyCustomize({ controller: {}, parent: p as any }).relatedResources;
  t.same(asked(policy(selecting(labels(16)))), [
    { apiVersion: 'v1', resource: 'pods', labelSelector: { matchLabels: labels(16) } },
  ]);
  t.same(asked(policy(selecting({}))), [], 'an empty map asks for nothing');
  t.same(asked(policy(selecting(labels(17)))), [], '17 labels ask for nothing');
  t.same(podsPolicyCustomize({ controller: {} } as any).relatedResources, [], 'no object sent: nothing asked');
  // A policy held for the bound alone, since none of its pods can be asked for.
  const held = podsPolicyFinalize(finalizeRequest(policy(selecting({}))), FIXED_NOW);
  t.equal(held.finalized, false, 'an empty selector: held, though no pod is observed');
  t.equal(podsStillSelected(finalizeRequest(policy(selecting({})))), undefined);
});

t.test('pods in the policy namespace, read as `default` when either says none', async (t) => {
  const sel = selecting({ app: 'web' });
  const bare = policy(sel, { namespace: undefined });
  const inDefault = pod('p-default', { app: 'web' }, { namespace: 'default' });
  const noNamespace = pod('p-none', { app: 'web' }, {});
  t.same(
    podsStillSelected(finalizeRequest(bare, [inDefault, noNamespace]))?.map((p) => p.metadata.name),
    ['p-default', 'p-none'],
    'a policy without a namespace holds for the pods of default, named or not',
  );
  t.same(
    podsStillSelected(finalizeRequest(policy(sel, { namespace: 'default' }), [noNamespace]))?.map(
      (p) => p.metadata.name,
    ),
    ['p-none'],
    'a policy of default holds for a pod without a namespace',
  );
  t.same(podsStillSelected(finalizeRequest(policy(sel), [noNamespace])), [], 'not for one of team-a');
  t.equal(podsPolicyFinalize(finalizeRequest(bare, [noNamespace]), FIXED_NOW).finalized, false, 'held');
  // Objects without metadata (input): a policy in `default`, a pod with no labels in `default`.
  const noMetadata = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', spec: sel } as unknown as KubeObject;
  const pods = { [typeKey('Pod', 'v1')]: { a: { apiVersion: 'v1', kind: 'Pod' } } } as any;
  t.same(podsStillSelected({ ...finalizeRequest(noMetadata), related: pods }), [], 'a pod without metadata: none');
  t.same(podsStillSelected(finalizeRequest(noMetadata, [inDefault]))?.length, 1, 'a policy without metadata: default');
  t.same(podsPolicyCustomize({ controller: {}, parent: noMetadata as any }).relatedResources, [], 'not deleted');
});

t.test("a pod's labels are read as strings: another type is no label", async (t) => {
  const sel = selecting({ app: 'web' }, { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] });
  const odd = pod('p-odd', { app: 'web', tier: 5 });
  t.same(
    podsStillSelected(finalizeRequest(policy(sel), [odd]))?.map((p) => p.metadata.name),
    ['p-odd'],
    'a label of a number is no label (DoesNotExist selects the pod)',
  );
  const none = pod('p-none', undefined);
  t.same(podsStillSelected(finalizeRequest(policy(selecting({ app: 'web' })), [none])), [], 'a pod without labels');
  const listed = pod('p-list', ['app', 'web']);
  t.same(podsStillSelected(finalizeRequest(policy(selecting({ app: 'web' })), [listed])), [], 'labels of a list');
});

t.test('a policy held is asked again within 5 s and when the bound ends, rounded up', async (t) => {
  const sel = selecting({ app: 'web' });
  const running = [pod('p', { app: 'web' })];
  const finalize = (now: Date) => podsPolicyFinalize(finalizeRequest(policy(sel), running), now);
  t.same(finalize(at(10)), { attachments: [], finalized: false, resyncAfterSeconds: 5 }, '10 s after: in 5 s');
  t.equal(finalize(at(116.5)).resyncAfterSeconds, 4, '116.5 s after: at the bound, 3.5 s rounded up');
  t.equal(finalize(at(119.5)).resyncAfterSeconds, 1, '119.5 s after: in 1 s');
  t.same(finalize(at(120)), { attachments: [], finalized: true }, 'at the bound: released');
  const gone = podsPolicyFinalize(finalizeRequest(policy(sel), []), at(10));
  t.same(gone, { attachments: [], finalized: true }, 'no pod left: released, nothing attached');
  // A deletionTimestamp ahead of this hook's clock (the API server's clock ahead): a deletion just made.
  const ahead = finalize(at(-30));
  t.same(ahead, { attachments: [], finalized: false, resyncAfterSeconds: 5 }, 'deleted in the future: held');
  const unread = podsPolicyFinalize(finalizeRequest(policy(sel, { deletionTimestamp: 'soon' }), []), FIXED_NOW);
  t.same(unread, { attachments: [], finalized: false }, 'a deletionTimestamp that is no time: not released');
});

t.test('the decorator: its name, what it watches, and a sync that attaches nothing', async (t) => {
  t.same(podsPolicySync(), { attachments: [] });
  t.equal(podNetworkPolicy.name, 'pod-network-policy', 'served at /hooks/pod-network-policy/...');
  t.same(podNetworkPolicy.resources, [
    {
      apiVersion: 'networking.k8s.io/v1',
      resource: 'networkpolicies',
      labelSelector: {
        matchLabels: { 'app.kubernetes.io/component': 'network-policy', 'app.kubernetes.io/managed-by': 'metaops' },
      },
    },
  ]);
  t.same(podNetworkPolicy.attachments, [], 'no attachments');
  const synced = (await runHook(podNetworkPolicy as any, 'sync', finalizeRequest(policy(selecting({ app: 'web' }))), {
    now: FIXED_NOW,
  })) as DecoratorSyncResponse;
  t.same(synced.attachments, [], 'sync attaches nothing');
  t.notOk(synced.finalized, 'and releases nothing');
  t.same(podNetworkPolicy.answerBudget?.estimate({} as any, {} as any), { bytes: 0, what: 'no attachments' });
});
