// Two EtcdRestores wanting one cluster: EtcdRestore r is past its point of no return (the old members dropped, its
// restored members started from its checked snapshot) when a newer EtcdRestore r2 is made (a second operator, a
// retry "to be sure", the same EtcdRestore recreated by a GitOps tool). A restore checks before it acts: r2's check
// must not undo r (nothing is dropped until r2's check passes; whether r2 waits for r or is checked beside it is
// the fix's choice), and a refused r2 leaves r's restore carrying on — its members restarted from r's snapshot when
// lost, its deadline kept, its success recorded on r — never an empty cluster bootstrapped over it, and never a
// status saying the cluster "is as it was". Each answer fed back as the next observed state, and both EtcdRestore
// hooks run after every sync, as Metacontroller runs them.
import t from 'tap';
import { RESTORE_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { restoredMembersWait, restoredServe, restoreObject, running } from '../fixtures/etcd-loop.js';
import { fetchesSnapshot, later, newerWhileRestoring, syncAll } from '../fixtures/restore-steps.js';

t.test(
  'a restored member lost while a newer EtcdRestore is checked starts again from the snapshot, not empty',
  async (t) => {
    const { loop, r, r2, restored } = await newerWhileRestoring();
    t.same(restored, ['e-3', 'e-4', 'e-5'], "r's restored members run");
    t.ok(
      restored.every((p) => fetchesSnapshot(loop, p)),
      "they start from r's snapshot",
    );
    // A drain takes one of r's restored members before any served; r2's check still runs.
    loop.lose('e-4');
    for (let i = 0; i < 3; i++) {
      loop.now = later(120 + i * 60);
      await syncAll(loop, [r, r2]);
      const pods = loop.pods();
      t.same(
        pods.filter((p) => !fetchesSnapshot(loop, p)),
        [],
        `sync ${i + 1}: no member started empty while a restore runs and another is checked (pods ${pods.join(', ')})`,
      );
      t.not(
        (loop.s().conditions as any[]).find((c) => c.type === 'Available')?.reason,
        'Bootstrapping',
        `sync ${i + 1}: nothing bootstrapped`,
      );
    }
  },
);

t.test(
  'a newer EtcdRestore refused by its check leaves the running restore carrying on, not an empty cluster',
  async (t) => {
    const { loop, r, r2 } = await newerWhileRestoring();
    loop.check = { succeeded: false, reason: 's3://bucket/ns/other.db: NoSuchKey: The specified key does not exist.' };
    loop.now = later(120);
    await syncAll(loop, [r, r2]);
    await syncAll(loop, [r, r2]);
    t.notMatch(
      (loop.s().conditions as any[]).find((c) => c.type === 'Restore')?.message ?? '',
      /the cluster is as it was/,
      "the cluster is not as it was: r dropped its members and r's restore runs",
    );
    t.notOk(loop.s().restore?.untouched, 'not recorded as a cluster left untouched');
    // A drain then takes one of r's restored members before any served.
    loop.lose('e-4');
    for (let i = 0; i < 3; i++) {
      loop.now = later(180 + i * 60);
      await syncAll(loop, [r, r2]);
      const pods = loop.pods();
      t.same(
        pods.filter((p) => !fetchesSnapshot(loop, p)),
        [],
        `sync ${i + 1}: no empty member bootstrapped over r's restore (pods ${pods.join(', ')})`,
      );
    }
  },
);

t.test("after a newer EtcdRestore's refusal, the running restore still has its deadline", async (t) => {
  const { loop, r, r2 } = await newerWhileRestoring();
  loop.check = { succeeded: false, reason: 's3://bucket/ns/other.db: NoSuchKey: The specified key does not exist.' };
  loop.now = later(120);
  await syncAll(loop, [r, r2]);
  await syncAll(loop, [r, r2]);
  // r's restored members never serve (their fetch step cannot start).
  restoredMembersWait(loop);
  for (let i = 0; i < 3; i++) {
    loop.now = later(RESTORE_SECONDS * (i + 2));
    await syncAll(loop, [r, r2]);
  }
  t.match(loop.s(), { phase: 'Failed' }, 'past the deadline the restore has failed');
  t.ok(
    (loop.s().conditions as any[]).some((c) => c.reason === 'RestoreFailed'),
    'RestoreFailed said, naming the waiting pods',
  );
  t.equal(loop.last.resyncAfterSeconds, undefined, 'quiet once failed (no 5 s resync for ever)');
});

t.test('the restore that did restore the cluster is recorded on its EtcdRestore, not as superseded', async (t) => {
  const { loop, r, r2 } = await newerWhileRestoring();
  loop.check = { succeeded: false, reason: 's3://bucket/ns/other.db: NoSuchKey: The specified key does not exist.' };
  loop.now = later(120);
  await syncAll(loop, [r, r2]);
  await syncAll(loop, [r, r2]);
  restoredServe(loop);
  for (let i = 0; i < 3; i++) {
    loop.now = later(180 + i * 60);
    await syncAll(loop, [r, r2]);
  }
  t.match(loop.s(), { phase: 'Running' }, "r's restored members serve");
  t.notMatch(
    (r['status'] as any)?.reason ?? '',
    /restored by the newer EtcdRestore r2/,
    'r does not say r2 restored the cluster (r2 was refused)',
  );
  t.match(r['status'], { succeeded: true }, "r's snapshot is what the cluster runs: r succeeded");
});

t.test('a newer EtcdRestore made and deleted at once while another restores leaves that restore running', async (t) => {
  const { loop, r } = await newerWhileRestoring();
  // r2 deleted again (made by mistake) while its check runs.
  loop.related = [r];
  for (let i = 0; i < 2; i++) {
    loop.now = later(120 + i * 60);
    await syncAll(loop, [r]);
  }
  t.notOk((r['status'] as any)?.succeeded === false, 'r is not ended by a restore that never acted');
  t.match(loop.s().restore, { name: 'r' }, "the cluster's restore record is still r's");
  restoredServe(loop);
  for (let i = 0; i < 3; i++) {
    loop.now = later(240 + i * 60);
    await syncAll(loop, [r]);
  }
  t.match(r['status'], { succeeded: true }, "the cluster runs r's snapshot: r succeeded");
});

t.test(
  "a newer EtcdRestore refused just after another's check passed and dropped the members: the first restores",
  async (t) => {
    const loop = await running({ size: 3 });
    const r = restoreObject('r', '2026-07-01T00:00:00Z');
    loop.related = [r];
    await syncAll(loop, [r]); // r checked
    await syncAll(loop, [r]); // r's check passed: the old members dropped (Replacing)
    t.match(loop.s().restore, { name: 'r', phase: 'Replacing' });
    t.same(loop.pods(), [], 'the old members are gone: r is past its point of no return');
    const r2 = restoreObject('r2', '2026-07-02T00:00:00Z');
    loop.related = [r, r2];
    loop.check = { succeeded: false, reason: 's3://bucket/ns/other.db: NoSuchKey: The specified key does not exist.' };
    for (let i = 0; i < 4; i++) {
      loop.now = later(60 * (i + 1));
      await syncAll(loop, [r, r2]);
    }
    t.ok(loop.pods().length > 0, "r's restored members start (its snapshot was checked, the data it replaces is gone)");
    t.ok(
      loop.pods().every((p) => fetchesSnapshot(loop, p)),
      "they start from r's checked snapshot",
    );
    t.notOk((r['status'] as any)?.succeeded === false, 'r is not ended by the refused r2');
  },
);

t.test(
  'two EtcdRestores of the same second, the one taken refused by its check: the other is not told it was superseded',
  async (t) => {
    const loop = await running({ size: 3 });
    // One `kubectl apply -f restores/` makes both in the same second.
    const a = restoreObject('r-a', '2026-07-01T00:00:00Z');
    const b = restoreObject('r-b', '2026-07-01T00:00:00Z');
    loop.related = [a, b];
    loop.check = 'running';
    await syncAll(loop, [a, b]);
    const taken = loop.s().restore?.name;
    t.ok(taken === 'r-a' || taken === 'r-b', `one of them is checked: ${taken}`);
    const other = taken === 'r-a' ? b : a;
    loop.check = { succeeded: false, reason: 's3://bucket/ns/snap.db: NoSuchKey: The specified key does not exist.' };
    for (let i = 0; i < 3; i++) {
      loop.now = later(60 * (i + 1));
      await syncAll(loop, [a, b]);
    }
    t.match(loop.s().restore, { name: taken, refused: true }, `${taken} refused: the cluster untouched`);
    t.notMatch(
      String((other['status'] as any)?.reason ?? ''),
      /was restored by/,
      `${other.metadata.name} is not told the cluster was restored by ${taken}, which restored nothing`,
    );
  },
);
