// EtcdRestore: the work is done by the EtcdCluster hook (a restore naming a cluster replaces it, see
// hooks/etcdcluster/plan.ts); this hook reports its progress from the cluster's status.
import { conditionsFor, invalidSpecResponse } from '../../lib/hook.js';
import type { CompositeSyncRequest, CompositeSyncResponse, CustomizeRequest, CustomizeResponse } from '../../lib/metacontroller.js';
import { observedNamed } from '../../lib/objects.js';
import { specParser } from '../../lib/spec.js';
import { EtcdRestoreSpec } from './schema.js';

const parser = specParser(EtcdRestoreSpec);
const CLUSTERS = 'etcd.database.coreos.com/v1beta2';

export function customize(request: CustomizeRequest): CustomizeResponse {
  const name = (request.parent?.['spec'] as { etcdCluster?: { name?: string } } | undefined)?.etcdCluster?.name;
  return { relatedResources: name ? [{ apiVersion: CLUSTERS, resource: 'etcdclusters', names: [name] }] : [] };
}

export function sync(request: CompositeSyncRequest, now: Date): CompositeSyncResponse {
  const parent = request.parent;
  const parsed = parser.parse(parent.spec);
  if (!parsed.ok) return invalidSpecResponse(request, parsed.message, now);
  const clusterName = parsed.spec.etcdCluster.name;
  const cluster = observedNamed(request.related, 'EtcdCluster', CLUSTERS, clusterName);
  const state = (cluster?.['status'] as { restore?: { uid?: string; phase?: string } } | undefined)?.restore;
  const mine = state?.uid === (parent.metadata.uid ?? parent.metadata.name);
  let succeeded = false;
  let reason: string;
  let message: string;
  if (!cluster) {
    reason = 'ClusterNotFound';
    message = `EtcdCluster ${clusterName} does not exist in this namespace`;
  } else if (mine && state?.phase === 'Restored') {
    succeeded = true;
    reason = 'Restored';
    message = `EtcdCluster ${clusterName} runs from the snapshot ${parsed.spec.s3.path}`;
  } else {
    reason = mine ? (state?.phase ?? 'Pending') : 'Pending';
    message = mine ? `EtcdCluster ${clusterName}: ${state?.phase}` : `waiting for EtcdCluster ${clusterName} to start the restore`;
  }
  const status: Record<string, unknown> = {
    succeeded,
    observedGeneration: parent.metadata.generation ?? 0,
    conditions: conditionsFor(parent, [{ type: 'Ready', status: succeeded, reason, message }], now),
  };
  if (!succeeded) status['reason'] = message;
  const response: CompositeSyncResponse = { status, children: [] };
  if (!succeeded) response.resyncAfterSeconds = 10;
  return response;
}
