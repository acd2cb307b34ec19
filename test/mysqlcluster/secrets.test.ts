// MySQLCluster's password memory (hooks/mysqlcluster/sync.ts): the Secret is the only memory of the root and
// replication passwords, so every answer (children and status) is fed back as the next observed state, as
// Metacontroller does, over several syncs. A new root password is made only for a cluster that never had one.
import t from 'tap';
import {
  existingVolumes,
  namesOf,
  observedKey,
  observedPassword,
  PASSWORD_KEY,
  REPLICATION_KEY,
} from '../../hooks/mysqlcluster/sync.js';
import { mysqlSync as sync } from '../fixtures/hooks.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const SECRET = 'my-mysql-mysql';
const spec = { size: 1, version: '8.0' };
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const secretOf = (res: CompositeSyncResponse) =>
  res.children.find((c) => c.kind === 'Secret' && c.metadata.name === SECRET) as any;
const condition = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === type);
const refuse = () => {
  throw new Error('a new password must not be generated');
};

/** Metacontroller for one MySQLCluster: the answer's children and status are the next sync's observed state. */
class Loop {
  status: Record<string, unknown> | undefined;
  children: KubeObject[] = [];
  related: KubeObject[] = [];
  generated = 0;
  newPassword = () => `generated-${++this.generated}`;
  step(): CompositeSyncResponse {
    const req: CompositeSyncRequest = request('mysqlcluster', spec, {
      children: objectMap(
        this.children.map((c) => asObserved(c)),
        'v1',
        ['Secret.v1', 'StatefulSet.apps/v1', 'Service.v1'],
      ),
      related: objectMap(this.related, 'v1', ['Pod.v1', 'PersistentVolumeClaim.v1']),
    });
    if (this.status) req.parent.status = structuredClone(this.status);
    const res = sync(req, FIXED_NOW, this.newPassword);
    this.status = res.status as Record<string, unknown>;
    this.children = res.children;
    return res;
  }
  /** Someone deletes the Secret (Metacontroller no longer observes it). */
  deleteSecret() {
    this.children = this.children.filter((c) => c.kind !== 'Secret');
  }
}

t.test('the passwords are made once and kept over many syncs', async (t) => {
  const loop = new Loop();
  const first = secretOf(loop.step());
  t.equal(loop.generated, 2, 'a root and a replication password');
  t.not(first.data[PASSWORD_KEY], first.data[REPLICATION_KEY]);
  t.equal(Buffer.from(first.data[PASSWORD_KEY], 'base64').toString('utf8'), 'generated-1');
  for (let i = 0; i < 4; i++) {
    const res = loop.step();
    t.same(secretOf(res).data, first.data, `sync ${i + 2}: the same bytes`);
    t.equal((res.status as any).secretName, SECRET);
  }
  t.equal(loop.generated, 2, 'nothing generated after the first sync');
});

t.test('a Secret deleted after creation: no new password, sync after sync, while the status is fed back', async (t) => {
  const loop = new Loop();
  loop.step();
  loop.step();
  loop.deleteSecret();
  loop.newPassword = refuse;
  for (let i = 0; i < 3; i++) {
    const res = loop.step();
    t.notOk(secretOf(res), `sync ${i}: no Secret with a new password`);
    t.equal(
      (res.status as any).secretName,
      SECRET,
      `sync ${i}: the status still names the Secret (the memory of the next sync)`,
    );
    t.match(condition(res, 'Ready'), { status: 'False', reason: 'CredentialsLost' });
    t.match(condition(res, 'CredentialsAvailable'), {
      status: 'False',
      reason: 'CredentialsLost',
      message: new RegExp(
        `Secret ${SECRET} \\(key ${PASSWORD_KEY}\\) was deleted or emptied after the cluster was created; they keep the root password`,
      ),
    });
  }
  t.ok(
    loop.children.some((c) => c.kind === 'StatefulSet'),
    'the StatefulSet is kept',
  );
});

t.test(
  'a Secret emptied, or holding no usable password: kept as it is, never overwritten with a new one',
  async (t) => {
    for (const [label, value] of [
      ['emptied', ''],
      ['a number', 12345],
      ['null', null],
      ['missing', undefined],
    ] as const) {
      const loop = new Loop();
      loop.step();
      const secret = loop.children.find((c) => c.kind === 'Secret')!;
      const data = { ...(secret['data'] as Record<string, unknown>) };
      if (value === undefined) delete data[PASSWORD_KEY];
      else data[PASSWORD_KEY] = value;
      secret['data'] = data;
      loop.newPassword = refuse;
      for (let i = 0; i < 2; i++) {
        const res = loop.step();
        t.same(secretOf(res)?.data, data, `${label}, sync ${i}: the observed Secret is kept unchanged`);
        t.match(condition(res, 'Ready'), { reason: 'CredentialsLost' }, `${label}, sync ${i}`);
        t.equal((res.status as any).secretName, SECRET);
        // The Secret is there (a child already): the instruction puts its key back, it does not create it.
        const { message } = condition(res, 'CredentialsAvailable');
        t.match(message, `patch secret ${SECRET} --type=merge`, `${label}: the key put back`);
        t.notMatch(message, /create secret/, `${label}: not created again`);
      }
    }
  },
);

