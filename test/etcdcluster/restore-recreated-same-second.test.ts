// An EtcdRestore deleted and recreated under the same name (`kubectl replace --force -f restore.yaml`, a script that
// deletes and applies again after fixing the key): creation times have a resolution of one second, so the new
// object may carry the very timestamp of the one it replaces. The new EtcdRestore is another request (another
// UID): the one it replaced was refused by its check and restored nothing, so it is not "superseded" by it, and the
// cluster checks it like any new restore.
import t from 'tap';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { running, restoreObject, type Loop } from '../fixtures/etcd-loop.js';
import { restoreSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

function restoreHook(loop: Loop, r: KubeObject): Record<string, unknown> {
  const cluster = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns', creationTimestamp: loop.creationTimestamp },
    status: loop.s(),
  };
  const res = restoreSync(
    {
      controller: {},
      parent: r as ParentObject,
      related: objectMap([cluster], 'v1', ['EtcdCluster.etcd.database.coreos.com/v1beta2']),
    },
    FIXED_NOW,
  );
  r['status'] = res.status;
  return res.status as Record<string, unknown>;
}

t.test(
  'an EtcdRestore refused by its check, recreated under its name within the same second, is checked',
  async (t) => {
    const loop = await running({ size: 3 });
    const first = restoreObject('r', '2026-07-01T00:00:00Z', undefined, 'uid-first');
    (first['spec'] as any).s3.path = 'bucket/ns/typo.db';
    loop.related = [first];
    loop.check = 'running';
    await loop.step();
    loop.check = { succeeded: false, reason: 's3://bucket/ns/typo.db: NoSuchKey: The specified key does not exist.' };
    await loop.step();
    t.match(loop.s().restore, { uid: 'uid-first', phase: 'Failed', untouched: true });
    t.match(restoreHook(loop, first), { succeeded: false });
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'nothing restored, the cluster as it was');
    // Deleted, and created again with the key fixed, in the same second.
    const again = restoreObject('r', '2026-07-01T00:00:00Z', undefined, 'uid-again');
    loop.related = [again];
    loop.check = 'running';
    await loop.step();
    t.match(loop.s().restore, { uid: 'uid-again', phase: 'Checking' }, 'the new EtcdRestore is checked');
    const status = restoreHook(loop, again);
    t.notMatch(status, { reason: /restored by the newer EtcdRestore/ }, 'it is not said to be superseded');
    t.not(status['succeeded'], false, 'it is not ended before it acted');
  },
);
