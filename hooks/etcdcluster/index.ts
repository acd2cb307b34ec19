import { serviceRule } from '../../lib/children.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import type { KubeObject, RelatedResourceRule } from '../../lib/metacontroller.js';
import { observedNamed } from '../../lib/objects.js';
import type { TlsFiles } from './etcd.js';
import { recorderOf, withEvents } from '../../lib/events.js';
import { ETCDCLUSTER_EVENTS, upgradeEvents } from './events.js';
import { resource } from './schema.js';
import { finalize, sync } from './sync.js';

/** The operator's client certificate for a TLS cluster, from the Secret named in TLS.static.operatorSecret. */
function operatorTls(parent: KubeObject, related: Parameters<typeof observedNamed>[0]): TlsFiles | undefined {
  const name = (parent['spec'] as { TLS?: { static?: { operatorSecret?: string } } } | undefined)?.TLS?.static?.operatorSecret;
  if (!name) return undefined;
  // observedNamed: own keys only (a name such as "constructor" must not resolve).
  // And in the cluster's own namespace: Metacontroller v4.17 lists a rule that names objects without a namespace
  // across every namespace (pkg/controller/common/customize/manager.go L665-683).
  const namespace = parent.metadata.namespace ?? '';
  const secret = observedNamed(related, 'Secret', 'v1', name, namespace);
  const data = (secret?.['data'] ?? {}) as Record<string, unknown>;
  const read = (key: string) => {
    const v = Object.hasOwn(data, key) ? data[key] : undefined;
    return typeof v === 'string' && v ? Buffer.from(v, 'base64').toString('utf8') : undefined;
  };
  const tls: TlsFiles = {};
  const ca = read('etcd-client-ca.crt');
  const cert = read('etcd-client.crt');
  const key = read('etcd-client.key');
  if (ca) tls.ca = ca;
  if (cert) tls.cert = cert;
  if (key) tls.key = key;
  return tls;
}

export const etcdcluster: CompositeHookDefinition = {
  type: 'composite',
  name: 'etcdcluster',
  resource,
  childResources: [
    {
      apiVersion: 'v1',
      resource: 'pods',
      updateStrategy: { method: 'InPlace' },
      why: 'the hook rolls members itself, one at a time; in place changes only the image of the member it chose (a pod image is mutable), every other field stays as the pod was created',
    },
    serviceRule,
    {
      apiVersion: 'policy/v1',
      resource: 'poddisruptionbudgets',
      updateStrategy: { method: 'InPlace' },
      why: 'the budget follows the size (a quorum of it stays through node drains); changing it in place never evicts anything',
    },
    {
      apiVersion: 'v1',
      resource: 'persistentvolumeclaims',
      updateStrategy: { method: 'OnDelete' },
      why: 'a member data volume is never replaced or changed under a running member',
    },
  ],
  resyncPeriodSeconds: 30,
  effects: true,
  sync: (request, ctx) => {
    const now = ctx.deps.now();
    const etcd = ctx.deps.etcdClient(operatorTls(request.parent, request.related));
    // Events (lib/events.ts): the membership changes made, the upgrade steps answered, the conditions changed.
    const upgrades = upgradeEvents(request);
    return withEvents(request, recorderOf(ctx.deps), now, ctx.log, ETCDCLUSTER_EVENTS, (note) =>
      sync(request, { etcd, now, image: ctx.deps.image, log: ctx.log, note }),
      upgrades,
    );
  },
  finalize: (request) => finalize(request),
  customize: (request) => {
    const name = (request.parent?.['spec'] as { TLS?: { static?: { operatorSecret?: string } } } | undefined)?.TLS?.static
      ?.operatorSecret;
    // The EtcdRestores of the namespace (a restore naming this cluster replaces it), and the TLS Secret.
    const rules: RelatedResourceRule[] = [{ apiVersion: 'etcd.database.coreos.com/v1beta2', resource: 'etcdrestores' }];
    // Confined to the cluster's namespace: a rule naming objects without one lists every namespace in v4.17
    // (pkg/controller/common/customize/manager.go L665-683).
    if (name) rules.push({ apiVersion: 'v1', resource: 'secrets', namespace: request.parent?.metadata.namespace ?? '', names: [name] });
    return { relatedResources: rules };
  },
};
