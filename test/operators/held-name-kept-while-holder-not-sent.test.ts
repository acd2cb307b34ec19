// A parent held for a child name remembers the holder (status.heldBy) and stays held while that holder exists and
// wants the name, even while the child itself is gone for a moment (lib/ownership.ts). It judges the holder by the
// related objects Metacontroller sends, which are what the parent's customize answer asked for. Metacontroller keeps
// that answer per parent uid and generation (v4.17.2 pkg/controller/common/customize/manager.go: 20 minutes;
// v1.5.20: per name and generation, with no expiry), and writing status.heldBy does not change the generation: a
// holder that customize asks for only because the status records it (a name another kind's spec chooses, such as an
// S3 resource's spec.secretName) is not sent until the answer is asked again. "Not sent" is not "gone": the parent
// stays held, and takes the name only once the holder has not been seen for longer than that cache keeps an answer
// (HOLDER_UNSEEN_SECONDS, recorded in status.heldBy[].unseenSince). A holder customize asks for by a name the
// parent's own name makes (lib/holders.ts holderRules) is sent whenever it exists: not sent is gone, at once.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { HOLDER_UNSEEN_SECONDS } from '../../lib/ownership.js';
// Every kind metaops serves is defined, as in the server (lib/holders.ts knows a kind once its definition is made).
import '../../main/operators.js';
import { NS, paymentsHolder, relatedFor, rulesOf, shopMysqlSecret } from '../fixtures/held-names.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';

/**
 * A sync as Metacontroller v4 makes it with the customize answer it keeps for the generation: asked when the parent
 * was `asked` (before its status recorded anything), the related objects those rules find in `namespace`.
 */
function syncCached(
  def: CompositeHookDefinition,
  req: CompositeSyncRequest,
  asked: ParentObject,
  namespace: KubeObject[],
  now = FIXED_NOW,
) {
  return runHook(def, 'sync', { ...req, related: relatedFor(rulesOf(def, asked), namespace) }, { now });
}

function parentOf(kind: 'memcached' | 'mysqlcluster', name: string, spec: Record<string, unknown>, status?: unknown) {
  const req = request(kind, spec);
  req.parent.metadata = { ...req.parent.metadata, name, namespace: NS, uid: `uid-${kind}-${name}`, generation: 1 };
  if (status !== undefined) req.parent.status = status as never;
  return req;
}

const heldBy = (res: any) => res.status?.heldBy as any[] | undefined;
const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
const named = (res: any, kind: string) =>
  res.children.filter((c: any) => c.kind === kind).map((c: any) => c.metadata.name as string);
const later = (seconds: number, from: Date = FIXED_NOW) => new Date(from.getTime() + seconds * 1000);

// MySQLCluster `shop` wants Secret `shop-mysql`; S3 resource `payments` chose that name (spec.secretName) and holds it.
const payments = paymentsHolder();
const paymentsSecret = shopMysqlSecret(payments);
const SPEC = { size: 3, version: '8.0' };

t.test('a MySQLCluster held by an S3 resource that its cached customize answer does not ask for', async (t) => {
  // First sync of the generation: customize asked now (no status yet), the Secret there: held, the holder recorded.
  const first = parentOf('mysqlcluster', 'shop', SPEC);
  const asked = first.parent;
  t.notOk(
    rulesOf(mysqlcluster, asked).some((r) => r.resource === 's3s'),
    'before anything is recorded, customize asks for no S3 resource (the Secret name is one any S3 may choose)',
  );
  const held = await syncCached(mysqlcluster, first, asked, [payments, paymentsSecret]);
  t.match(ready(held), { status: 'False', reason: 'SecretNameTaken' }, 'held while the Secret exists');
  t.match(heldBy(held), [{ child: { kind: 'Secret', name: 'shop-mysql' }, holder: { name: 'payments' } }]);

  t.test('the Secret still there: held, judged by its controller reference', async (t) => {
    const res = await syncCached(mysqlcluster, parentOf('mysqlcluster', 'shop', SPEC, held.status), asked, [
      payments,
      paymentsSecret,
    ]);
    t.match(ready(res), {
      status: 'False',
      reason: 'SecretNameTaken',
      message: /Secret shop-mysql belongs to S3 payments/,
    });
    t.notOk(named(res, 'Secret').includes('shop-mysql'));
    t.same(named(res, 'StatefulSet'), [], 'no StatefulSet made');
  });

  t.test(
    'the Secret gone for a moment, the holder not sent (the cached answer): still held, and says why',
    async (t) => {
      const res = await syncCached(mysqlcluster, parentOf('mysqlcluster', 'shop', SPEC, held.status), asked, [
        payments,
      ]);
      t.notOk(
        named(res, 'Secret').includes('shop-mysql'),
        `does not answer Secret shop-mysql for a holder it cannot see (answered: ${res.children.map((c) => `${c.kind}/${c.metadata.name}`).join(', ')})`,
      );
      t.same(named(res, 'StatefulSet'), [], 'and makes no StatefulSet');
      t.match(ready(res), {
        status: 'False',
        reason: 'SecretNameTaken',
        message:
          /Secret shop-mysql belongs to S3 payments \(uid uid-s3-payments\), which the related objects do not show/,
      });
      t.match(
        heldBy(res),
        [{ holder: { name: 'payments', uid: 'uid-s3-payments' }, unseenSince: FIXED_NOW.toISOString() }],
        'the first time the holder was not seen is recorded',
      );

      // Later syncs keep that time (quiet at rest: the same status), up to the bound.
      const again = await syncCached(
        mysqlcluster,
        parentOf('mysqlcluster', 'shop', SPEC, res.status),
        asked,
        [payments],
        later(HOLDER_UNSEEN_SECONDS - 1),
      );
      t.notOk(named(again, 'Secret').includes('shop-mysql'), 'still held just before the bound');
      t.same(heldBy(again), heldBy(res), 'the record unchanged');
      t.same(ready(again).message, ready(res).message, 'the message unchanged');

      // Metacontroller asks customize again (its cache entry expired): the holder, recorded, is asked for and sent.
      const fresh = parentOf('mysqlcluster', 'shop', SPEC, res.status);
      const judged = await syncCached(mysqlcluster, fresh, fresh.parent, [payments], later(HOLDER_UNSEEN_SECONDS + 60));
      t.match(
        ready(judged),
        {
          status: 'False',
          reason: 'SecretNameTaken',
          message: /S3 payments \(uid uid-s3-payments\), which still exists/,
        },
        'once sent, the holder is judged by its object: held past the bound while it exists and names the Secret',
      );
      t.notOk(heldBy(judged)?.[0]?.unseenSince, 'seen again: no unseen time');
    },
  );

  t.test('the holder gone for good: the name is taken, once the bound has passed', async (t) => {
    const unseen = await syncCached(mysqlcluster, parentOf('mysqlcluster', 'shop', SPEC, held.status), asked, []);
    t.match(ready(unseen), { status: 'False', reason: 'SecretNameTaken' }, 'held at first: not sent is not gone');
    const status = unseen.status;
    const before = await syncCached(
      mysqlcluster,
      parentOf('mysqlcluster', 'shop', SPEC, status),
      asked,
      [],
      later(HOLDER_UNSEEN_SECONDS - 1),
    );
    t.notOk(named(before, 'Secret').includes('shop-mysql'), 'held until the bound');
    const after = await syncCached(
      mysqlcluster,
      parentOf('mysqlcluster', 'shop', SPEC, status),
      asked,
      [],
      later(HOLDER_UNSEEN_SECONDS + 1),
    );
    t.ok(named(after, 'Secret').includes('shop-mysql'), 'the Secret is answered: the name is free');
    t.same(named(after, 'StatefulSet'), ['shop-mysql'], 'and the cluster is made');
    t.notOk(heldBy(after), 'no holder recorded any more');
    t.notMatch(ready(after)?.reason ?? '', /NameTaken/);
  });
});

