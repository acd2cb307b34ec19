// The Metacontroller releases the end-to-end suite runs every scenario on, and what differs between them: where the
// binary and its own manifests come from, its flags, and which webhook fields it knows. This is the one place that
// knows a version: the control plane (cluster.ts) and the runner (run.ts) ask the release; a scenario that must
// differ reads `plane.mc.features` (docs/testing.md, "Metacontroller versions").
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface MetacontrollerFeatures {
  /** Webhook `etag` (the hook answers 304 to an unchanged resync); the controllers carry it as shipped. */
  etag: boolean;
  /**
   * Webhook `authorization` (a Bearer token read from a Secret): the controllers carry it as shipped and the hook
   * server requires its token. Without it the release cannot send credentials, and the hook server runs with the
   * logged `METAOPS_ALLOW_UNAUTHENTICATED=true` opt-out.
   */
  authorization: boolean;
  /**
   * The release's ControllerRevision CRD keeps `parentPatch`. v1.5.20's has no schema for it, so the API server
   * prunes it and Metacontroller rewrites every revision at every sync (a PodSet of two pods synced ~100 times a
   * second): the suite patches that CRD as v4's ships it.
   */
  revisionKeepsParentPatch: boolean;
  /**
   * Its RollingRecreate/RollingInPlace finish for namespaced children. From v4.10.3 they do not: observed children are
   * keyed `namespace/name` (pkg/controller/common/api/v2/common.go, qualifiedName) and the rolling update looks them
   * up by bare name (pkg/controller/composite/rolling_update.go, FindGroupKindName), so after the first child it
   * waits forever on "missing child" (docs/metacontroller.md). No shipped controller uses them.
   */
  rollingUpdate: boolean;
  /** A DecoratorController's `ignoreStatusChanges` (no call about a change of a decorated object's status alone). */
  ignoreStatusChanges: boolean;
  /**
   * It keeps a customize answer per parent uid and generation (v4: manager.go L187, L228). v1.5.20 keeps one per parent
   * name and generation (pkg/controller/common/customize/manager.go L73-91): a same-named parent of another
   * namespace at the same generation is handed the first one's answer and refused (docs/metacontroller.md).
   */
  customizeByUid: boolean;
  /**
   * A hook's `version` (v4: v2 sends a namespaced parent its cluster-scoped related objects, a StorageClass; v1 drops
   * them). v1.5.20 has no such field and sends them without it.
   */
  hookVersion: boolean;
}

export interface MetacontrollerRelease {
  version: string;
  /** Where it came from, for the report. */
  source: string;
  binary: string;
  /** metacontroller-namespace.yaml, metacontroller-rbac.yaml, metacontroller-crds-v1.yaml: applied before it starts. */
  manifests: string;
  features: MetacontrollerFeatures;
  /** Its command line: where to find the API server and where to serve its own endpoints (loopback, free ports). */
  connect(o: { kubeconfig: string; port: number; healthPort: number }): string[];
  /** The suite's defaults for everything else: fast discovery, a generous client rate limit, verbose logs. */
  defaultArgs: string[];
  /** How many times its log says it updated a child of the parent `namespace/name` (its log formats differ). */
  childUpdates(log: string, namespace: string, name: string): number;
}

export const MANIFEST_FILES = [
  'metacontroller-namespace.yaml',
  'metacontroller-rbac.yaml',
  'metacontroller-crds-v1.yaml',
] as const;

const TUNING = ['--discovery-interval=1s', '--client-go-qps=100', '--client-go-burst=200'];

/** v1.5.20 (2021): the only release the Go module proxy serves; built by e2e/build.sh into `bin`. */
export function v1(bin: string): MetacontrollerRelease {
  return {
    version: 'v1.5.20',
    source: 'github.com/metacontroller/metacontroller v1.5.20 built from the Go module proxy (e2e/build.sh)',
    binary: join(bin, 'metacontroller'),
    manifests: join(bin, '..', 'metacontroller'),
    features: {
      etag: false,
      authorization: false,
      revisionKeepsParentPatch: false,
      rollingUpdate: true,
      ignoreStatusChanges: false,
      customizeByUid: false,
      hookVersion: false,
    },
    connect: (o) => ['--client-config-path', o.kubeconfig, `--debug-addr=127.0.0.1:${o.port}`],
    defaultArgs: [...TUNING, '-v=4'],
    // klog: I1125 ... manage_children.go:...] ... "Updating" parent="default/my-mysql" child=...
    childUpdates: (log, namespace, name) =>
      log.split('\n').filter((l) => l.includes(`"Updating" parent="${namespace}/${name}"`)).length,
  };
}

