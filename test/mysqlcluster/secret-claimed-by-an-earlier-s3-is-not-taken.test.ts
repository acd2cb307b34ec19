// S3 resource `pay` is made first with `spec.secretName: shop-mysql`; its first sync meets an AWS that does not answer
// (an outage, Throttling), so its IAM user, bucket and key are not made. MySQLCluster `shop`, made a minute later,
// wants Secret `shop-mysql` (its root and replication passwords). No name shape says which S3 resource chose a name,
// and customize never asks for every S3 resource of a namespace, so the MySQLCluster cannot see pay's spec: before,
// the name was free until pay's AWS calls were done, the MySQLCluster took it, and pay's workload, which mounts
// `shop-mysql` for AWS keys, was handed the MySQL passwords (finding 3 of issue 31's reverted first fix). Now pay's
// answer claims the name whatever AWS answers (hooks/s3/sync.ts claimOf: the Secret, pending, without keys), and the
// MySQLCluster finds it by name: SecretNameTaken naming pay, no Secret and no StatefulSet answered.
import t from 'tap';
import '../../main/operators.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import { AwsError } from '../../hooks/s3/api.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { FakeAws, viewOf } from '../fixtures/fake-aws.js';
import { NS, relatedFor, rulesOf } from '../fixtures/held-names.js';
import { created } from '../fixtures/parents-made-together.js';
import { mysqlSync, s3Sync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { S3_DEFAULTS } from '../fixtures/s3.js';
import { named } from '../fixtures/applied-world.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

t.test(
  'a MySQLCluster made after an S3 resource that chose its Secret name, AWS silent, does not take it',
  async (t) => {
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
    const silent = viewOf(new FakeAws(), (method) => {
      throw new AwsError('ServiceUnavailable', `Service unavailable (${method})`, method);
    });
    const first = await s3Sync({ controller: {}, parent: pay as never, children: {}, related: {} }, silent, FIXED_NOW);
    t.match(ready(first), { status: 'False' }, 'pay is not Ready: AWS did not answer');
    // What Metacontroller made of pay's answer: the Secret it claimed, if any.
    const namespace = [pay, ...first.children.filter((c) => c.kind === 'Secret').map((c) => created(c, pay))];

    const req = request('mysqlcluster', { size: 3, version: '8.0' });
    named(req.parent, {
      name: 'shop',
      namespace: NS,
      uid: 'uid-shop',
      generation: 1,
      creationTimestamp: '2026-01-02T03:01:00Z',
    });
    const res = mysqlSync({ ...req, related: relatedFor(rulesOf(mysqlcluster, req.parent), namespace) }, FIXED_NOW);
    t.comment(
      `shop: Ready=${ready(res).status} ${ready(res).reason}; answered ${res.children.map((c) => c.metadata.name)}`,
    );
    t.notOk(
      res.children.some((c) => c.kind === 'Secret' && c.metadata.name === 'shop-mysql'),
      'MySQLCluster shop does not answer Secret shop-mysql, which S3 pay (made before it) claimed',
    );
    t.notOk(
      res.children.some((c) => c.kind === 'StatefulSet'),
      'nor a StatefulSet that would mount it',
    );
    t.match(ready(res), { status: 'False', reason: 'SecretNameTaken' }, 'it says why');
    t.match(ready(res).message, /Secret shop-mysql belongs to S3 pay \(uid uid-s3-pay\)/, 'naming S3 pay');
  },
);
