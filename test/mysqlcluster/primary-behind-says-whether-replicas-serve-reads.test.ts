// A member 0 that stays read-only because a replica holds more (PrimaryBehind) takes writes down, not reads: the
// replicas that hold everything member 0 holds stay Ready and serve reads (hooks/mysqlcluster/scripts.ts
// REPLICATION_PROBE; on MariaDB: test/real/mysql-replicas-keep-serving-reads-while-member-0-volume-lost.test.ts). The
// status says which replicas serve them, or that none does.
import t, { type Test } from 'tap';
import { PRIMARY_BEHIND } from '../../hooks/mysqlcluster/scripts.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { member0Pod } from '../fixtures/mysql-pods.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const OWNER = 'uid-StatefulSet-my-mysql-mysql';
const message = `${PRIMARY_BEHIND} member 0 has no transactions; my-mysql-mysql-1.my-mysql-mysql-headless has 0-100-8;`;

const member0 = (): KubeObject =>
  member0Pod(
    {
      ready: false,
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: { exitCode: 3, message } },
    },
    { owner: OWNER, conditions: [{ type: 'Ready', status: 'False' }] },
  );

/** Replica `ordinal`, Ready or not (its replication sidecar's probe). */
function replica(ordinal: number, ready: boolean): KubeObject {
  const pod = member0Pod(
    { ready },
    { owner: OWNER, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  );
  pod.metadata.name = `my-mysql-mysql-${ordinal}`;
  return pod;
}

function readyMessage(t: Test, pods: KubeObject[]): string {
  const res = mysqlSync(request('mysqlcluster', { size: 3, version: '8.0' }, { related: objectMap(pods) }), FIXED_NOW);
  const ready = (res.status!['conditions'] as Array<{ type: string; reason: string; message: string }>).find(
    (c) => c.type === 'Ready',
  )!;
  t.equal(ready.reason, 'PrimaryBehind');
  return ready.message;
}

t.test('the replicas that serve reads are named, with the read Service', async (t) => {
  const said = readyMessage(t, [member0(), replica(1, true), replica(2, true)]);
  t.match(
    said,
    /It stays read-only and takes no writes, so nothing a replica holds is lost\. Reads go on: my-mysql-mysql-1, my-mysql-mysql-2 \(holding everything member 0 holds\) serve them through Service my-mysql-mysql-read\. To recover/,
  );
});

t.test('one replica Ready of two: only it is named', async (t) => {
  const said = readyMessage(t, [member0(), replica(1, false), replica(2, true)]);
  t.match(
    said,
    /Reads go on: my-mysql-mysql-2 \(holding everything member 0 holds\) serves them through Service my-mysql-mysql-read\./,
  );
  t.notMatch(said, /my-mysql-mysql-1,/);
});

t.test('no replica Ready: the status says reads are down too', async (t) => {
  const said = readyMessage(t, [member0(), replica(1, false)]);
  t.match(said, /No replica serves reads now \(none is Ready\)\. To recover/);
  t.notMatch(said, /Reads go on/);
});
