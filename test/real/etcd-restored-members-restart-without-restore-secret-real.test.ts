// Issues 30.1 and 30.5 on real etcd and a real S3 (moto): members restart in place, restored members too, for as long
// as they live. A restore's awsSecret is needed to fetch the snapshot once; afterwards a tenant deletes it (temporary
// restore credentials, a rotation, a clean-up). The restored members' pods keep their restore steps and the Secret's
// volume for life: when their sandboxes are recreated (a node reboot, a container-runtime restart, a power cut) the
// kubelet has to mount that volume before the steps that would find the data kept can run. The test kubelet runs the
// pods as test/real/etcd-restore-real.test.ts does (a Secret volume that does not exist keeps the pod waiting).
import t from 'tap';
import { RestoresOnMoto } from '../fixtures/etcd-restore-moto.js';
import { allReady, status } from '../fixtures/etcd-status.js';

const on = new RestoresOnMoto('kept');
const { restore } = on;

t.test(
  'restored members whose restore Secret was deleted since come back as themselves when their sandboxes are recreated',
  async (t) => {
    // The snapshot, taken by this project's backup command (what an EtcdBackup's Job runs), of 20 keys.
    const k = await on.snapshotted(t, 20);
    on.setAwsSecret(k, 'aws');
    k.nodeEnv = {};
    const good = restore('good', '2026-07-09T00:00:00Z', {
      path: on.path,
      awsSecret: 'aws',
    });
    k.related = [good];
    await k.converge('restored', (res) => status(res).restore?.phase === 'Restored' && allReady(3)(res), 120_000);
    t.equal((good['status'] as any).succeeded, true, 'restored');
    await k.put('after-restore', 'written since');
    const restored = status(await k.step())
      .memberList.map((m: any) => `${m.name}=${m.id}`)
      .sort();

    // Done with it: the restore's credentials are deleted. Later a power cut recreates every member's sandbox.
    k.secrets.delete('aws');
    await Promise.all(k.livePods().map((p) => k.recreateSandbox(p)));
    let back = true;
    try {
      await k.converge('back after the sandboxes were recreated', allReady(3), 60_000);
    } catch (err) {
      back = false;
      t.comment((err as Error).message.slice(0, 600));
    }
    t.ok(back, 'every member runs again within a minute');
    const after = status(await k.step());
    t.comment(JSON.stringify(after.conditions?.find((c: any) => c.type === 'Available')));
    t.same(after.memberList.map((m: any) => `${m.name}=${m.id}`).sort(), restored, 'the same members');
    t.equal(await k.get('after-restore').catch(() => undefined), 'written since', 'the data written since is served');
  },
);
