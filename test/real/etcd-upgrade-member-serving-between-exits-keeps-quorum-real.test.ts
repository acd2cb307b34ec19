// On real etcd, run by the test kubelet (restartPolicy Always, its back-off): an upgrade to an image whose etcd
// serves a few seconds after each start and then dies (a panic on its first compaction, on a request its clients
// send). A sync may see the upgraded member serving between two deaths; the rollout must not take that for a member
// that works and move a second member onto the image meanwhile: two of three on it leave quorum lost by metaops' own
// act. Expected: the upgrade fails, quorum is kept at every sync, the cluster ends at full strength on the version it
// ran with every key.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { condition, status } from '../fixtures/etcd-status.js';

etcdBin();

const settled = (size: number, version: string) => (res: CompositeSyncResponse) => {
  const s = status(res);
  return s.members.ready.length === size && s.members.unready.length === 0 && s.currentVersion === version;
};

t.test(
  'an upgrade to an image whose etcd dies seconds after each start: quorum kept, the upgrade failed',
  async (t) => {
    const k = new EtcdKubelet('flap', { size: 3, version: '3.5.21' });
    t.teardown(() => k.shutdown());
    // Image v3.6.9: the real etcd 3.6.9, killed 3 s after each start.
    const flapping = join(k.dir, 'etcd-flapping');
    writeFileSync(flapping, `#!/bin/sh\n(sleep 3; kill -9 $$) &\nexec ${join(etcdBin(), 'etcd-v3.6.9')} "$@"\n`);
    chmodSync(flapping, 0o755);
    k.images.set('v3.6.9', flapping);
    await k.converge('size 3 on 3.5.21', settled(3, '3.5.21'));
    for (let i = 0; i < 20; i++) await k.put(`key-${i}`, `value-${i}`);
    k.setSpec({ ...k.spec, version: '3.6.9' });
    const lost: string[] = [];
    const onImage: number[] = [];
    const start = Date.now();
    let res: CompositeSyncResponse | undefined;
    while (Date.now() - start < 60_000) {
      res = await k.step();
      const images = res.children.filter((c) => c.kind === 'Pod').map((p: any) => p.spec.containers[0].image);
      onImage.push(images.filter((i: string) => i.endsWith(':v3.6.9')).length);
      if (status(res).quorum?.ok === false) lost.push(`${((Date.now() - start) / 1000).toFixed(1)}s`);
      if (condition(res, 'Upgrading')?.reason === 'UpgradeFailed' && settled(3, '3.5.21')(res)) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    t.comment(`members on 3.6.9 per sync: ${onImage.join('')}`);
    t.same(lost, [], 'quorum never lost during the upgrade');
    t.ok(Math.max(...onImage) <= 1, 'never more than one member on the image that keeps dying');
    t.match(condition(res!, 'Upgrading'), { status: 'False', reason: 'UpgradeFailed' }, 'the upgrade failed');
    for (let i = 0; i < 20; i++) t.equal(await k.get(`key-${i}`), `value-${i}`);
  },
);
