// A backup Job's pod is read by its container named `backup` (hooks/etcdbackup/sync.ts podResult): a container a
// mutating webhook added to the pod (a mesh proxy before it, a log shipper after it) that waits for its image, keeps
// running or has ended says nothing of the backup: its termination message is never taken for the backup's result.
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { podResult } from '../../hooks/etcdbackup/sync.js';

const pod = (containerStatuses: unknown[]): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'b-1-x', namespace: 'ns' },
  status: { phase: 'Running', containerStatuses },
});
const result = { succeeded: true, key: 'bk/e_v1_2026.db', etcdRevision: 7 };
const backup = {
  name: 'backup',
  state: { terminated: { exitCode: 0, message: JSON.stringify(result), finishedAt: '2026-07-01T00:00:00Z' } },
};

t.test('the backup container is read whatever the sidecars around it do', async (t) => {
  const waits = { name: 'istio-proxy', state: { waiting: { reason: 'ImagePullBackOff' } } };
  const ended = {
    name: 'log-shipper',
    state: { terminated: { exitCode: 1, message: JSON.stringify({ succeeded: false, reason: 'shipper failed' }) } },
  };
  t.match(podResult(pod([waits, backup, ended]))?.result, result, 'the backup result, not the sidecar');
  t.match(podResult(pod([ended, backup]))?.result, result, 'a sidecar ended first is not the result');
  t.equal(
    podResult(pod([ended, { name: 'backup', state: { running: {} } }])),
    undefined,
    'no result until backup ends',
  );
});
