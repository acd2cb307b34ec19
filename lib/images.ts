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

// The distribution reference grammar (github.com/distribution/reference: regexp.go, and normalize.go's
// ParseNormalizedNamed, which the kubelet's image manager calls: an image it cannot parse is InvalidImageName, the pod
// never runs), written here once: lib/values.ts imageProblem (what a spec may name) and parseImage (what a member runs,
// what the debug allowlist decides on) read references alike, so that an image a spec was let through with is always
// one whose tag, registry and repository the hooks can read.

/** One path component of a repository. */
export const IMAGE_PATH_SEGMENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
/** A registry host, with its port (an IPv6 address in brackets). */
export const IMAGE_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:]+\])(?::[0-9]+)?$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
/** A digest as the grammar reads it (digestPat): an algorithm, ':' and its encoding. */
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
/**
 * The digest algorithms the kubelet's parser knows (github.com/opencontainers/go-digest, as the reference parser
 * validates a digest), each with the exact number of lower-case hex characters it takes.
 */
const DIGEST_HEX: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };
/** A whole reference of 64 lower-case hex characters: an image ID, which the parser refuses as a repository name. */
const IMAGE_ID = /^[a-f0-9]{64}$/;
/** The longest repository name the grammar accepts (NameTotalLengthMax), registry included. */
export const MAX_IMAGE_NAME = 255;

/**
 * True when the first path component of a reference names a registry host, as the kubelet's parser splits a
 * reference (splitDockerDomain): `localhost`, anything with a '.' or a ':' (a domain, an address, a port), and a
 * component not all in lower case (a repository path never has capitals, so `Registry/etcd` is host Registry's etcd).
 */
export function isRegistryHost(component: string): boolean {
  return (
    component.includes('.') ||
    component.includes(':') ||
    component === 'localhost' ||
    component.toLowerCase() !== component
  );
}

/**
 * A registry host as hosts are compared (host names are case-insensitive): in lower case, Docker Hub's other names
 * `docker.io`. A host of one label in capitals keeps them: written in lower case (`registry/etcd`) it would read as a
 * Docker Hub path, another image altogether.
 */
export function normalRegistry(host: string): string {
  const lower = host.toLowerCase();
  if (lower === 'index.docker.io' || lower === 'registry-1.docker.io') return 'docker.io';
  return isRegistryHost(lower) ? lower : host;
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

/** A reference the grammar refuses: what is wrong with it, said as "must ...", "has ...", "is ...". */
export interface ImageProblem {
  problem: string;
}

/** What is wrong with a digest (`<algorithm>:<hex>`), as go-digest reads it for the kubelet; undefined: nothing. */
function digestProblem(digest: string): string | undefined {
  if (!DIGEST.test(digest)) return 'has a digest that is not <algorithm>:<hex>';
  const [algorithm, hex] = digest.split(':') as [string, string];
  const length = Object.hasOwn(DIGEST_HEX, algorithm) ? DIGEST_HEX[algorithm] : undefined;
  if (length === undefined) return `has a digest algorithm "${algorithm}" that is not sha256, sha384 or sha512`;
  if (hex.length !== length || !/^[0-9a-f]+$/.test(hex))
    return `has a ${algorithm} digest that is not exactly ${length} lower-case hex characters`;
  return undefined;
}

/**
 * What is wrong with a name (`[registry[:port]/]path`) as the kubelet splits it (splitDockerDomain) and measures it:
 * the name it reads, `<registry>/<path>` with Docker Hub's `docker.io/library/<name>` for a name of one component, at
 * most MAX_IMAGE_NAME characters. (distribution/reference v0.6 counts the path only, the releases before it the whole
 * name: the whole name is what every kubelet accepts.) Undefined: nothing.
 */
function nameProblem(name: string): string | undefined {
  const slash = name.indexOf('/');
  const host = slash > 0 && isRegistryHost(name.slice(0, slash)) ? name.slice(0, slash) : undefined;
  const path = host === undefined ? name : name.slice(slash + 1);
  const domain = host === undefined || host === 'index.docker.io' ? 'docker.io' : host;
  const read = `${domain}/${domain === 'docker.io' && !path.includes('/') ? 'library/' : ''}${path}`;
  if (read.length > MAX_IMAGE_NAME)
    return `has a repository name longer than ${MAX_IMAGE_NAME} characters as the kubelet reads it (${read.length}: ${read.slice(0, 24)}...)`;
  if (host !== undefined && !IMAGE_HOST.test(host))
    return `is not an image reference: its registry host "${host}" is not a host name (labels of letters, digits and '-' split by '.', and a port)`;
  return undefined;
}

/**
 * Reads `[registry[:port]/]path[:tag][@digest]` as the kubelet does: the reference, or what is wrong with it (the
 * kubelet could not pull it by that name).
 */
export function readImage(image: string): ImageRef | ImageProblem {
  const wrong = (problem: string): ImageProblem => ({ problem });
  if (image.length === 0) return wrong('must not be empty');
  if (image.trim() !== image) return wrong('must not have leading or trailing whitespace');
  if (IMAGE_ID.test(image))
    return wrong('is 64 hex characters, an image ID, which the kubelet refuses as a repository name');
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    const problem = digestProblem(digest);
    if (problem) return wrong(problem);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    if (!TAG.test(tag))
      return wrong("has a tag that is not 1 to 128 letters, digits, '_', '.' and '-' (not starting with '.' or '-')");
    rest = rest.slice(0, colon);
  }
  const problem = nameProblem(rest);
  if (problem) return wrong(problem);
  const repo = repositoryOf(rest);
  if (!repo)
    return wrong(
      "is not an image reference: [registry[:port]/]path[:tag][@digest], the path in lower-case letters, digits and the separators '.', '_', '__' and '-'",
    );
  return { ...repo, ...(tag !== undefined ? { tag } : {}), ...(digest !== undefined ? { digest } : {}) };
}

/** Parses `[registry/]repository[:tag][@digest]`; undefined for anything the kubelet could not pull (readImage). */
export function parseImage(image: string): ImageRef | undefined {
  const read = readImage(image);
  return 'problem' in read ? undefined : read;
}

/** What is wrong with a container image reference (undefined: the kubelet can pull it by that name). */
export function imageReferenceProblem(image: string): string | undefined {
  const read = readImage(image);
  return 'problem' in read ? read.problem : undefined;
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

/** The tag a reference without one names, as the kubelet pulls it. */
const LATEST = 'latest';

/**
 * Whether a container observed on `observed` was given the image `given` (the text its owner wrote), as the API server
 * holds it once an admission policy pinned it by digest: written alike; the same repository (its registry spelled out
 * or not) at the same tag, a digest added (Kyverno's mutateDigest, Connaisseur, Ratify: `repo:tag@sha256:<hex>`);
 * or, with `tagDropped`, the digest in place of the tag (Sigstore's policy-controller writes `repo@sha256:<hex>`). A
 * reference without a tag is at `latest` (`busybox` given is observed as `busybox:latest@sha256:<hex>`). A
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
  // A reference without a tag is the image at `latest`, as the kubelet pulls it (and as the debug allowlist reads it):
  // `busybox` given is `docker.io/library/busybox:latest` once a policy spells the tag out (Kyverno's mutateDigest
  // writes it beside the digest it pins); another tag is another image.
  return (o.tag ?? LATEST) === (g.tag ?? LATEST);
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
