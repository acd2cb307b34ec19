// MySQLCluster: a StatefulSet of MySQL members (each with its own data volume), a headless Service for their
// stable DNS names, a client Service on 3306 and a Secret with a root password generated once.
//
// The password's only memory is the Secret itself: every sync re-emits the bytes it observes. A new password
// is generated only when the cluster has never had one (the Secret was never observed): if a Secret that
// existed disappears, the data directories still hold the old password, so the hook says so and waits.
import { serviceChild } from '../../lib/children.js';
import { invalidSpecResponse, relatedPods } from '../../lib/hook.js';
import { childLabels, selectorLabels } from '../../lib/labels.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  KubeObject,
  ParentObject,
} from '../../lib/metacontroller.js';
import { dns1035Problem } from '../../lib/names.js';
import { keepObserved, observedNamed } from '../../lib/objects.js';
import { memberStatus, relatedPodNames, workloadCounts } from '../../lib/replicas.js';
import { specParser } from '../../lib/spec.js';
import type { ConditionInput } from '../../lib/conditions.js';
import { MySQLClusterSpec, VERSION_PATTERN, type MySQLClusterSpec as Spec } from './schema.js';

const APP = 'mysql';
export const PASSWORD_KEY = 'root-password';
export const MYSQL_PORT = 3306;

/** `version` as an image tag: a string as written, a number as YAML read it (8 -> "8.0", 8.4 -> "8.4"). */
export function normalizeVersion(version: string | number): string {
  if (typeof version === 'number') return Number.isInteger(version) ? `${version}.0` : String(version);
  return version.trim();
}

const parser = specParser(MySQLClusterSpec, (spec) => {
  const version = normalizeVersion(spec.version);
  if (!VERSION_PATTERN.test(version)) {
    return `spec.version is ${JSON.stringify(spec.version)}: expected a MySQL version such as "8.0" or "8.0.36"`;
  }
  return undefined;
});

export const names = {
  statefulSet: (name: string) => name,
  headless: (name: string) => `${name}-headless`,
  client: (name: string) => name,
  secret: (name: string) => `${name}-mysql`,
};

export function secret(parent: ParentObject, encodedPassword: string): KubeObject {
  const name = parent.metadata.name!;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: names.secret(name), namespace: parent.metadata.namespace, labels: childLabels(APP, name, 'credentials') },
    type: 'Opaque',
    data: { [PASSWORD_KEY]: encodedPassword },
  };
}

export function headlessService(parent: ParentObject): KubeObject {
  const name = parent.metadata.name!;
  return serviceChild(parent, names.headless(name), childLabels(APP, name, 'database'), selectorLabels(APP, name), [
    { name: 'mysql', port: MYSQL_PORT },
  ], { headless: true });
}

export function clientService(parent: ParentObject): KubeObject {
  const name = parent.metadata.name!;
  return serviceChild(parent, names.client(name), childLabels(APP, name, 'database'), selectorLabels(APP, name), [
    { name: 'mysql', port: MYSQL_PORT },
  ]);
}

/**
 * The claim template as the API server stores it (apiVersion and kind filled in, volumeMode defaulted, a
 * `status: {phase: Pending}`). Metacontroller replaces a list without a `name` key as a whole: an answer that
 * lacked what the server adds would differ from the stored StatefulSet at every sync and be written again.
 */
export function volumeClaimTemplate(spec: Spec): Record<string, unknown> {
  const claimSpec: Record<string, unknown> = {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: spec.storage.size } },
  };
  if (spec.storage.storageClassName) claimSpec['storageClassName'] = spec.storage.storageClassName;
  claimSpec['volumeMode'] = 'Filesystem';
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data' },
    spec: claimSpec,
    status: { phase: 'Pending' },
  };
}

export function statefulSet(
  parent: ParentObject,
  spec: Spec,
  claimTemplates: unknown[] = [volumeClaimTemplate(spec)],
): KubeObject {
  const name = parent.metadata.name!;
  const version = normalizeVersion(spec.version);
  const labels = childLabels(APP, name, 'database', { version });
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: names.statefulSet(name), namespace: parent.metadata.namespace, labels },
    spec: {
      replicas: spec.size,
      serviceName: names.headless(name),
      selector: { matchLabels: selectorLabels(APP, name) },
      template: {
        metadata: { labels },
        spec: {
          terminationGracePeriodSeconds: 30,
          containers: [
            {
              name: 'mysql',
              image: `mysql:${version}`,
              env: [
                {
                  name: 'MYSQL_ROOT_PASSWORD',
                  valueFrom: { secretKeyRef: { name: names.secret(name), key: PASSWORD_KEY } },
                },
              ],
              ports: [{ name: 'mysql', containerPort: MYSQL_PORT, protocol: 'TCP' }],
              volumeMounts: [{ name: 'data', mountPath: '/var/lib/mysql' }],
              readinessProbe: {
                exec: { command: ['sh', '-c', 'mysqladmin ping -h 127.0.0.1 -uroot -p"$MYSQL_ROOT_PASSWORD"'] },
                initialDelaySeconds: 10,
                periodSeconds: 5,
              },
              livenessProbe: {
                tcpSocket: { port: 'mysql' },
                initialDelaySeconds: 30,
                periodSeconds: 10,
              },
            },
          ],
        },
      },
      volumeClaimTemplates: claimTemplates,
    },
  };
}

