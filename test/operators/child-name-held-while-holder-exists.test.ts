// Issue 31: "A child that belongs to another parent is never taken or served ... the first keeps working, the second
// says why it does not". EtcdCluster keeps coreos's names (its peer Service is `<name>`, its client Service
// `<name>-client`), so an EtcdCluster `x-memcached` and a Memcached `x` want Service `x-memcached`, an EtcdCluster
// `shop-mysql` and a MySQLCluster `shop` want Service `shop-mysql`. The second is held (ServiceNameTaken) while the
// first's Service exists. But a Service is deleted now and then (by hand to change its type or clusterIP, by a
// namespace clean-up, a restore from backup): for a moment the name is free, and the parent held answers it at its
// next sync (it resyncs every 30 s while held). Metacontroller creates whichever answer comes first; when the held
// parent wins, the EtcdCluster's headless peer Service becomes the Memcached's (or the MySQL's write Service): the
// members' peer names (`<member>.<cluster>.<ns>.svc`) stop resolving, the first parent is the one held from then on,
// and the etcd clients reach memcached. Pod names held this way stay held while their holder exists and wants them
// (status.heldBy, lib/podholders.ts), and so does an S3 Secret name; Service names do not: neither Memcached nor
// MySQLCluster asks for, or judges, the holder of a Service name (lib/ownership.ts HolderWants).
//
// And with the held parent's status lost, so without that record: a status is lost now and then (the parent
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
// Every kind metaops serves is defined, as in the server: a kind's child names are known once its definition is made
// (lib/holders.ts), and an EtcdCluster holder is judged by its own.
import '../../main/operators.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import {
  etcdCluster,
  parentOf,
  paymentsHolder,
  paymentsS3,
  peerService,
  ready,
  services,
  shopMysqlCluster,
  shopMysqlSecret,
  syncIn,
} from '../fixtures/held-names.js';

/** The parents held for an EtcdCluster's peer Service: kind, definition, name, spec, and the Service name taken. */
const heldForService = [
  ['memcached', memcached, 'x', { size: 1 }, 'x-memcached'],
  ['mysqlcluster', mysqlcluster, 'shop', { size: 3, version: '8.0' }, 'shop-mysql'],
] as const;

for (const [kind, def, name, spec, taken] of heldForService) {
  t.test(
    `a ${kind} held for Service ${taken}, an EtcdCluster's peer Service, stays held while the Service is gone for a moment and the EtcdCluster still wants it`,
    async (t) => {
      const etcd = etcdCluster(taken);
      const held = await syncIn(def, parentOf(kind, name, spec), [etcd, peerService(taken)]);
      // (The EtcdCluster lists members `<name>-<i>`, also a MySQLCluster's member names: a running cluster's pods
      // hold them and the MySQLCluster is PodNameTaken; here its pods are not among the objects and the EtcdCluster,
      // made before the MySQLCluster, still wants them. The reason names the first name held.)
      const heldReason = {
        status: 'False',
        reason: /^(Service|Pod)NameTaken$/,
        message: new RegExp(`EtcdCluster ${taken} `),
      };
      t.match(ready(held), heldReason, 'held while the Service exists');
      t.notOk(services(held).includes(taken), 'and does not answer it');

      // The peer Service is deleted (by hand, a clean-up); the EtcdCluster is still there, running, and its hook
      // makes the Service again at its next sync. The held parent's next sync comes first:
      const next = parentOf(kind, name, spec);
      next.parent.status = held.status as never;
      const res = await syncIn(def, next, [etcd]);
      t.notOk(
        services(res).includes(taken),
        `the ${kind} does not answer Service ${taken} while EtcdCluster ${taken} exists and wants it (answered: ${services(res).join(', ')})`,
      );
      t.match(ready(res), heldReason, 'and still says why');
    },
  );
}

