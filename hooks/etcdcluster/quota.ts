// etcd's backend quota (ETCD_QUOTA_BACKEND_BYTES in spec.pod.etcdEnv) against the data it must hold. etcd refuses
// every write of the whole cluster (a NOSPACE alarm) once one member's backend reaches its own quota: a member made
// with a quota under the data the cluster holds (a scale-up, a replacement, a pod made again on its claim, an upgrade's
// new pod) receives that data and raises the alarm at its first applied write (seen on etcd 3.6.9). spec.pod.etcdEnv
// reaches only pods made after it is set, so the running members are no proof of it. The quota is therefore read
// from the spec before any pod is made, and must be written so that it reads one way only (quotaSpellingProblem).
import { isRecord, keepObserved, type ConditionInput, type KubeObject } from '../../lib/index.js';
import { pastNoReturn } from '../etcdcommon/index.js';
import type { Decision, Observation } from './plan/types.js';
import type { EtcdClusterSpec } from './schema.js';

/** The variable etcd reads for `--quota-backend-bytes`. */
export const QUOTA_VARIABLE = 'ETCD_QUOTA_BACKEND_BYTES';

/** etcd's backend quota when none is set (`--quota-backend-bytes` 0): 2 GiB, in every 3.x. */
export const DEFAULT_QUOTA_BACKEND_BYTES = 2 * 1024 ** 3;

/** A quota as plain decimal bytes: 0, or an optional minus and digits without a leading zero. */
const PLAIN_DECIMAL = /^(0|-?[1-9][0-9]{0,18})$/;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/**
 * Why spec.pod.etcdEnv's ETCD_QUOTA_BACKEND_BYTES is refused, or undefined: it must be a value written out as plain
 * decimal bytes that etcd accepts. etcd parses the variable as Go's flag package does (strconv.ParseInt base 0: a
 * leading 0 is octal, `02000000` is 524,288 bytes; `0x`, `0o`, `0b` prefixes, `+`, `_` between digits), and
 * Kubernetes first expands `$(VAR)` of earlier variables of the list; a valueFrom is known only where the pod runs.
 * Rather than copy both parsers, only the spelling on which Number(), Go and Kubernetes agree is accepted: any other
 * reads one way here and another in etcd, and a quota read too high lets a member be made that refuses every write.
 */
export function quotaSpellingProblem(env: unknown): string | undefined {
  if (!Array.isArray(env)) return undefined;
  for (const [i, e] of env.entries()) {
    if (!isRecord(e) || e['name'] !== QUOTA_VARIABLE) continue;
    const field = `spec.pod.etcdEnv[${i}] (${QUOTA_VARIABLE})`;
    const why =
      'etcd reads it as Go does (a leading 0 is octal, 0x hex, + and _ allowed) and Kubernetes expands $(VAR) first, so the hook, which compares the quota with the data before it makes a member, must read it as a value written out in plain decimal bytes';
    if (e['valueFrom'] !== undefined && e['valueFrom'] !== null)
      return `${field} takes its value from valueFrom: ${why}; write the quota as its value, e.g. "8589934592"`;
    const value = e['value'];
    if (typeof value !== 'string' || !PLAIN_DECIMAL.test(value) || !inInt64(value))
      return `${field} is ${JSON.stringify(typeof value === 'string' ? value.slice(0, 40) : (value ?? ''))}: ${why} (digits without a leading zero, sign, separator or $(VAR), at most 9223372036854775807, or 0 for etcd's default, negative for none); e.g. "8589934592"`;
  }
  return undefined;
}

function inInt64(value: string): boolean {
  const n = BigInt(value);
  return n <= INT64_MAX && n >= INT64_MIN;
}

/**
 * The backend quota a member made from `spec` runs with: spec.pod.etcdEnv's last ETCD_QUOTA_BACKEND_BYTES (as the
 * kubelet takes a variable named twice), in plain decimal bytes (quotaSpellingProblem; 0 is etcd's default), else etcd's
 * default; undefined when there is none (a negative value: etcd sets no quota) or it is not read here (a spelling the
 * spec's checks refuse). A quota past Number's exact integers reads as the largest of them: far above any backend.
 */
