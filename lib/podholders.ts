// Pod names wanted by parents of different kinds. A PodSet's pods are `<name>-pod-<i>` (`<name>-<i>` before the
// `-pod-`), an EtcdCluster's members `<name>-<i>`, a MySQLCluster's members `<name>-mysql-<i>` (`<name>-<i>` before
// the `-mysql`): PodSet `web` and EtcdCluster `web-pod`, or MySQLCluster `db` and EtcdCluster `db-mysql`, want one pod name. Whichever comes
// second is held (lib/ownership.ts takenNames) and remembers the holder (status.heldBy). When the holder's pod is
// gone for a moment (evicted, node lost, deleted by hand), the name is free; the parent held stays held while the
// holder still exists (the same UID) and still wants the name, judged here from the holder's own object: a PodSet
// wants its ordinals below spec.size, a MySQLCluster likewise, an EtcdCluster the members its status lists (a
// member it replaces under a new name releases the old one). Customize asks for the parents that can hold one of a
// parent's pod names, by name (podHolderRules): a handful of objects, whatever the namespace holds.
import type { KubeObject, ParentObject, RelatedResourceRule } from './metacontroller.js';
import type { ChildName } from './ownership.js';
import { MAX_SIZE } from './schemas.js';

/** A kind whose parents name pods `<base>-<ordinal>`, each base its name plus one of `suffixes`. */
interface PodNamer {
  kind: string;
  apiVersion: string;
  resource: string;
  /** The bases of a parent's pod names: its name plus each suffix (the current one first). */
  suffixes: readonly string[];
  /** The pod names a parent of this kind wants now (its object as it is stored, status included). */
  wants(holder: KubeObject): string[];
}

/** The ordinals below spec.size (at most `max`), under each base. */
function ordinals(holder: KubeObject, suffixes: readonly string[], max: number): string[] {
  const name = holder.metadata.name ?? '';
  const size = Math.min(Number((holder['spec'] as { size?: unknown } | undefined)?.size), max);
  const out: string[] = [];
  for (const suffix of suffixes) for (let i = 0; i < size; i++) out.push(`${name}${suffix}-${i}`);
  return out;
}

/** The largest EtcdCluster (hooks/etcdcluster/schema.ts MAX_SIZE), and its member list with members being replaced. */
const ETCD_MEMBERS = 2 * 9;

const NAMERS: readonly PodNamer[] = [
  {
    kind: 'PodSet',
    apiVersion: 'apps.jicki.cn/v1alpha1',
    resource: 'podsets',
    suffixes: ['-pod', ''],
    wants: (h) => ordinals(h, ['-pod', ''], MAX_SIZE.podset),
  },
  {
    kind: 'EtcdCluster',
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    resource: 'etcdclusters',
    suffixes: [''],
    wants: (h) => {
      const list = (h['status'] as { memberList?: unknown } | undefined)?.memberList;
      const prefix = `${h.metadata.name ?? ''}-`;
      return (Array.isArray(list) ? (list as Array<{ name?: unknown } | null>).slice(0, ETCD_MEMBERS) : [])
        .map((m) => m?.name)
        .filter((n): n is string => typeof n === 'string' && n.startsWith(prefix));
    },
  },
  {
    kind: 'MySQLCluster',
    apiVersion: 'database.example.com/v1alpha1',
    resource: 'mysqlclusters',
    suffixes: ['-mysql', ''],
    wants: (h) => ordinals(h, ['-mysql', ''], MAX_SIZE.mysqlcluster),
  },
];

function namerOf(obj: { kind?: unknown; apiVersion?: unknown }): PodNamer | undefined {
  return NAMERS.find((n) => n.kind === obj.kind && n.apiVersion === obj.apiVersion);
}

/**
 * The pods a holder of one of these kinds wants (lib/ownership.ts HolderWants), undefined for another kind. A holder
 * being deleted wants nothing (ownership.ts does not judge it at all).
 */
export function podHolderWants(holder: KubeObject): ChildName[] | undefined {
  const namer = namerOf(holder);
  if (!namer) return undefined;
  return namer.wants(holder).map((name) => ({ apiVersion: 'v1', kind: 'Pod', name }));
}

/**
 * The parents of these kinds, other than `parent` itself, whose pods can take one of `parent`'s pod names: for each
 * base of the parent's (its name plus a suffix of its kind), each name that base makes with another kind's suffix.
 * Asked for by name in the parent's namespace, so that a parent held for a pod name can judge its holder.
 */
export function podHolderRules(parent: ParentObject): RelatedResourceRule[] {
  const own = namerOf(parent);
  const name = parent.metadata.name ?? '';
  if (!own || !name) return [];
  const bases = own.suffixes.map((s) => `${name}${s}`);
  const rules: RelatedResourceRule[] = [];
  for (const other of NAMERS) {
    const names = new Set<string>();
    for (const base of bases)
      for (const suffix of other.suffixes)
        if (base.length > suffix.length && base.endsWith(suffix)) names.add(base.slice(0, base.length - suffix.length));
    if (other.kind === own.kind) names.delete(name);
    if (names.size > 0)
      rules.push({
        apiVersion: other.apiVersion,
        resource: other.resource,
        namespace: parent.metadata.namespace ?? '',
        names: [...names].sort(),
      });
  }
  return rules;
}
