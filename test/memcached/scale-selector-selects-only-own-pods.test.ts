// status.selector is what the scale subresource gives a HorizontalPodAutoscaler (README: "a HorizontalPodAutoscaler
// can drive it (status.selector names the pods)"; docs/memcached.md: "an HPA works too") and what
// `kubectl get pods -l <selector>` lists. Memcached and MySQLCluster wrote the recommended labels alone there
// (app.kubernetes.io/name=memcached|mysql, app.kubernetes.io/instance=<name>), which their own docs say are not
// ownership: a Helm chart's memcached or MySQL installed as release <name> in the namespace carries the same two.
// Their Services and NetworkPolicy select on their own instance label (memcached.metaops.io/instance,
// mysqlcluster.metaops.io/instance) once every pod carries it, and EtcdCluster's status.selector does the same
// (docs/etcdcluster.md), but the scale selector of these two kinds matched the other release's pods: an HPA on
// the Memcached averages the other release's pods' CPU into its decision and scales the cache on another workload's
// load (issue 31, 1: parents side by side; no selector of ours picks another owner's pods). A Memcached from before the
// label keeps the recommended labels there until every pod carries its own (test/memcached/service-selector-follows-the-rollout.test.ts), so an HPA never sees zero pods.
import t from 'tap';
import { memcachedSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

/** Whether a selector string of equality terms (`k=v,k2=v2`, what status.selector holds) matches these labels. */
function matches(selector: string, labels: Record<string, string>): boolean {
  return selector.split(',').every((term) => {
    const [k, v] = term.split('=');
    return labels[k!.trim()] === v!.trim();
  });
}

/** Pods of a Helm release `cache` of a memcached / MySQL chart beside the parent (bitnami's labels). */
const RELEASE_POD = (app: string) => ({
  'app.kubernetes.io/name': app,
  'app.kubernetes.io/instance': 'cache',
  'app.kubernetes.io/managed-by': 'Helm',
  'helm.sh/chart': `${app}-7.0.0`,
});

const cases = [{ kind: 'memcached' as const, app: 'memcached', spec: { size: 2 }, sync: memcachedSync }];

for (const c of cases) {
  t.test(`${c.kind}: status.selector does not select another release's pods with the recommended labels`, async (t) => {
    const r = request(c.kind, c.spec);
    r.parent.metadata = { ...r.parent.metadata, name: 'cache', namespace: 'shop', uid: `uid-${c.kind}-cache` };
    const first = (c.sync as any)(r, FIXED_NOW);
    // Its own pods as the answer's template makes them; then the steady state, every child observed.
    const workload = first.children.find((x: any) => x.kind === 'Deployment' || x.kind === 'StatefulSet');
    const own = workload.spec.template.metadata.labels as Record<string, string>;
    const again = (c.sync as any)(
      { ...r, status: first.status, children: objectMap(first.children.map((x: any) => asObserved(x))) },
      FIXED_NOW,
    );
    for (const [when, res] of [
      ['new', first],
      ['steady', again],
    ] as const) {
      const selector = String(res.status.selector);
      t.ok(matches(selector, own), `${when}: ${selector} selects its own pods`);
      t.notOk(
        matches(selector, RELEASE_POD(c.app)),
        `${when}: ${selector} selects no pod of the Helm release "cache" (which carries only the recommended labels)`,
      );
    }
  });
}
