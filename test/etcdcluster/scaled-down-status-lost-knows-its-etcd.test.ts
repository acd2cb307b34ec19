// Issue 30 (status lost at every step of a scale): an EtcdCluster takes an etcd answer as its own only when the
// answer's cluster ID is one it made (identity.ts): the ID its status recorded, or the ID of a bootstrap of its
// own consecutive ordinals up to the highest ordinal "seen" (status.lastMemberIndex, or the pods observed). A
// cluster bootstrapped with 5 members (e-0..e-4) and scaled down to 3 keeps the cluster ID of its bootstrap (etcd
// never changes it), but once its status is lost (an object restored from a Kubernetes backup, a status rewrite)
// the highest ordinal seen is e-2: the window e-0..e-4 is never searched, the cluster's own etcd is taken for
// another cluster's, and the hook reports QuorumLost for ever over a healthy cluster. Nothing is managed again
// (no replacement, no scaling, no upgrade), and the only way out the status leaves is an EtcdRestore, which drops
// the members that hold the data. The same holds for 3 -> 1.
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts; FakeEtcd answers with the cluster
// ID etcd computes for the members it was bootstrapped with).
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

for (const [from, to] of [
  [5, 3],
  [3, 1],
] as const) {
  t.test(
    `a cluster scaled down from ${from} to ${to} whose status is lost still takes its own etcd's answers`,
    async (t) => {
      const loop = await running({ size: from });
      const id = loop.s().clusterID;
      t.ok(id, 'the bootstrap cluster ID recorded');
      loop.spec = { ...loop.spec, size: to };
      for (let i = 0; i < 10 && loop.pods().length !== to; i++) {
        loop.now = new Date(FIXED_NOW.getTime() + i * 5000);
        await loop.step();
      }
      await loop.step();
      t.equal(loop.pods().length, to, `scaled down to ${to}`);
      t.match(condition(loop.last, 'Available'), { status: 'True', reason: 'QuorumAvailable' }, 'healthy before');
      const calls = loop.etcd.calls.length;
      // The status is lost (the object restored from a backup of Kubernetes objects): pods and etcd unchanged.
      loop.status = undefined;
      for (let i = 0; i < 3; i++) {
        const res = await loop.step();
        t.match(
          condition(res, 'Available'),
          { status: 'True', reason: 'QuorumAvailable' },
          `sync ${i + 1}: the healthy cluster is seen as healthy`,
        );
        t.equal(loop.s().phase, 'Running');
        t.equal(loop.s().clusterID, id, `sync ${i + 1}: its own cluster ID recognised`);
      }
      t.equal(loop.etcd.calls.length, calls, 'no membership change');
    },
  );
}