// An EtcdCluster `x-memcached` (its peer Service is named after it) holds Service `x-memcached`, which Memcached `x`
// wants. Memcached's customize asks for EtcdCluster `x-memcached` by the name its own name makes, whatever its status:
// the cached answer sends it whenever it exists.
const etcd = {
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdCluster',
  metadata: { name: 'x-memcached', namespace: NS, uid: 'uid-etcd', generation: 1 },
  spec: { size: 3, repository: 'quay.io/coreos/etcd', version: '3.5.0' },
  status: { phase: 'Running', lastMemberIndex: 2, memberList: [0, 1, 2].map((i) => ({ name: `x-memcached-${i}` })) },
} as unknown as KubeObject;
const peer = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name: 'x-memcached',
    namespace: NS,
    uid: 'uid-svc',
    ownerReferences: [
      {
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdCluster',
        name: 'x-memcached',
        uid: 'uid-etcd',
        controller: true,
      },
    ],
  },
  spec: { clusterIP: 'None' },
} as unknown as KubeObject;

t.test('a Memcached held by an EtcdCluster that customize asks for by name, with the cached answer', async (t) => {
  const first = parentOf('memcached', 'x', { size: 1 });
  const asked = first.parent;
  const held = await syncCached(memcached, first, asked, [etcd, peer]);
  t.match(ready(held), { status: 'False', reason: 'ServiceNameTaken' });
  const gone = await syncCached(memcached, parentOf('memcached', 'x', { size: 1 }, held.status), asked, [etcd]);
  t.notOk(named(gone, 'Service').includes('x-memcached'), 'the Service gone for a moment: held, the holder sent');
  t.notOk(heldBy(gone)?.[0]?.unseenSince, 'the holder is seen');
  const free = await syncCached(memcached, parentOf('memcached', 'x', { size: 1 }, held.status), asked, []);
  t.ok(named(free, 'Service').includes('x-memcached'), 'the holder asked for and not sent is gone: the name is taken');
});

t.test(
  'an unseen time later than the sync counts from the sync: the hold is never longer than the bound',
  async (t) => {
    const first = parentOf('mysqlcluster', 'shop', SPEC);
    const held = await syncCached(mysqlcluster, first, first.parent, [payments, paymentsSecret]);
    const future = later(365 * 24 * 3600).toISOString();
    const status = { ...held.status, heldBy: heldBy(held)!.map((r) => ({ ...r, unseenSince: future })) };
    const res = await syncCached(mysqlcluster, parentOf('mysqlcluster', 'shop', SPEC, status), first.parent, []);
    t.match(heldBy(res), [{ unseenSince: FIXED_NOW.toISOString() }], 'counted from this sync');
    const after = await syncCached(
      mysqlcluster,
      parentOf('mysqlcluster', 'shop', SPEC, res.status),
      first.parent,
      [],
      later(HOLDER_UNSEEN_SECONDS + 1),
    );
    t.ok(named(after, 'Secret').includes('shop-mysql'), 'free once the bound has passed from the first sync');
  },
);
