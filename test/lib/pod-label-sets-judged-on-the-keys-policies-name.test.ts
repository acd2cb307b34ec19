// Whether the namespace's own NetworkPolicies govern a parent's pods (lib/network-policy.ts namespaceGovernance) is
// judged on the pods' distinct label sets, at most MAX_POD_LABEL_SETS of them. The pods' labels are first narrowed to
// the keys the policies' selectors name: labels no selector reads (a PodSet's template-hash, a Deployment's
// pod-template-hash) change nothing a policy says, so pods of many templates are one set. Where the sets are still
// more than the bound (a policy naming a key whose value differs from pod to pod), the first ones (sorted) are judged,
// and the complement of the namespace's egress selectors is computed whatever they say: it is exact for every pod, so
// a pod past the bound is selected by a namespace policy or by metaops' complement policy, never neither. A selector
// it cannot read is doubt: metaops' policy is kept for every pod (docs/operating.md, Tenants).
import t from 'tap';
import { MAX_POD_LABEL_SETS, namespaceGovernance } from '../../lib/network-policy.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { objectMap, request } from '../fixtures/requests.js';

const base = request('podset', { size: 1, image: 'busybox:1.36', command: ['sleep', '3600'] });
const ns = base.parent.metadata.namespace!;
const policy = (name: string, podSelector: unknown, policyTypes = ['Egress']): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name, namespace: ns, uid: `uid-${name}` },
  spec: { podSelector, policyTypes },
});
const govern = (policies: KubeObject[], pods: unknown[]) =>
  namespaceGovernance(
    { parent: base.parent, related: objectMap(policies, 'v1') },
    { pods, own: ['mine-podset'], parentKinds: [] },
  );
/** Pods of one app, each of its own template. */
const templates = (n: number, extra: (i: number) => Record<string, string> = () => ({})) =>
  Array.from({ length: n }, (_, i) => ({ app: 'web', 'metaops.dev/template-hash': `h${1000 + i}`, ...extra(i) }));

t.test('pods of many templates are judged as one set on the keys the policies name', async (t) => {
  const pods = templates(4 * MAX_POD_LABEL_SETS);
  t.same(
    govern([], pods),
    { egress: false, ingress: false, egressBy: [], ingressBy: [], complement: [] },
    'no policy: none',
  );
  t.equal(govern([policy('deny-in', {}, ['Ingress'])], pods).egress, false, 'an ingress policy: egress not governed');
  t.same(
    govern([policy('web-out', { matchLabels: { app: 'web' } })], pods).egressBy,
    ['web-out'],
    'selected: governed',
  );
  t.equal(govern([policy('db-out', { matchLabels: { app: 'db' } })], pods).egress, false, 'another app: not governed');
  t.equal(
    govern(
      [policy('old', { matchExpressions: [{ key: 'metaops.dev/template-hash', operator: 'In', values: ['h1000'] }] })],
      pods,
    ).egress,
    true,
    'a policy on the template hash: judged on that key',
  );
});

t.test('past the bound, the sets judged decide, and doubt keeps the policy', async (t) => {
  const many = MAX_POD_LABEL_SETS + 8;
  const pods = templates(many, (i) => ({ shard: `s${String(i).padStart(3, '0')}` }));
  const first = policy('first-shard', { matchLabels: { shard: 's000' } });
  t.same(govern([first], pods).egressBy, ['first-shard'], 'a policy selecting a set judged: governed');
  const last = policy('last-shard', { matchLabels: { shard: `s${String(many - 1).padStart(3, '0')}` } });
  const past = govern([last], pods);
  t.equal(
    past.egress,
    true,
    'a policy selecting only a set past the bound: its pods governed, the complement answered',
  );
  t.same(
    past.complement,
    [[{ key: 'shard', operator: 'NotIn', values: [`s${String(many - 1).padStart(3, '0')}`] }]],
    'the others: every pod but those it selects',
  );
  const all = policy('every-shard', { matchExpressions: [{ key: 'shard', operator: 'Exists' }] });
  t.equal(govern([last, all], pods).egress, true, 'one selecting them all: governed');
  t.same(govern([last], [...pods].reverse()), govern([last], pods), 'the same pods in another order: the same answer');
  const unread = govern([policy('unreadable', { matchLabels: { shard: 1 } })], pods);
  t.equal(unread.egress, false, "a selector it cannot read: doubt, metaops' policy kept for every pod");
  t.match(unread.egressDoubt, /podSelector of NetworkPolicy unreadable could not be read/, 'and the doubt said');
});
