// A MySQLCluster member whose pod is stuck Terminating (its node lost: the kubelet never confirms the deletion) is not
// made again by its StatefulSet until someone forces the deletion (kubectl delete pod --force, once the node is
// confirmed gone). PodSet names such a pod past the progress deadline (lib/replicas.ts stalled, `going`); the
// MySQLCluster passes no `going`, and its StatefulSet counts the pod being deleted in status.replicas (the StatefulSet
// controller's computeReplicaStatus counts every created pod, and leaves pods being deleted out of updatedReplicas
// only), so for as long as the pod stays stuck (an hour here, with no spec change) the status says
// Progressing=True Updating "2 of 3 members updated": an update nothing asked for, no deadline, and nothing names the
// pod or the way out. Were the pod left out of status.replicas as well, the deadline would blame its creation
// ("Pod Security admission, a quota"). Either way the member the cluster lacks is never named.
import t from 'tap';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import { observedChildren, statefulSetMember } from '../fixtures/mysql-pods.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const SPEC = { size: 3, version: '8.0.36' };
const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const run = (req: CompositeSyncRequest, now: Date) =>
  runHook(mysqlcluster, 'sync', req, { now, services: { randomSecret: () => 'pw' } });

function member(i: number, stsUid: string, stuck = false): KubeObject {
  const ready = !stuck;
  const p = statefulSetMember(i, stsUid, { ready, replicationReady: ready && i > 0 });
  if (stuck) p.metadata.deletionTimestamp = at(15).toISOString();
  return p;
}

for (const replicas of [3, 2])
  t.test(`member 2 stuck Terminating for an hour (StatefulSet status.replicas ${replicas})`, async (t) => {
    const created = await run(request('mysqlcluster', SPEC), at(0));
    const observe = (st: Record<string, number>) => observedChildren(created.children, st);
    const healthy = observe({ replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3 });
    const stsUid = healthy.find((c) => c.kind === 'StatefulSet')!.metadata.uid!;
    let status: any = created.status;
    let res!: Awaited<ReturnType<typeof run>>;
    for (const s of [10, 20, 60, 300, PROGRESS_DEADLINE_SECONDS + 100, 1300, 3600]) {
      const stuck = s >= 20;
      const sts = stuck ? observe({ replicas, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2 }) : healthy;
      const pods = [0, 1, 2].map((i) => member(i, stsUid, stuck && i === 2));
      const req = request('mysqlcluster', SPEC, { children: objectMap(sts), related: objectMap(pods) });
      req.parent.status = status;
      res = await run(req, at(s));
      status = res.status;
    }
    const p = status.conditions.find((c: any) => c.type === 'Progressing');
    t.notMatch(p, { status: 'True', reason: 'Updating' }, `no update was asked for: ${p.reason}: ${p.message}`);
    const said = JSON.stringify(status.conditions);
    t.match(
      said,
      /my-mysql-mysql-2[^"]*(being deleted|Terminating)|(being deleted|Terminating)[^"]*my-mysql-mysql-2/,
      `the stuck pod is named as being deleted: ${said}`,
    );
    t.notMatch(p.message, /creating the others fails/, 'its creation is not blamed');
  });
