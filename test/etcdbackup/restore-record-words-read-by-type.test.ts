// The cluster's record of a restore (EtcdCluster status.restore) and an EtcdRestore's own status are read by type:
// a name, phase, reason, path or time that is no string (an object whose toString is no function, a list, a number)
// never throws the EtcdRestore hook; it answers with its status as for a value not given.
import t from 'tap';
import type { CompositeSyncResponse, ParentObject } from '../../lib/metacontroller.js';
import { restoreObject } from '../fixtures/etcd-loop.js';
import { restoreSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const CREATED = '2026-07-01T00:00:00Z';
const HOSTILE: unknown[] = [{ toString: 1 }, { toString: 1, valueOf: 1 }, ['x'], 7];

function answer(status: unknown, own?: Record<string, unknown>, uid?: string): CompositeSyncResponse {
  const cluster = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns' },
    status,
  };
  return restoreSync(
    {
      controller: {},
      parent: restoreObject('r', CREATED, own, uid) as ParentObject,
      related: objectMap([cluster], 'v1', ['EtcdCluster.etcd.database.coreos.com/v1beta2']),
    },
    FIXED_NOW,
  );
}
const ready = (res: CompositeSyncResponse) =>
  ((res.status as any)?.conditions ?? []).find((c: any) => c.type === 'Ready') as Record<string, unknown>;

for (const v of HOSTILE) {
  const what = JSON.stringify(v);
  t.test(`a record whose words are ${what}: an answer, no throw`, async (t) => {
    // Another restore's record, taken instead of this one (its name and time not strings).
    const other = answer({ restore: { uid: 'uid-other', name: v, created: v, phase: 'Replacing' } });
    t.type(ready(other)?.['message'], 'string', 'another restore: a message');
    // Another restore past its point of no return, named by a value that is no string.
    const past = answer({ restore: { uid: 'uid-other', name: v, created: CREATED, phase: 'Restoring' } });
    t.type(ready(past)?.['message'], 'string');
    // This restore's own record: its phase, reason and path not strings.
    for (const phase of ['Failed', 'Restored', v]) {
      const own = answer({ restore: { uid: 'uid-r', name: 'r', created: CREATED, phase, reason: v, s3: { path: v } } });
      t.type(ready(own)?.['message'], 'string', `own record, phase ${JSON.stringify(phase)}`);
      t.notOk(JSON.stringify(own.status).includes('[object'), 'no value written as [object ...]');
    }
    // Its own status recorded a failure whose reason is no string.
    const recorded = answer({}, { succeeded: false, reason: v });
    t.type(ready(recorded)?.['message'], 'string', 'a recorded failure');
  });
}
