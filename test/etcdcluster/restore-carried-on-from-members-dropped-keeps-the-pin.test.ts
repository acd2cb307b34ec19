// A restore carried on from its EtcdRestore's own status after the EtcdCluster's status was lost while it was
// Replacing (its old members dropped, no restored member made yet: plan/restore-rebuilt.ts). The check pinned the
// bytes it verified (their sha256, and the copy or the version where they stay: hooks/etcdcommon/pin.ts); the
// cluster's record of that pin went with its status. The EtcdRestore keeps it (status.checked, sticky like
// membersDropped), and every restored member's fetch step gets it: a key written again meanwhile (a refreshed
// "latest") is refused, never restored as other bytes. Each answer fed back as the next observed state.
import t, { type Test } from 'tap';
import { answeredPod, type Loop, restoreObject, running } from '../fixtures/etcd-loop.js';
import { later, syncAll } from '../fixtures/restore-steps.js';

const SHA = 'cd'.repeat(32);
const fetchArgs = (loop: Loop, name: string): string[] =>
  (((answeredPod(loop, name)?.['spec'] as any)?.initContainers ?? []) as any[]).find((c) => c.name === 'fetch-snapshot')
    ?.args ?? [];
const arg = (args: string[], name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

async function droppedThenStatusLost(t: Test, check: Record<string, unknown>): Promise<{ loop: Loop; r: any }> {
  const loop = await running({ size: 3 });
  const r = restoreObject('r', '2026-07-01T00:00:00Z');
  loop.related = [r];
  await syncAll(loop, [r]); // Checking
  loop.check = { succeeded: true, ...check } as any;
  await syncAll(loop, [r]); // Replacing: the old members dropped, the pin recorded
  t.match(loop.s().restore, { name: 'r', phase: 'Replacing', snapshot: { sha256: SHA } }, 'the check pinned');
  t.same(loop.pods(), [], 'no member pod is left');
  t.equal((r['status'] as any)?.membersDropped, true, 'r says its old members were dropped');
  loop.etcd.members = [];
  loop.etcd.up.clear();
  loop.status = undefined; // the cluster's status lost: its record of the pin with it
  return { loop, r };
}

async function carriedOn(loop: Loop, r: any): Promise<string[]> {
  let pods: string[] = [];
  for (let i = 0; i < 6 && pods.length === 0; i++) {
    loop.now = later(60 + i * 30);
    await syncAll(loop, [r]);
    pods = loop.pods().filter((p) => fetchArgs(loop, p).length > 0);
  }
  return pods;
}

t.test('a restore carried on from membersDropped fetches the copy its check pinned, and only its bytes', async (t) => {
  const { loop, r } = await droppedThenStatusLost(t, { sha256: SHA, pinned: true });
  const pods = await carriedOn(loop, r);
  t.equal(pods.length, 3, `the restored members start (${loop.pods().join(',') || 'no member pod'})`);
  for (const p of pods) {
    const args = fetchArgs(loop, p);
    t.equal(arg(args, '--s3-path'), 'bucket/ns/snap.db', `${p} fetches the snapshot checked`);
    t.equal(arg(args, '--sha256'), SHA, `${p} refuses any bytes but those checked`);
    t.equal(arg(args, '--pinned-path'), 'bucket/ns/snap.db.restore-uid-r', `${p} fetches the copy the check made`);
  }
  t.match(loop.s().restore, { name: 'r', snapshot: { sha256: SHA } }, "the cluster's record has the pin again");
});

t.test('a restore carried on from membersDropped fetches the version its check pinned', async (t) => {
  const { loop, r } = await droppedThenStatusLost(t, { sha256: SHA, versionId: 'v-7', pinned: true });
  const pods = await carriedOn(loop, r);
  t.equal(pods.length, 3, 'the restored members start');
  for (const p of pods) {
    t.equal(arg(fetchArgs(loop, p), '--sha256'), SHA, `${p} refuses any bytes but those checked`);
    t.equal(arg(fetchArgs(loop, p), '--version-id'), 'v-7', `${p} fetches the version checked`);
  }
});

t.test('a spec edited after the check: carried on from membersDropped, the source checked is fetched', async (t) => {
  const { loop, r } = await droppedThenStatusLost(t, { sha256: SHA, pinned: true });
  r.spec.s3.path = 'bucket/ns/edited.db';
  const pods = await carriedOn(loop, r);
  t.equal(pods.length, 3, 'the restored members start');
  for (const p of pods) t.equal(arg(fetchArgs(loop, p), '--s3-path'), 'bucket/ns/snap.db', `${p}: the path checked`);
});

t.test('a pin written into the EtcdRestore status by hand that names another place is not fetched', async (t) => {
  const { loop, r } = await droppedThenStatusLost(t, { sha256: SHA, pinned: true });
  r.status.checked = { ...r.status.checked, snapshot: { sha256: SHA, pinnedPath: 'other/elsewhere.db' } };
  const pods = await carriedOn(loop, r);
  for (const p of pods) t.notOk(fetchArgs(loop, p).join(' ').includes('elsewhere'), `${p} fetches nothing elsewhere`);
});
