// Issue 30.5 on real etcd and a real S3 (moto): a restore checks before it acts. A snapshot written by this project's
// backup command; then EtcdRestores with a Secret that does not exist, a key that does not exist and a bucket that
// does not exist each end succeeded: false with the reason, the running cluster untouched (the same members, every
// key readable); one with everything right restores the snapshot. The check pod runs as the test kubelet runs pods:
// this project's CLI, with the pod's Secret volumes and environment.
import t from 'tap';
import { RestoresOnMoto } from '../fixtures/etcd-restore-moto.js';
import { allReady, status } from '../fixtures/etcd-status.js';

const on = new RestoresOnMoto('chk');
const { restore } = on;

t.test(
  'an EtcdRestore with a missing Secret, a wrong key or a wrong bucket ends succeeded: false, the cluster untouched',
  async (t) => {
    // The snapshot, taken by this project's backup command (what an EtcdBackup's Job runs), of 40 keys.
    const k = await on.snapshotted(t, 40);
    for (let i = 0; i < 40; i++) await k.put(`key-${i}`, 'after the snapshot');
    // The restore's credentials, as etcd-operator's awsSecret held them: an AWS credentials and config file.
    on.setAwsSecret(k, 'aws');
    const before = status(await k.step());
    const members = before.memberList.map((m: any) => `${m.name}=${m.id}`);

    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      [
        'a missing Secret',
        { path: 'etcd-backups/default/chk/snap.db', awsSecret: 'no-such-secret' },
        /awsSecret no-such-secret was not found/,
      ],
      ['a wrong key', { path: 'etcd-backups/default/chk/no-such.db', awsSecret: 'aws' }, /NoSuchKey/],
      ['a wrong bucket', { path: 'no-such-bucket/default/chk/snap.db', awsSecret: 'aws' }, /NoSuchBucket/],
    ];
    let day = 1;
    for (const [what, s3, reason] of cases) {
      const r = restore(`r${day}`, `2026-07-0${day++}T00:00:00Z`, s3);
      k.related = [...k.related, r];
      const done = await k.converge(
        `${what}: the restore ends`,
        (res) => {
          // At every sync until then: the members as they were, none dropped.
          const pods = res.children.filter((c) => c.kind === 'Pod' && c.metadata.name !== 'chk-restore-check');
          t.same(pods.map((p) => p.metadata.name).sort(), ['chk-0', 'chk-1', 'chk-2'], `${what}: no member dropped`);
          return (r['status'] as any)?.succeeded === false;
        },
        60_000,
      );
      t.comment(`${what}: refused after ${(done.ms / 1000).toFixed(1)}s (${done.syncs} syncs)`);
      t.match(r['status'], { succeeded: false, reason });
      const after = await k.step();
      t.equal(status(after).phase, 'Running', `${what}: the cluster runs`);
      t.match(
        status(after).conditions.find((c: any) => c.type === 'Available'),
        { status: 'True' },
      );
      t.match(
        status(after).conditions.find((c: any) => c.type === 'Restore'),
        { status: 'False', reason: 'RestoreRefused', message: reason },
      );
      t.same(
        status(after).memberList.map((m: any) => `${m.name}=${m.id}`),
        members,
        `${what}: the same members`,
      );
      for (let i = 0; i < 40; i++)
        t.equal(await k.get(`key-${i}`), 'after the snapshot', `${what}: key-${i} readable, unchanged`);
    }

    // Everything right: checked, then restored.
    k.nodeEnv = {}; // the restored members' fetch uses the Secret too
    const good = restore('good', '2026-07-09T00:00:00Z', {
      path: 'etcd-backups/default/chk/snap.db',
      awsSecret: 'aws',
    });
    k.related = [...k.related, good];
    const phases: string[] = [];
    await k.converge(
      'restored',
      (res) => {
        const phase = status(res).restore?.phase;
        if (phase && phases.at(-1) !== phase) phases.push(phase);
        return phase === 'Restored' && allReady(3)(res);
      },
      120_000,
    );
    t.same(phases, ['Checking', 'Replacing', 'Restoring', 'Restored']);
    t.equal((good['status'] as any).succeeded, true);
    for (let i = 0; i < 40; i++) t.equal(await k.get(`key-${i}`), 'in the snapshot');

    // The restored members' sandboxes recreated at once (a power cut): their init steps run again, and leave the
    // data they have (written after the restore) as it is; nothing is fetched from S3.
    await k.put('after-restore', 'kept');
    const restored = status(await k.step()).memberList.map((m: any) => `${m.name}=${m.id}`);
    on.moto.pause();
    try {
      await Promise.all(k.livePods().map((p) => k.recreateSandbox(p)));
      await k.converge('back after the sandboxes were recreated', allReady(3), 60_000);
    } finally {
      on.moto.resume();
    }
    t.same(
      status(await k.step()).memberList.map((m: any) => `${m.name}=${m.id}`),
      restored,
      'the same members',
    );
    t.equal(await k.get('after-restore'), 'kept', 'the data written after the restore is kept');
    t.equal(await k.get('key-0'), 'in the snapshot');
  },
);
