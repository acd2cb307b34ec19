// The same as test/operators/child-name-held-after-status-lost.test.ts, with both parents made in the same second (one
// `kubectl apply` of a folder; a namespace restored from a backup, which also loses every status, makes its objects
// within a second or two): the holder is the one made first by the rule the made-together yield uses (the same
// second: the lower uid, lib/ownership.ts firstMade), it holds the name, and the held parent's status is lost. The
// name gone for a moment (the Service deleted by hand to change its type, the Secret deleted by mistake) must not be
// taken by the parent made second while the first still wants it: a parent made a second later is kept out of it
// (wantedByEarlier), one made in the same second must be too.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import '../../main/operators.js';
import { NS, relatedFor, rulesOf, shopMysqlSecret } from '../fixtures/held-names.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';

/** The EtcdCluster `name`, running three members, made an hour before the other parent. */
function etcdCluster(name: string): KubeObject {
  return {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-etcd-${name}`,
      generation: 1,
      creationTimestamp: '2020-01-01T00:00:00Z',
    },
    spec: { size: 3, repository: 'quay.io/coreos/etcd', version: '3.5.0' },
    status: {
      phase: 'Running',
      lastMemberIndex: 2,
      memberList: [0, 1, 2].map((i) => ({ name: `${name}-${i}` })),
      conditions: [{ type: 'Ready', status: 'True', reason: 'Ready' }],
    },
  } as unknown as KubeObject;
}

/** The EtcdCluster's headless peer Service `name`, as its hook made it. */
function peerService(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-svc-${name}`,
      labels: { app: 'etcd', etcd_cluster: name },
      ownerReferences: [
        {
          apiVersion: 'etcd.database.coreos.com/v1beta2',
          kind: 'EtcdCluster',
          name,
          uid: `uid-etcd-${name}`,
          controller: true,
        },
      ],
    },
    spec: { clusterIP: 'None', selector: { app: 'etcd', etcd_cluster: name }, ports: [{ name: 'peer', port: 2380 }] },
  } as unknown as KubeObject;
}

async function syncIn(def: CompositeHookDefinition, req: CompositeSyncRequest, namespace: KubeObject[]) {
  return runHook(def, 'sync', { ...req, related: relatedFor(rulesOf(def, req.parent), namespace) }, { now: FIXED_NOW });
}

function parentOf(kind: 'memcached' | 'mysqlcluster', name: string, spec: Record<string, unknown>) {
  const req = request(kind, spec);
  req.parent.metadata = {
    ...req.parent.metadata,
    name,
    namespace: NS,
    uid: `uid-${kind}-${name}`,
    creationTimestamp: '2020-01-01T00:00:00Z',
  } as never;
  return req;
}

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
const services = (res: any) => res.children.filter((c: any) => c.kind === 'Service').map((c: any) => c.metadata.name);

for (const [kind, def, name, spec, taken] of [
  ['memcached', memcached, 'x', { size: 1 }, 'x-memcached'],
  ['mysqlcluster', mysqlcluster, 'shop', { size: 3, version: '8.0' }, 'shop-mysql'],
] as const) {
  t.test(
    `a ${kind} held for Service ${taken}, an EtcdCluster's peer Service, made in the same second, whose status is lost, does not take the Service while it is gone for a moment and the EtcdCluster still wants it`,
    async (t) => {
      const etcd = etcdCluster(taken);
      const held = await syncIn(def, parentOf(kind, name, spec), [etcd, peerService(taken)]);
      // Held for the Service; a MySQLCluster first for its StatefulSet's pod names shop-mysql-<i>, which the
      // EtcdCluster, made before it, wants for its listed members (their pods are not in this namespace's objects):
      // the reason names the first, the message the EtcdCluster either way.
      t.match(
        ready(held),
        { status: 'False', reason: /^(Service|Pod)NameTaken$/, message: new RegExp(`EtcdCluster ${taken}\\b`) },
        'held while the Service exists',
      );
      if (ready(held).reason === 'ServiceNameTaken') t.ok((held.status as any).heldBy, 'and records the holder');

      // The status is lost (no status.heldBy), then the peer Service is deleted; the EtcdCluster is still there,
      // running (customize sends it), and its hook makes the Service again at its next sync. The held parent's next
      // sync comes first:
      const next = parentOf(kind, name, spec);
      delete (next.parent as any).status;
      const res = await syncIn(def, next, [etcd]);
      t.notOk(
        services(res).includes(taken),
        `the ${kind} does not answer Service ${taken} while EtcdCluster ${taken}, made first (the same second, the lower uid), exists and wants it (answered: ${services(res).join(', ')})`,
      );
      t.equal(ready(res)?.status, 'False', 'and is not Ready');
    },
  );
}

