// Attack finding (issue 31, "two resources that want one in-cluster thing, of two kinds"): S3 resource `pay` is made
// first with `spec.secretName: shop-mysql`; it answers that Secret only once its first sync has made its IAM user,
// bucket and key (seconds of AWS calls, or for as long as it waits on AWS). MySQLCluster `shop`, made a minute later,
// wants Secret `shop-mysql` (its root and replication passwords). Its customize asks for no S3 resource (a name an
// S3 spec chooses is asked for only as status.heldBy records it, lib/holders.ts), so its first sync never sees that
// `pay`, made before it, wants the name, and answers the Secret (and its StatefulSet and Services). Metacontroller
// (one synchronous hook against an S3 sync of many AWS calls) creates it first; `pay`, the first, is then
// SecretNameTaken for good, and pay's workload, which mounts `shop-mysql` for AWS keys, is handed the MySQL root
// password instead.
// The rule (issue 31): "the first parent keeps working, the second says why not". The reverse order is defended
// (an S3 resource made after MySQLCluster `shop` is held by lib/ownership.ts keptByEarlier, customize asking for the
// MySQLCluster by the Secret's shape: test/attack-findings/s3-default-secret-name-kept-for-the-earlier-s3-until-it-
// makes-it.test.ts "control"). Expected: the MySQLCluster held SecretNameTaken naming S3 pay, no Secret answered.
import t from 'tap';
import '../../main/operators.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { NS, relatedFor, rulesOf } from '../fixtures/held-names.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { S3_DEFAULTS } from '../fixtures/s3.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

t.test('a MySQLCluster made after an S3 resource that chose its Secret name does not take it', async (t) => {
  const pay = {
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: {
      name: 'pay',
      namespace: NS,
      uid: 'uid-s3-pay',
      generation: 1,
      creationTimestamp: '2026-01-02T03:00:00Z',
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
    creationTimestamp: '2026-01-02T03:01:00Z',
  };
  const res = mysqlSync({ ...req, related: relatedFor(rulesOf(mysqlcluster, req.parent), [pay]) }, FIXED_NOW);
  t.comment(
    `shop: Ready=${ready(res).status} ${ready(res).reason}; answered ${res.children.map((c) => c.metadata.name)}`,
  );
  t.notOk(
    res.children.some((c) => c.kind === 'Secret' && c.metadata.name === 'shop-mysql'),
    'MySQLCluster shop does not answer Secret shop-mysql, which S3 pay (made before it) wants',
  );
  t.match(ready(res), { status: 'False', reason: 'SecretNameTaken' }, 'it says why: the name is kept for S3 pay');
});
