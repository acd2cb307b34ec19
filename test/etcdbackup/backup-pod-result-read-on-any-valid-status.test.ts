// A backup pod is observed data: its container status is the request's JSON, and valid JSON of any shape must be read,
// never thrown on (the framework's rule, test/lib/framework-on-doubt.test.ts: a throw in a sync is a 500, and the
// EtcdBackup is never synced again while the pod is observed as it is). The result's time and an unreadable message
// are read with `String(...)`, which throws on `{"toString": 1}`.
import t from 'tap';
import { podResult } from '../../hooks/etcdbackup/sync.js';
import type { KubeObject } from '../../lib/metacontroller.js';

const odd = { toString: 1 };

const backupPod = (terminated: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'b-backup-1' },
    status: { phase: 'Failed', containerStatuses: [{ name: 'backup', state: { terminated } }] },
  }) as never;

const cases: Array<[string, Record<string, unknown>]> = [
  ['a message that is an object', { exitCode: 1, message: odd }],
  ['a finish time that is an object, the message no JSON', { exitCode: 1, message: 'killed', finishedAt: odd }],
  [
    'a finish time that is an object, the message a result',
    { exitCode: 0, message: '{"succeeded":true}', finishedAt: odd },
  ],
];

for (const [what, terminated] of cases)
  t.test(`a backup pod whose container ended with ${what}: its result is read`, async (t) => {
    t.doesNotThrow(() => podResult(backupPod(terminated)), 'read');
  });
