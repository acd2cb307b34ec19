// Issue 31: "A child that belongs to another parent is never taken or served". A parent held for a child name that
// another parent's child holds remembers the holder in status.heldBy and stays held while the holder's object is gone
// for a moment (test/operators/child-name-held-while-holder-exists.test.ts). A status is lost now and then (the parent
// restored from a Kubernetes backup, which keeps no status; a status written over by hand or by a tool). The holder
// is still sent by customize whatever the status (its name is made from the held parent's own name: lib/holders.ts
// holderRules asks for it `always`), and its object says it wants the name: the held parent can judge it without a
// record. When the holder's Service is deleted (by hand to change its type, a clean-up) after the held parent's status
// is lost, the held parent must not answer the Service: Metacontroller would create it with the held parent's
// selector, the first parent's clients would reach the second's pods, and the first would be the one held.
//
// Each case twice: the held parent made an hour after the holder, and both made in the same second (one `kubectl
// apply` of a folder; a namespace restored from a backup, which also loses every status, makes its objects within a
// second or two). In the same second the holder is the one made first by the rule the made-together yield uses (the
// lower uid, lib/ownership.ts firstMade): a parent made a second later is kept out of the name (wantedByEarlier), one
// made in the same second must be too.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import { s3 } from '../../hooks/s3/index.js';
import '../../main/operators.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import {
  etcdCluster,
  parentOf,
  paymentsS3,
  peerService,
  ready,
  services,
  shopMysqlCluster,
  shopMysqlSecret,
  syncIn,
} from '../fixtures/held-names.js';

/** The holder is made at FIRST; the held parent an hour after it, or in the same second. */
const FIRST = '2020-01-01T00:00:00Z';
const timings = [
  { when: '', made: '2020-01-01T01:00:00Z', first: 'made before it' },
  { when: ', made in the same second,', made: FIRST, first: 'made first (the same second, the lower uid)' },
] as const;

for (const { when, made, first } of timings) {
  for (const [kind, def, name, spec, taken] of [
    ['memcached', memcached, 'x', { size: 1 }, 'x-memcached'],
    ['mysqlcluster', mysqlcluster, 'shop', { size: 3, version: '8.0' }, 'shop-mysql'],
  ] as const) {
    t.test(
      `a ${kind} held for Service ${taken}, an EtcdCluster's peer Service${when} whose status is lost, does not take the Service while it is gone for a moment and the EtcdCluster still wants it`,
      async (t) => {
        const etcd = etcdCluster(taken, FIRST);
        const held = await syncIn(def, parentOf(kind, name, spec, made), [etcd, peerService(taken)]);
        // The EtcdCluster lists members `<name>-<i>`, which are also a MySQLCluster's member names: a running
        // cluster's pods hold them and the MySQLCluster is PodNameTaken; here its pods are not among the objects, and
        // the EtcdCluster, made first, still wants them, so either name kind may be the first named; the message
        // names the EtcdCluster either way.
        t.match(ready(held), { status: 'False', reason: /^(Service|Pod)NameTaken$/ }, 'held while the Service exists');
        t.match(ready(held)?.message, new RegExp(`EtcdCluster ${taken}\\b`), 'naming the EtcdCluster');
        t.ok((held.status as any).heldBy, 'and records the holder');

        // The status is lost (no status.heldBy), then the peer Service is deleted; the EtcdCluster is still there,
        // running (customize sends it), and its hook makes the Service again at its next sync. The held parent's
        // next sync comes first:
        const next = parentOf(kind, name, spec, made);
        delete (next.parent as any).status;
        const res = await syncIn(def, next, [etcd]);
        t.notOk(
          services(res).includes(taken),
          `the ${kind} does not answer Service ${taken} while EtcdCluster ${taken}, ${first}, exists and wants it (answered: ${services(res).join(', ')})`,
        );
        t.equal(ready(res)?.status, 'False', 'and is not Ready');
      },
    );
  }

  // The same for an S3 resource held for a MySQLCluster's Secret (S3 `payments`, spec.secretName `shop-mysql`;
  // MySQLCluster `shop`, made first, holds Secret `shop-mysql`, its root and replication passwords): the S3
  // resource's status lost, then the Secret deleted by mistake. Customize sends MySQLCluster `shop` whatever the S3
  // resource's status (lib/holders.ts: the shape `<name>-mysql` makes it): the S3 resource must not make an IAM user
  // and key and answer Secret `shop-mysql` with them (the MySQLCluster's passwords could then never be put back under
  // their name).
  t.test(
    `an S3 resource held for a MySQLCluster\`s Secret${when.replace(/,$/, '')}, its status lost, makes no key and does not answer the Secret while it is gone for a moment`,
    async (t) => {
      const mysql = shopMysqlCluster(FIRST);
      const aws = new FakeAws();
      const clients = { aws: async () => aws as never };
      const held = await syncIn(s3, paymentsS3(undefined, made), [mysql, shopMysqlSecret(mysql)], clients);
      t.match(ready(held), { status: 'False', reason: 'SecretNameTaken' }, 'held while the Secret exists');
      // The status lost, then the Secret deleted; MySQLCluster shop still exists and wants it.
      t.same(aws.calls, [], 'no AWS call while held');
      const res = await syncIn(s3, paymentsS3(undefined, made), [mysql], clients);
      t.notOk(
        res.children.some((c) => c.kind === 'Secret' && c.metadata.name === 'shop-mysql'),
        `the S3 resource does not answer Secret shop-mysql while MySQLCluster shop, ${first}, exists and wants it`,
      );
      t.same(aws.calls, [], `no AWS object is made meanwhile (made: ${JSON.stringify(aws.calls).slice(0, 300)})`);
    },
  );
}