/** The folder of v4.17.2 beside the repository (`../shared/metacontroller/v4.17.2`, CI lays it there too). */
export function v4Folder(repo: string): string {
  return resolve(process.env['METAOPS_MC4_DIR'] ?? join(repo, '..', 'shared', 'metacontroller', 'v4.17.2'));
}

/**
 * v4.17.2, what users run: the release built from its source in ../shared/metacontroller/v4.17.2 (its README),
 * with its own CRDs and RBAC. Its binary is checked against the SHA-256 recorded beside it before it is used.
 */
export function v4(repo: string): MetacontrollerRelease {
  const dir = v4Folder(repo);
  const binary = join(dir, 'metacontroller');
  return {
    version: 'v4.17.2',
    source: `${dir} (built from tag v4.17.2; SHA-256 checked)`,
    binary,
    manifests: dir,
    features: {
      etag: true,
      authorization: true,
      revisionKeepsParentPatch: true,
      rollingUpdate: false,
      ignoreStatusChanges: true,
      customizeByUid: true,
      hookVersion: true,
    },
    connect: (o) => [
      `--kubeconfig=${o.kubeconfig}`,
      `--metrics-address=127.0.0.1:${o.port}`,
      // Its default is :8081 on every address: another control plane on this machine would collide.
      `--health-probe-bind-address=127.0.0.1:${o.healthPort}`,
    ],
    defaultArgs: [...TUNING, '--zap-log-level=4'],
    // zap JSON: {"level":"info","msg":"Updating","parent":{"kind":..,"namespace":..,"name":..},"child":{..},...}
    childUpdates: (log, namespace, name) =>
      log.split('\n').filter((l) => {
        if (!l.includes('"msg":"Updating"')) return false;
        try {
          const entry = JSON.parse(l) as { msg?: string; parent?: { namespace?: string; name?: string } };
          return entry.msg === 'Updating' && entry.parent?.namespace === namespace && entry.parent.name === name;
        } catch {
          return false;
        }
      }).length,
  };
}

/** Fails, saying why, unless the release's binary and manifests are there and the binary is the recorded one. */
export function verify(release: MetacontrollerRelease): void {
  for (const f of [release.binary, ...MANIFEST_FILES.map((m) => join(release.manifests, m))]) {
    if (!existsSync(f)) throw new Error(`Metacontroller ${release.version}: ${f} is missing (${release.source})`);
  }
  const recorded = join(release.manifests, 'metacontroller.sha256');
  if (!existsSync(recorded)) return; // built here from the proxy, whose go.sum pins the module's hash
  const want = readFileSync(recorded, 'utf8').trim().split(/\s+/)[0]!;
  const got = createHash('sha256').update(readFileSync(release.binary)).digest('hex');
  if (got !== want)
    throw new Error(
      `Metacontroller ${release.version}: ${release.binary} has SHA-256 ${got}, ${recorded} says ${want}`,
    );
}

/** The releases named by E2E_METACONTROLLER (comma separated, e.g. `v4.17.2`); default: v4.17.2, then v1.5.20. */
export function releases(
  bin: string,
  repo: string,
  wanted = process.env['E2E_METACONTROLLER'],
): MetacontrollerRelease[] {
  const all = [v4(repo), v1(bin)];
  if (!wanted) return all;
  const names = wanted.split(',').map((s) => s.trim().replace(/^v?/, 'v'));
  const picked = all.filter((r) => names.some((n) => r.version === n || r.version.startsWith(`${n}.`)));
  if (picked.length !== names.length)
    throw new Error(`E2E_METACONTROLLER=${wanted}: known versions are ${all.map((r) => r.version).join(', ')}`);
  return picked;
}
