// etcd versions: read from an image, compared, and whether etcd goes from one to another in place.
import { imageTag, sameImageTag } from '../../../lib/index.js';
import { etcdVersion } from '../members.js';

export function versionOfImage(img: string | undefined): string | undefined {
  const tag = img === undefined ? undefined : imageTag(img);
  return tag ? etcdVersion(tag) : undefined;
}

/**
 * Whether a member's image is the target: the same repository and tag, whatever digest an admission policy pinned the
 * pod's image to (Kyverno's mutateDigest writes `quay.io/coreos/etcd:v3.5.0@sha256:...` for the image answered).
 */
export function atImage(img: string | undefined, target: string): boolean {
  return sameImageTag(img, target);
}

/** etcd supports learners (non-voting members that catch up before they count) from 3.4. */
export function supportsLearners(clusterVersion: string | undefined): boolean {
  if (!clusterVersion) return false;
  const [major, minor] = clusterVersion.split('.').map(Number);
  return (major ?? 0) > 3 || ((major ?? 0) === 3 && (minor ?? 0) >= 4);
}

/** Why etcd cannot go from `current` to `target` in place, or undefined when it can (one minor up, any patch). */
export function upgradeRefusal(current: string, target: string): string | undefined {
  const [cMajor, cMinor] = current.split('.').map((x) => Number.parseInt(x, 10));
  const [tMajor, tMinor] = target.split('.').map((x) => Number.parseInt(x, 10));
  if (cMajor === undefined || cMinor === undefined || tMajor === undefined || tMinor === undefined) return undefined;
  if (tMajor !== cMajor) return `a change of major version (${cMajor} to ${tMajor}) is not supported`;
  if (tMinor < cMinor)
    return `a downgrade from ${cMajor}.${cMinor} to ${tMajor}.${tMinor} is not supported in place (restore a backup instead)`;
  if (tMinor > cMinor + 1)
    return `etcd upgrades one minor version at a time (${cMajor}.${cMinor} to ${cMajor}.${cMinor + 1} first)`;
  return undefined;
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The last good version while an upgrade to `target` has not soaked: `from` (the version the cluster ran before it, as
 * the upgrade-mark or the members say) when it is older than `target` and the cluster may still run it (etcd's cluster
 * version, `clusterVersion`, is no newer minor than `from`: once every member ran the new minor, etcd refuses a member
 * of the older one). Member pods made meanwhile run it; undefined otherwise (they run `target`).
 */
export function lastGoodVersion(
  target: string,
  from: string | undefined,
  clusterVersion: string | undefined,
): string | undefined {
  if (!from || !/^\d+\.\d+\.\d+$/.test(from) || compareVersions(from, target) >= 0) return undefined;
  const minor = (v: string) => v.split('.').slice(0, 2).join('.');
  if (clusterVersion && compareVersions(minor(clusterVersion), minor(from)) > 0) return undefined;
  return from;
}
