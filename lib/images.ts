// Container image references, parsed once for every kind: `[registry[:port]/]repository[:tag][@digest]`, the
// registry and repository normalised as the container runtime resolves them (Docker Hub by default). PodBuggerTool's
// allowlist decides on them; MySQLCluster and EtcdCluster read the version a member runs from the tag, so that an
// image an admission policy pinned by digest (`mysql:8.4.3` made `docker.io/mysql:8.4.3@sha256:...`) is still the
// image and version it was (sameImageTag, imageTag).

/** A container image reference, normalised as the container runtime resolves it (Docker Hub by default). */
export interface ImageRef {
  registry: string;
  repository: string;
  tag?: string;
  digest?: string;
}

/** One path component of a repository. */
export const IMAGE_PATH_SEGMENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
/** A registry host, with its port. */
export const IMAGE_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]+)?$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[A-Za-z0-9=_-]{32,}$/;

/** True when the first path component of a reference names a registry host (as the Docker reference grammar). */
export function isRegistryHost(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost';
}

export function normalRegistry(host: string): string {
  const lower = host.toLowerCase();
  return lower === 'index.docker.io' || lower === 'registry-1.docker.io' ? 'docker.io' : lower;
}

/** Splits `path` into registry and repository; undefined when a part is not valid. */
function repositoryOf(path: string): { registry: string; repository: string } | undefined {
  const parts = path.split('/');
  let registry = 'docker.io';
  if (parts.length > 1 && isRegistryHost(parts[0]!)) {
    if (!IMAGE_HOST.test(parts[0]!)) return undefined;
    registry = normalRegistry(parts.shift()!);
  }
  if (registry === 'docker.io' && parts.length === 1) parts.unshift('library');
  if (!parts.every((p) => IMAGE_PATH_SEGMENT.test(p))) return undefined;
  return { registry, repository: parts.join('/') };
}

/** Parses `[registry/]repository[:tag][@digest]`; undefined for anything that is not a valid reference. */
export function parseImage(image: string): ImageRef | undefined {
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return undefined;
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return undefined;
  }
  const repo = repositoryOf(rest);
  if (!repo) return undefined;
  return { ...repo, ...(tag !== undefined ? { tag } : {}), ...(digest !== undefined ? { digest } : {}) };
}

/** A parsed reference written out in full: `registry/repository[:tag][@digest]`. */
export function imageText(ref: ImageRef): string {
  return `${ref.registry}/${ref.repository}${ref.tag !== undefined ? `:${ref.tag}` : ''}${ref.digest !== undefined ? `@${ref.digest}` : ''}`;
}

/**
 * An image as the allowlist decides on it, fully named (`busybox:1.36` is `docker.io/library/busybox:1.36`): the
 * container the hook adds names this, so that the node pulls the image that was allowed, not one a short name
 * resolves to there (CRI-O and Podman try each of `unqualified-search-registries` in turn: quay.io/busybox is any
 * Quay user's). A reference that is not valid is returned as written (never allowed, so never sent).
 */
export function resolvedImage(image: string): string {
  const ref = parseImage(image);
  return ref ? imageText(ref) : image;
}

/**
 * The tag of an image reference (`mysql:8.4.3@sha256:<hex>` is 8.4.3: the digest is no part of it); undefined when
 * it has none, or when the reference is not one the kubelet could pull (it names no version).
 */
export function imageTag(image: string): string | undefined {
  return parseImage(image)?.tag;
}

/**
 * Whether two image references name the same repository at the same tag, whatever digest either is pinned to: an
 * admission policy that pins images by digest (Kyverno's mutateDigest, Connaisseur, Ratify) writes
 * `docker.io/mysql:8.4.3@sha256:<hex>` for `mysql:8.4.3`, the same image. References without a tag, or not valid,
 * are the same only when written alike.
 */
export function sameImageTag(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const [x, y] = [parseImage(a), parseImage(b)];
  return (
    !!x && !!y && x.tag !== undefined && x.tag === y.tag && x.registry === y.registry && x.repository === y.repository
  );
}

/**
 * Whether a container observed on `observed` was given the image `given` (the text its owner wrote), as the API server
 * holds it once an admission policy pinned it by digest: written alike; the same repository (its registry spelled out
 * or not) at the same tag, a digest added (Kyverno's mutateDigest, Connaisseur, Ratify: `repo:tag@sha256:<hex>`);
 * or, with `tagDropped`, the digest in place of the tag (Sigstore's policy-controller writes `repo@sha256:<hex>`). A
 * reference whose tag was taken off names no version: only an owner that holds its own record of what it gave (the
 * image, or its version, on the object) may read it as that. A `given` pinned itself is observed at its digest.
 */
export function asGiven(observed: string | undefined, given: string | undefined, tagDropped = false): boolean {
  if (observed === undefined || given === undefined) return false;
  if (observed === given) return true;
  const [o, g] = [parseImage(observed), parseImage(given)];
  if (!o || !g || o.registry !== g.registry || o.repository !== g.repository) return false;
  if (g.digest !== undefined)
    return o.digest === g.digest && (o.tag === undefined || g.tag === undefined || o.tag === g.tag);
  // (A digest without a tag: the tag taken off, `latest` as much as any other.)
  if (o.tag === undefined && o.digest !== undefined) return tagDropped;
  return o.tag === g.tag;
}

/**
 * `image`'s repository as written (its registry too) at `tag`, without the tag or digest it has: the reference an
 * owner gave before a policy put a digest in place of its tag, rebuilt from the owner's record of the tag. Undefined
 * when either is not valid.
 */
export function imageAtTag(image: string, tag: string): string | undefined {
  if (!parseImage(image) || !TAG.test(tag)) return undefined;
  const at = image.indexOf('@');
  let rest = at >= 0 ? image.slice(0, at) : image;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) rest = rest.slice(0, colon);
  return `${rest}:${tag}`;
}