// The same for a Secret name: MySQLCluster `shop` wants Secret `shop-mysql`, which S3 resource `payments` (spec.secretName
// `shop-mysql`) holds with its bucket's credentials. While the Secret exists the MySQLCluster is held
// (SecretNameTaken). S3 Secrets are deleted now and then on purpose (to have the S3 hook make a new key); the held
// MySQLCluster's next sync then answers Secret `shop-mysql` with new root and replication passwords and its
// StatefulSet, Metacontroller creates them, and the S3 resource (the first owner) is held from then on, its workloads
// without credentials. S3 resources judge each other this way (status.heldBy); a MySQLCluster does not judge an S3.
t.test(
  'a MySQLCluster held for Secret shop-mysql, an S3 resource`s credentials, stays held while the Secret is gone for a moment and the S3 resource still names it',
  async (t) => {
    const payments = paymentsHolder();
    const secret = shopMysqlSecret(payments);
    const spec = { size: 3, version: '8.0' };
    const held = await syncIn(mysqlcluster, parentOf('mysqlcluster', 'shop', spec), [payments, secret]);
    t.match(ready(held), { status: 'False', reason: 'SecretNameTaken' }, 'held while the Secret exists');
    const next = parentOf('mysqlcluster', 'shop', spec);
    next.parent.status = held.status as never;
    const res = await syncIn(mysqlcluster, next, [payments]);
    const secrets = res.children.filter((c) => c.kind === 'Secret').map((c) => c.metadata.name);
    t.notOk(
      secrets.includes('shop-mysql'),
      `the MySQLCluster does not answer Secret shop-mysql while S3 payments exists and names it (answered: ${res.children.map((c) => `${c.kind}/${c.metadata.name}`).join(', ')})`,
    );
    t.match(ready(res), { status: 'False', reason: 'SecretNameTaken' }, 'and still says why');
  },
);

// And the other way round: S3 resource `payments` (spec.secretName `shop-mysql`) held because MySQLCluster `shop`
// holds Secret `shop-mysql` (its root and replication passwords). That Secret is deleted by mistake: the MySQLCluster
// does not make new passwords over data volumes that have them (Ready=False CredentialsLost, docs/mysqlcluster.md: put
// the Secret back by hand). The held S3 resource's next sync takes the name first: it makes an access key and answers
// Secret `shop-mysql` with it. The user can no longer put the MySQL Secret back (the name is the S3 resource's), the
// MySQLCluster is held, and its members' next start fails (the Secret has no root-password key). S3 judges only S3
// holders (hooks/s3/sync.ts holderWants: "Holders of other kinds are not judged").
t.test(
  'an S3 resource held for a MySQLCluster`s Secret stays held while that Secret is gone for a moment and the MySQLCluster still wants it',
  async (t) => {
    const mysql = shopMysqlCluster();
    const secret = shopMysqlSecret(mysql);
    const aws = new FakeAws();
    const clients = { aws: async () => aws as never };
    const held = await syncIn(s3, paymentsS3(), [mysql, secret], clients);
    t.match(ready(held), { status: 'False', reason: 'SecretNameTaken' }, 'held while the Secret exists');
    const res = await syncIn(s3, paymentsS3(held.status), [mysql], clients);
    t.notOk(
      res.children.some((c) => c.kind === 'Secret' && c.metadata.name === 'shop-mysql'),
      'the S3 resource does not answer Secret shop-mysql while MySQLCluster shop exists and wants it',
    );
    t.same(aws.calls, [], `no AWS object is made meanwhile (made: ${JSON.stringify(aws.calls)})`);
  },
);

// The held parent's status lost: no record of the holder.

/** The holder is made at FIRST; the held parent an hour after it, or in the same second. */
const FIRST = '2020-01-01T00:00:00Z';
const timings = [
  { when: '', made: '2020-01-01T01:00:00Z', first: 'made before it' },
  { when: ', made in the same second,', made: FIRST, first: 'made first (the same second, the lower uid)' },
] as const;

for (const { when, made, first } of timings) {
  for (const [kind, def, name, spec, taken] of heldForService) {
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