// The same for an S3 resource held for a MySQLCluster's Secret (S3 `payments`, spec.secretName `shop-mysql`;
// MySQLCluster `shop`, made before it, holds Secret `shop-mysql`, its root and replication passwords): the S3
// resource's status lost, then the Secret deleted by mistake. Customize sends MySQLCluster `shop` whatever the S3
// resource's status (lib/holders.ts: the shape `<name>-mysql` makes it): the S3 resource must not make an IAM user and
// key and answer Secret `shop-mysql` with them (the MySQLCluster's passwords could then never be put back under
// their name).
t.test(
  'an S3 resource held for a MySQLCluster`s Secret, made in the same second, its status lost, makes no key and does not answer the Secret while it is gone for a moment',
  async (t) => {
    const { s3 } = await import('../../hooks/s3/index.js');
    const { FakeAws } = await import('../fixtures/fake-aws.js');
    const mysql = {
      apiVersion: 'database.example.com/v1alpha1',
      kind: 'MySQLCluster',
      metadata: {
        name: 'shop',
        namespace: NS,
        uid: 'uid-mysqlcluster-shop',
        generation: 1,
        creationTimestamp: '2020-01-01T00:00:00Z',
      },
      spec: { size: 3, version: '8.0' },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready' }] },
    } as unknown as KubeObject;
    const payments = (status?: unknown) =>
      ({
        controller: {},
        parent: {
          apiVersion: 'systek.no/v1',
          kind: 'S3',
          metadata: {
            name: 'payments',
            namespace: NS,
            uid: 'uid-s3-payments',
            generation: 1,
            creationTimestamp: '2020-01-01T00:00:00Z',
          },
          spec: {
            bucketName: 'shop-payments',
            secretName: 'shop-mysql',
            versioning: false,
            encryption: { type: 'SSE-S3' },
            publicAccessBlock: {},
            deletionPolicy: 'Retain',
            forceDelete: false,
          },
          ...(status ? { status } : {}),
        },
        children: { 'Secret.v1': {} },
      }) as unknown as CompositeSyncRequest;
    const aws = new FakeAws();
    const run = async (req: CompositeSyncRequest, namespace: KubeObject[]) =>
      runHook(
        s3,
        'sync',
        { ...req, related: relatedFor(rulesOf(s3, req.parent), namespace) },
        { now: FIXED_NOW, clients: { aws: async () => aws as never } },
      );
    const held = await run(payments(), [mysql, shopMysqlSecret(mysql)]);
    t.match(ready(held), { status: 'False', reason: 'SecretNameTaken' }, 'held while the Secret exists');
    // The status lost, then the Secret deleted; MySQLCluster shop still exists and wants it.
    t.same(aws.calls, [], 'no AWS call while held');
    const res = await run(payments(), [mysql]);
    t.notOk(
      res.children.some((c) => c.kind === 'Secret' && c.metadata.name === 'shop-mysql'),
      'the S3 resource does not answer Secret shop-mysql while MySQLCluster shop, made first (the same second, the lower uid), exists and wants it',
    );
    t.same(aws.calls, [], `no AWS object is made meanwhile (made: ${JSON.stringify(aws.calls).slice(0, 300)})`);
  },
);
