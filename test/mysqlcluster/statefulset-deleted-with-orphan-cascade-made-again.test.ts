// A MySQLCluster's StatefulSet deleted with `kubectl delete statefulset <name>-mysql --cascade=orphan`: Kubernetes'
// own way to change what a StatefulSet cannot change in place (its claim templates' size, after the claims were
// resized by hand), keeping the members running; the controller that made it makes it again, and the StatefulSet
// controller adopts the orphaned pods (they match its selector and are named as its members). The garbage collector
// removed the pods' owner references: each member pod now has no controller, but it carries the label only this
// cluster's pod template sets (mysqlcluster.metaops.io/instance) and runs on a data volume marked with this cluster's
// uid (mysqlcluster.metaops.io/uid). They are the cluster's own members (issue 31: member pods proven the cluster's
// own), not another owner's: the cluster makes its StatefulSet again, and is not held PodNameTaken advising to rename
// itself (a new name is a new cluster without its data) or to delete what holds the names.
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { memberClaim, memberPod } from '../fixtures/mysql-pods.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => ((res.status.conditions ?? []) as any[]).find((c) => c.type === 'Ready');
t.test(
  "a StatefulSet deleted with --cascade=orphan: its members are the cluster's own and it is made again",
  async (t) => {
    const spec = { size: 2, version: '8.0.40' };
    const created = request('mysqlcluster', spec);
    const first = mysqlSync(created, FIXED_NOW);
    const name = created.parent.metadata.name!;
    const uid = created.parent.metadata.uid!;
    // Its Secret and Services, observed; its StatefulSet deleted (orphaning its pods).
    const kept = first.children.filter((c) => c.kind !== 'StatefulSet').map((c) => asObserved(c));
    const pods = [0, 1].map((i) => memberPod(name, i, { controller: false, image: 'mysql:8.0.40' }));
    const claims = [0, 1].map((i) => memberClaim(name, i, uid));
    const again = request('mysqlcluster', spec);
    again.parent.status = {
      ...(first.status as Record<string, unknown>),
      secretName: `${name}-mysql`,
      version: '8.0.40',
    };
    again.children = objectMap(kept);
    again.related = objectMap([...pods, ...claims]);
    const res = mysqlSync(again, FIXED_NOW);
    t.not(
      ready(res)?.reason,
      'PodNameTaken',
      `its own members are not another owner's (${ready(res)?.reason}: ${ready(res)?.message})`,
    );
    t.notMatch(String(ready(res)?.message), /rename this MySQLCluster/, 'it is not advised to rename itself');
    t.ok(
      res.children.some((c) => c.kind === 'StatefulSet' && c.metadata.name === `${name}-mysql`),
      'its StatefulSet is made again (it adopts the running members)',
    );
  },
);