/** The password bytes (base64, as stored in Secret.data) of an observed Secret, if it holds a usable one. */
export function observedPassword(observedSecret: KubeObject | undefined): string | undefined {
  const data = observedSecret?.['data'] as Record<string, unknown> | undefined;
  const value = data?.[PASSWORD_KEY];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function sync(request: CompositeSyncRequest, now: Date, newPassword: () => string): CompositeSyncResponse {
  const parent = request.parent;
  const name = parent.metadata.name ?? '';
  const parsed = parser.parse(parent.spec);
  const nameProblem = dns1035Problem(name, '-headless');
  if (!parsed.ok || nameProblem) {
    return invalidSpecResponse(request, parsed.ok ? nameProblem! : parsed.message, now);
  }
  const spec = parsed.spec;
  const version = normalizeVersion(spec.version);
  const previous = (parent.status ?? {}) as { secretName?: unknown };

  const observedSts = observedNamed(request.children, 'StatefulSet', 'apps/v1', names.statefulSet(name));
  const observedSecret = observedNamed(request.children, 'Secret', 'v1', names.secret(name));
  const extraConditions: ConditionInput[] = [];
  const children: KubeObject[] = [];

  // The root password: the observed one, or a new one only if this cluster never had a Secret.
  const kept = observedPassword(observedSecret);
  if (kept) {
    children.push(secret(parent, kept));
  } else if (observedSecret || previous.secretName === names.secret(name)) {
    extraConditions.push({
      type: 'CredentialsAvailable',
      status: false,
      reason: 'CredentialsLost',
      message:
        `Secret ${names.secret(name)} (key ${PASSWORD_KEY}) was deleted or emptied after the cluster was created; ` +
        'the data volumes keep the old root password, so no new one is generated. Recreate the Secret with it.',
    });
    if (observedSecret) children.push(keepObserved(observedSecret));
  } else {
    children.push(secret(parent, Buffer.from(newPassword(), 'utf8').toString('base64')));
  }

  // Volume claim templates cannot change once the StatefulSet exists: keep what it has, and say so if the
  // spec asks for something else.
  let claims: unknown[] = [volumeClaimTemplate(spec)];
  const observedClaims = (observedSts?.['spec'] as { volumeClaimTemplates?: unknown[] } | undefined)?.volumeClaimTemplates;
  if (observedSts && Array.isArray(observedClaims) && observedClaims.length > 0) {
    const have = storageOf(observedClaims);
    if (have !== spec.storage.size) {
      extraConditions.push({
        type: 'StorageResized',
        status: false,
        reason: 'StorageImmutable',
        message: `member volumes are ${have}; spec.storage.size ${spec.storage.size} applies only to a new cluster (resize the PersistentVolumeClaims directly)`,
      });
    }
    // Handed back exactly as stored: they cannot change, and anything else would be a diff at every sync.
    claims = observedClaims;
  }
  children.push(statefulSet(parent, spec, claims), headlessService(parent), clientService(parent));

  const lost = extraConditions.find((c) => c.reason === 'CredentialsLost');
  const status = memberStatus(parent, workloadCounts(observedSts, spec.size), relatedPodNames(request.related), now, {
    extra: extraConditions,
    ...(lost ? { ready: { type: 'Ready', status: false, reason: 'CredentialsLost', message: lost.message } } : {}),
  });
  status['version'] = version;
  if (observedSecret || previous.secretName === names.secret(name)) status['secretName'] = names.secret(name);
  return { status, children };
}

function storageOf(claims: unknown[]): string | undefined {
  // Observed data, so any element may be malformed (null, a string): read defensively.
  const data = claims.find((c) => (c as { metadata?: { name?: string } } | null)?.metadata?.name === 'data') ?? claims[0];
  return (data as { spec?: { resources?: { requests?: { storage?: string } } } } | null)?.spec?.resources?.requests?.storage;
}

/** Asks for the cluster's pods so that status.nodes can list them. */
export function customize(request: CustomizeRequest): CustomizeResponse {
  const parent = request.parent;
  return relatedPods(selectorLabels(APP, parent?.metadata.name ?? ''));
}
