// A restore checks before it acts (issue 30.5), on real etcd: the check pod's etcd-image and restore-tool steps run
// the restored members' etcd image (`etcd --version`, `etcdutl version`) as the test kubelet runs images. With the
// image good, those steps pass and the check goes on to S3 (here moto, with a bucket that does not exist: a verdict on
// the snapshot, refused for that at once; an endpoint nothing listens on would be made again until the check's
// deadline, as a mesh proxy not yet listening refuses connections too). With
// an image whose etcd cannot run (a broken build, the wrong architecture), the check fails at that step, at once,
// naming it; in both cases no member is dropped and every key stays readable.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { startMoto, type Moto } from '../fixtures/moto.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { status } from '../fixtures/etcd-status.js';

etcdBin();
/** A real S3 (moto) without the restores' bucket: a check that gets past the image steps fails there (NoSuchBucket). */
let moto: Moto;
t.before(async () => {
  moto = await startMoto();
});
t.teardown(() => moto?.stop());
const settled = (res: CompositeSyncResponse) =>
  status(res).members.ready.length === 3 && status(res).members.unready.length === 0;

const restore = (name: string, created: string): KubeObject => ({
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdRestore',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, creationTimestamp: created },
  spec: {
    etcdCluster: { name: 'img' },
    backupStorageType: 'S3',
    s3: { path: 'etcd-backups/default/img/none.db', endpoint: moto.endpoint, awsSecret: 'aws' },
  },
});

t.test("the check runs the members' etcd image before any member is dropped", async (t) => {
  const k = new EtcdKubelet('img', { size: 3, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  k.settings = { backup: etcdSettings({ env: { METAOPS_BACKUP_S3_ENDPOINTS: moto.endpoint } }).backup! };
  k.setSecret('aws', { credentials: '[default]\naws_access_key_id = a\naws_secret_access_key = b\n' });
  await k.converge('size 3', settled);
  for (let i = 0; i < 20; i++) await k.put(`key-${i}`, 'kept');
  const members = status(await k.step()).memberList.map((m: any) => `${m.name}=${m.id}`);

  const until = async (what: string, r: KubeObject) => {
    k.related = [r];
    return k.converge(
      what,
      (res) => {
        const pods = res.children.filter((c) => c.kind === 'Pod' && c.metadata.name !== 'img-restore-check');
        t.same(pods.map((p) => p.metadata.name).sort(), ['img-0', 'img-1', 'img-2'], `${what}: no member dropped`);
        return status(res).restore?.uid === r.metadata.uid && status(res).restore?.phase === 'Failed';
      },
      60_000,
    );
  };
  // The image good: its steps pass, the check reaches S3 (no such bucket there) and fails for that.
  await until('a good image', restore('r1', '2026-07-01T00:00:00Z'));
  t.notMatch(status(await k.step()).restore.reason, /etcd-image|restore-tool/, 'the image steps passed');

  // The image's etcd cannot run.
  const broken = join(k.dir, 'etcd-broken');
  writeFileSync(broken, '#!/bin/sh\nexit 126\n');
  chmodSync(broken, 0o755);
  k.images.set('v3.6.9', broken);
  await until('an image whose etcd cannot run', restore('r2', '2026-07-02T00:00:00Z'));
  const after = status(await k.step());
  t.match(after.restore, {
    phase: 'Failed',
    untouched: true,
    reason: /etcd-image \(image quay\.io\/coreos\/etcd:v3\.6\.9\) exited with 126/,
  });
  t.same(
    after.memberList.map((m: any) => `${m.name}=${m.id}`),
    members,
    'the same members',
  );
  for (let i = 0; i < 20; i++) t.equal(await k.get(`key-${i}`), 'kept', `key-${i} readable`);
});
