// MySQLCluster's replication password (hooks/mysqlcluster/sync.ts passwords): the replicas' volumes hold the source
// configuration made with it (CHANGE MASTER / CHANGE REPLICATION SOURCE runs once, scripts.ts replica()), and member
// 0's sidecar sets the replication user to the Secret's password whenever it opens. A replication password changed
// under a running cluster therefore leaves every replica refused (Access denied) at its next connection to member 0:
// test/real/mysql-recreated-over-volumes-replicas-replicate.test.ts shows it on MariaDB. docs/mysqlcluster.md: "A key
// merely removed from the Secret comes back by itself: the hook keeps the Secret as Metacontroller last applied it,
// which holds the password." This checks the same for the Secret's other password.
import t from 'tap';
import { PASSWORD_KEY, REPLICATION_KEY } from '../../hooks/mysqlcluster/sync.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync as sync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const SECRET = 'my-mysql-mysql';
const spec = { size: 3, version: '8.0' };

/** The request of a running cluster whose observed Secret is `secret` (its volumes exist, its members run). */
function running(secret: KubeObject): CompositeSyncRequest {
  const labels = {
    'app.kubernetes.io/name': 'mysql',
    'app.kubernetes.io/instance': 'my-mysql',
    // The cluster's uid (the example's), as its StatefulSet's claim template marks them.
    'mysqlcluster.metaops.io/uid': '3d2c7b8e-1f0a-4c55-8f2e-7a9b6c5d4e33',
  };
  const claims = [0, 1, 2].map(
    (i) =>
      ({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: `data-my-mysql-mysql-${i}`, namespace: 'default', labels },
      }) as KubeObject,
  );
  const req = request('mysqlcluster', spec, {
    children: objectMap([secret], 'v1', ['Secret.v1', 'StatefulSet.apps/v1', 'Service.v1']),
    related: objectMap(claims, 'v1', ['Pod.v1', 'PersistentVolumeClaim.v1']),
  });
  req.parent.status = { secretName: SECRET };
  return req;
}

t.test(
  "a replication password removed from a running cluster's Secret comes back as Metacontroller last applied it",
  async (t) => {
    let n = 0;
    const first = sync(request('mysqlcluster', spec), FIXED_NOW, () => `generated-${++n}`);
    const made = first.children.find((c) => c.kind === 'Secret' && c.metadata.name === SECRET)!;
    const data = made['data'] as Record<string, string>;
    // As Metacontroller stores it: the last-applied annotation holds what it applied; then someone edits the Secret
    // and removes the replication key (kubectl edit, or a tool that rewrites Secrets with the keys it knows).
    const observed = asObserved(made);
    observed.metadata.annotations = { [LAST_APPLIED]: JSON.stringify(made) };
    observed['data'] = { [PASSWORD_KEY]: data[PASSWORD_KEY]! };
    const res = sync(running(observed), FIXED_NOW, () => `generated-${++n}`);
    const answered = res.children.find((c) => c.kind === 'Secret' && c.metadata.name === SECRET) as KubeObject;
    const replication = (answered['data'] as Record<string, string>)[REPLICATION_KEY];
    t.equal(
      Buffer.from(replication ?? '', 'base64').toString(),
      Buffer.from(data[REPLICATION_KEY]!, 'base64').toString(),
      'the replication password the replicas were set up with, not a new one (which locks every replica out of member 0)',
    );
  },
);