t.test('a new cluster over the volumes of an old one gets no new password', async (t) => {
  // The claims of this cluster's lineage: marked with its uid (the example's; a previous cluster's claims, adopted).
  const labels = {
    'app.kubernetes.io/name': 'mysql',
    'app.kubernetes.io/instance': 'my-mysql',
    'mysqlcluster.metaops.io/uid': '3d2c7b8e-1f0a-4c55-8f2e-7a9b6c5d4e33',
  };
  const claim = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, labels, ...extra },
  });
  const loop = new Loop();
  loop.related = [claim('data-my-mysql-mysql-0')];
  loop.newPassword = refuse;
  const res = loop.step();
  t.notOk(secretOf(res));
  t.match(condition(res, 'CredentialsAvailable'), {
    reason: 'CredentialsLost',
    message: /does not exist, but data volumes of a cluster with this name do \(data-my-mysql-mysql-0\)/,
  });
  t.notOk((res.status as any).secretName, 'no Secret was ever observed or recorded');
  // Claims that are not this cluster's volumes, or that are going, or malformed entries, do not count.
  const other = new Loop();
  other.related = [
    claim('data-other-0'),
    claim('data-my-mysql-mysql-0', { deletionTimestamp: '2026-01-01T00:00:00Z' }),
  ];
  const fresh = other.step();
  t.ok(secretOf(fresh), 'a fresh cluster gets its passwords');
  t.equal(other.generated, 2);
});

t.test('a cluster from before replication gets a replication password, its root password kept', async (t) => {
  const loop = new Loop();
  loop.step();
  const secret = loop.children.find((c) => c.kind === 'Secret')!;
  secret['data'] = { [PASSWORD_KEY]: b64('old-root') };
  const res = loop.step();
  t.equal(secretOf(res).data[PASSWORD_KEY], b64('old-root'));
  t.equal(secretOf(res).data[REPLICATION_KEY], b64('generated-3'));
  t.same(secretOf(loop.step()).data, secretOf(res).data, 'and both kept from then on');
});

t.test('observedKey reads only own, non-empty string values', async (t) => {
  // The claims of this cluster's lineage: marked with its uid (the example's; a previous cluster's claims, adopted).
  const labels = {
    'app.kubernetes.io/name': 'mysql',
    'app.kubernetes.io/instance': 'my-mysql',
    'mysqlcluster.metaops.io/uid': '3d2c7b8e-1f0a-4c55-8f2e-7a9b6c5d4e33',
  };
  const s = (data: unknown) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: SECRET }, data }) as KubeObject;
  t.equal(observedKey(s({ k: 'djE=' }), 'k'), 'djE=');
  t.equal(observedKey(s({ k: '' }), 'k'), undefined);
  t.equal(observedKey(s({ k: 7 }), 'k'), undefined);
  t.equal(observedKey(s(null), 'k'), undefined);
  t.equal(observedKey(s('kkk'), 'k'), undefined);
  t.equal(observedKey(undefined, 'k'), undefined);
  t.equal(observedKey(s({}), 'toString'), undefined, 'an inherited member is not a key');
  t.equal(observedPassword(s({ [PASSWORD_KEY]: 'cHc=' })), 'cHc=');
  const req = request('mysqlcluster', spec);
  req.related = {
    'PersistentVolumeClaim.v1': {
      a: null as any,
      b: 'x' as any,
      'data-my-mysql-mysql-1': {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data-my-mysql-mysql-1', labels },
      },
    },
  };
  t.same(existingVolumes(req, namesOf('my-mysql')), ['data-my-mysql-mysql-1'], 'malformed entries are skipped');
  const claim = (name: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, labels } });
  req.related = {
    'PersistentVolumeClaim.v1': { b: claim('data-my-mysql-mysql-2'), a: claim('data-my-mysql-mysql-0') } as any,
  };
  t.same(
    existingVolumes(req, namesOf('my-mysql')),
    ['data-my-mysql-mysql-0', 'data-my-mysql-mysql-2'],
    'sorted, whatever the order of the map',
  );
});
