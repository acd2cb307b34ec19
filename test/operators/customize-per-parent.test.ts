// Every customize answer is a function of its own parent: two parents of one name in two namespaces (the same spec,
// the same generation) get answers that differ only in the namespace (and the parent label's value, a MAC of kind,
// namespace and name by which Memcached and EtcdBackup ask for their pods), and every related rule names the parent's
// own namespace. Metacontroller v1.5.20 caches customize
// answers by the parent's name and generation alone (pkg/controller/common/customize/cache.go, manager.go L73-91) and
// hands one parent's answer to the other, which then
// fails with "requested related object namespace team-a differs from parent object namespace team-b"
// (docs/metacontroller.md): that fault is Metacontroller's, since our answers are right per parent, as this shows.
import t from 'tap';
import { parentLabelValue } from '../../lib/parent-label.js';
import { operators } from '../../main/operators.js';

const SPECS: Record<string, unknown> = {
  // The richest spec each kind's customize reads (EtcdCluster with TLS asks for its Secrets too).
  default: {
    size: 3,
    version: '8.0',
    TLS: { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'etcd-client' } },
    etcdEndpoints: ['http://x-client:2379'],
    clusterName: 'x',
    selector: { matchLabels: { app: 'web' } },
    backup: { clusterName: 'x' },
    storage: { size: '1Gi' },
  },
};

function parent(apiVersion: string, kind: string, namespace: string, uid: string) {
  return {
    apiVersion,
    kind,
    metadata: { name: 'x', namespace, uid, generation: 1, labels: { app: 'web' } },
    spec: SPECS['default'],
  };
}

t.test('two same-named parents in two namespaces: each answer names its own parent only', async (t) => {
  const withCustomize = operators.filter((d) => (d as any).customize);
  t.ok(withCustomize.length >= 8, `every kind that relates objects is checked (${withCustomize.length})`);
  let named = 0;
  for (const def of withCustomize) {
    const d = def as any;
    const { group, version, kind } = d.resource ?? d.object ?? {};
    const apiVersion = group ? `${group}/${version}` : version;
    // A CompositeController's customize gets `parent`; a DecoratorController's gets the object as `parent` too.
    const call = (p: unknown) => d.customize({ controller: {}, parent: p }, {}).relatedResources as any[];
    const a = call(parent(apiVersion, kind, 'team-a', 'uid-a'));
    const b = call(parent(apiVersion, kind, 'team-b', 'uid-b'));
    named += a.filter((r) => r.namespace).length;
    for (const [ns, rules] of [
      ['team-a', a],
      ['team-b', b],
    ] as const) {
      for (const rule of rules) {
        // A rule by label carries no namespace (Metacontroller lists it in a namespaced parent's own namespace under
        // hook version v1, and the sync hook keeps only that namespace's objects: lib/objects.ts confineRelated).
        if (rule.namespace === undefined) t.notOk(rule.names, `${def.name}: ${rule.resource} by label, not by name`);
        else t.equal(rule.namespace, ns, `${def.name} in ${ns}: ${rule.resource} only from the parent's namespace`);
        t.notMatch(JSON.stringify(rule), ns === 'team-a' ? /team-b|uid-b/ : /team-a|uid-a/, 'nothing of the other');
      }
    }
    const valueIn = (ns: string) => parentLabelValue(undefined, kind, ns, 'x');
    t.same(
      JSON.parse(JSON.stringify(b).replaceAll('team-b', 'team-a').replaceAll(valueIn('team-b'), valueIn('team-a'))),
      a,
      `${def.name}: the answers differ in the namespace (and the parent label's value, which Memcached's and EtcdBackup's pods carry) alone`,
    );
    // The answer a v1.5.20 would reuse for the other parent is the one it then refuses: it names the other namespace.
    t.ok(
      a.every((r) => r.namespace !== 'team-b'),
      `${def.name}: team-a's answer, reused for team-b, is what Metacontroller v1.5.20 refuses`,
    );
  }
  t.ok(named > 0, `${named} rules name a namespace, which a reused answer makes the wrong one`);
});
