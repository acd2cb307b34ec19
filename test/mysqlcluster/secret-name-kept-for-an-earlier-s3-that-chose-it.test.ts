// S3 resource `pay` is made first with `spec.secretName: shop-mysql`; it answers that Secret only once its sync has
// made its IAM user, bucket and key (seconds of AWS calls, or for as long as it waits on AWS). MySQLCluster `shop`,
// made a minute later, wants Secret `shop-mysql` (its root and replication passwords). No name shape says which S3
// resource chose the name, so the MySQLCluster, whose status records no sync of its generation yet, asks customize for
// every S3 resource of its namespace (lib/holders.ts holderRules), sees `pay`, made before it and wanting the name,
// and is SecretNameTaken naming it (lib/ownership.ts keptByEarlier): no Secret answered, so pay's workload, which
// mounts `shop-mysql` for AWS keys, is never handed the MySQL root password (issue 31: "the first parent keeps
// working, the second says why not"). The reverse order (an S3 resource made after MySQLCluster `shop`):
// test/s3/default-secret-name-kept-for-an-earlier-s3-until-it-makes-it.test.ts.
import t from 'tap';
import '../../main/operators.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { NS, relatedFor, rulesOf } from '../fixtures/held-names.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { S3_DEFAULTS } from '../fixtures/s3.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
const everyS3 = (rules: ReturnType<typeof rulesOf>) => rules.some((r) => r.resource === 's3s' && !r.names);

t.test('a MySQLCluster made after an S3 resource that chose its Secret name does not take it', async (t) => {
  const pay = {
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: {
      name: 'pay',
      namespace: NS,
      uid: 'uid-s3-pay',
      generation: 1,
      creationTimestamp: new Date(Date.now() - 120_000).toISOString(),
    },
    spec: { ...S3_DEFAULTS, bucketName: 'shop-pay-bucket', secretName: 'shop-mysql' },
  } as unknown as KubeObject;
  const req = request('mysqlcluster', { size: 3, version: '8.0' });
  req.parent.metadata = {
    ...req.parent.metadata,
    name: 'shop',
    namespace: NS,
    uid: 'uid-shop',
    generation: 1,
    creationTimestamp: new Date(Date.now() - 60_000).toISOString(),
  };
  t.ok(everyS3(rulesOf(mysqlcluster, req.parent)), 'shop, not synced yet, asks for every S3 resource of its namespace');
  const res = mysqlSync({ ...req, related: relatedFor(rulesOf(mysqlcluster, req.parent), [pay]) }, FIXED_NOW);
  t.comment(
    `shop: Ready=${ready(res).status} ${ready(res).reason}; answered ${res.children.map((c) => c.metadata.name)}`,
  );
  t.notOk(
    res.children.some((c) => c.kind === 'Secret' && c.metadata.name === 'shop-mysql'),
    'MySQLCluster shop does not answer Secret shop-mysql, which S3 pay (made before it) wants',
  );
  t.match(ready(res), { status: 'False', reason: 'SecretNameTaken' }, 'it says why: the name is kept for S3 pay');
  t.match(ready(res).message, /Secret shop-mysql belongs to S3 pay .*made before this MySQLCluster/, 'naming S3 pay');
  const held = { ...req.parent, status: res.status } as ParentObject;
  const rules = rulesOf(mysqlcluster, held);
  t.notOk(everyS3(rules), 'shop, synced, no longer asks for every S3 resource');
  t.ok(
    rules.some((r) => r.resource === 's3s' && (r.names ?? []).includes('pay')),
    'shop asks for S3 pay, the holder its status records',
  );
});