export function memberQuota(spec: EtcdClusterSpec): number | undefined {
  const env = (Array.isArray(spec.pod?.etcdEnv) ? spec.pod.etcdEnv : []) as unknown[];
  const set = env.filter((e) => isRecord(e) && e['name'] === QUOTA_VARIABLE).at(-1) as
    Record<string, unknown> | undefined;
  if (!set) return DEFAULT_QUOTA_BACKEND_BYTES;
  if (quotaSpellingProblem([set]) !== undefined) return undefined;
  const n = BigInt(set['value'] as string);
  if (n < 0n) return undefined;
  if (n === 0n) return DEFAULT_QUOTA_BACKEND_BYTES;
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

/** Whether spec.pod.etcdEnv sets the quota (else etcd's default applies). */
export function quotaSet(spec: EtcdClusterSpec): boolean {
  return (spec.pod?.etcdEnv ?? []).some((e) => isRecord(e) && e['name'] === QUOTA_VARIABLE);
}

/** Bytes as people read them: GiB or MiB with one decimal. */
export function bytes(n: number): string {
  return n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;
}

/** The condition reason of member pods held for a quota under the data (quotaUnderData). */
export const QUOTA_BELOW_DATA = 'QuotaBelowData';

/**
 * Why no member pod may be made from `spec` while the cluster's members hold backends of up to `dataBytes` (their
 * status dbSize, the backend file etcd's quota is checked against), or undefined: the quota a new pod's etcd runs
 * with (memberQuota) is at or under that data, so the member would raise NOSPACE at its first applied write and the
 * whole cluster would refuse every write. Data not known (no member reported its size), or no quota, is not compared.
 */
export function quotaUnderData(spec: EtcdClusterSpec, dataBytes: number | undefined): string | undefined {
  const quota = memberQuota(spec);
  if (dataBytes === undefined || quota === undefined || dataBytes < quota) return undefined;
  const source = quotaSet(spec)
    ? `spec.pod.etcdEnv ${QUOTA_VARIABLE}`
    : "etcd's default (no spec.pod.etcdEnv ETCD_QUOTA_BACKEND_BYTES)";
  return `the backend quota of ${quota} bytes (${bytes(quota)}, ${source}) is at or under the ${dataBytes} bytes (${bytes(dataBytes)}) of data a member of this cluster holds (its status dbSize): a member pod made with it would refuse every write of the cluster (NOSPACE), so none is made (no scale-up, replacement or pod made again) until the quota is raised above the data in spec.pod.etcdEnv; the running members keep serving`;
}

/** The largest backend a member reported in this sync (its status dbSize), if any did. */
export function clusterData(obs: Pick<Observation, 'pods' | 'health'>): number | undefined {
  const sizes = obs.pods
    .map((p) => obs.health[p.metadata.name]?.dbSize)
    .filter((n): n is number => typeof n === 'number');
  return sizes.length > 0 ? Math.max(...sizes) : undefined;
}

/** The condition that says member pods are held, True while they are (a failure: events.ts trueIsFailure). */
export function membersHeldCondition(message: string): ConditionInput {
  return { type: 'MembersHeld', status: true, reason: QUOTA_BELOW_DATA, message };
}

/**
 * The decision held when it would make a member pod (any pod it answers that is not observed: a scale-up's or a
 * replacement's new member, a pod made again on its claim, an upgrade's or a restart policy's new pod) with a backend
 * quota at or under the data the members hold (quotaUnderData): no membership change, no new pod, the observed pods
 * as they are, no ordinal given out; MembersHeld=True QuotaBelowData says why (a Warning event, events.ts), and the
 * steps held (Scaling, Recovering) give way to it. While the quorum is lost (QuorumLost) the members' own pods made again
 * on their claims are not held: without a quorum every write is refused already, and they bring it back. A restore past its point of no return is not held here: its
 * members are made from the checked snapshot, compared with their quota by its check (restore.ts quotaProblem).
 * Returns whether the decision was held.
 */
export function holdForQuota(
  d: Decision,
  spec: EtcdClusterSpec,
  obs: Pick<Observation, 'pods' | 'health'>,
  lastSeen: number,
): boolean {
  if (pastNoReturn(d.restore)) return false;
  const observedNames = new Set(obs.pods.map((p) => p.metadata.name));
  const makes = d.action?.type === 'add' || d.pods.some((p) => !observedNames.has(p.metadata.name!));
  if (!makes) return false;
  // Without a quorum the cluster refuses every write (and read) already: the members' own pods made again on their
  // claims bring the quorum back, and NOSPACE then says what the quota does. Holding them would keep the cluster down
  // until someone edits the quota. Only a membership change is held then.
  if (d.reason === 'QuorumLost' && d.action?.type !== 'add') return false;
  const problem = quotaUnderData(spec, clusterData(obs));
  if (!problem) return false;
  delete d.action;
  delete d.onSuccess;
  delete d.onFailure;
  const answered = d.fallbackPods.filter((p) => observedNames.has(p.metadata.name!));
  const names = new Set(answered.map((p) => p.metadata.name!));
  d.pods = [
    ...answered,
    ...obs.pods.filter((p) => !names.has(p.metadata.name)).map((p) => keepObserved(p) as KubeObject),
  ];
  d.fallbackPods = d.pods;
  d.lastMemberIndex = Math.max(lastSeen, 0);
  d.converging = false;
  const held = ['Scaling', 'Recovering', 'MembersHeld'];
  d.conditions = [...d.conditions.filter((x) => !held.includes(x.type)), membersHeldCondition(problem)];
  return true;
}
