// An EtcdCluster whose member claims name a StorageClass that does not exist (a typo) makes no claim and waits
// (Ready and Available False, ClaimsHeld True, all StorageClassNotSeen) without a deadline: a Warning event says so
// once, when the conditions take the reason (lib/events.ts conditionEvents), so `kubectl describe` shows why the
// cluster never starts; the same status fed back tells nothing again.
import t from 'tap';
import { conditionEvents } from '../../lib/events.js';
import { ETCDCLUSTER_EVENTS } from '../../hooks/etcdcluster/events.js';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { etcdClaimRequest, quietEtcd } from '../fixtures/etcd.js';

t.test('a new EtcdCluster naming a StorageClass that does not exist says so in one Warning event', async (t) => {
  const request = etcdClaimRequest({ storageClassName: 'fast-sdd' });
  const res = await etcdSync(request, { etcd: quietEtcd as never, now: FIXED_NOW });
  const events = conditionEvents(request.parent, res.status, ETCDCLUSTER_EVENTS);
  t.match(
    events,
    [{ type: 'Warning', reason: 'StorageClassNotSeen', note: /fast-sdd/ }],
    'one Warning naming the class',
  );
  const again = { ...request.parent, status: res.status as Record<string, unknown> };
  t.same(conditionEvents(again, res.status, ETCDCLUSTER_EVENTS), [], 'the same status fed back tells nothing');
});
