// Who wrote a PodBuggerTool, and whether that user could do what the tool does. A tool runs its command in every
// pod it selects through the hook server's own service account; without this check it is pods/exec by proxy for
// anyone who may create PodBuggerTools.
//
// The model (docs/podbuggertool.md, "Who may debug"): the API server stamps the author. A MutatingAdmissionPolicy
// shipped with metaops (admissionregistration.k8s.io/v1) writes `debug.metaops.dev/author` on every create, and on
// every update that changes the spec, from the request's own user information (name, UID, groups); on any other
// update it puts back the stamp the tool had, so no client can set or change it. The stamp carries the UID of the
// policy's parameter ConfigMap (the epoch): a stamp made before the policy was installed, or by hand while it was
// not, does not carry it and is not trusted. Before acting, the hook asks the API server (SubjectAccessReview)
// whether the author may patch pods/ephemeralcontainers in the tool's namespace: what the tool does, and what
// `kubectl debug` needs.
import type { KubeApi } from '../../lib/kube.js';
import type { KubeObject } from '../../lib/metacontroller.js';

/** The annotation the admission policy writes (and keeps) on every PodBuggerTool. */
export const AUTHOR_ANNOTATION = 'debug.metaops.dev/author';
/** The name of the policy, its binding and its parameter ConfigMap. */
export const AUTHOR_POLICY = 'metaops-podbuggertool-author';
/**
 * Where the shipped parameter ConfigMap lives: the hook server's namespace (manifests/deploy/namespace.yaml; the Helm
 * chart puts it in the release's). The hook reads the namespace from the binding, which only an administrator writes.
 */
export const AUTHOR_POLICY_NAMESPACE = 'metaops';
const ADMISSION_API = 'admissionregistration.k8s.io/v1';

/** The author of a tool's spec, as the admission policy stamped it. */
export interface Author {
  /** The UID of the policy's parameter ConfigMap when the stamp was made. */
  epoch: string;
  user: string;
  uid: string;
  groups: string[];
}

/** `%`, `;` and `,` escaped, as the policy writes every part (a user or group name may contain any of them). */
function unescape(part: string): string {
  return part.replace(/%(25|3B|2C)/g, (_, code: string) => ({ '25': '%', '3B': ';', '2C': ',' })[code]!);
}

/** A stamp `v1;<epoch>;<user>;<uid>;<group>,<group>...`, or undefined for anything else. */
export function parseStamp(text: unknown): Author | undefined {
  if (typeof text !== 'string' || text.length > 16 * 1024) return undefined;
  const parts = text.split(';');
  if (parts.length !== 5 || parts[0] !== 'v1') return undefined;
  const [, epoch, user, uid, groups] = parts as [string, string, string, string, string];
  if (!epoch || !user) return undefined;
  return {
    epoch,
    user: unescape(user),
    uid: unescape(uid),
    groups: groups === '' ? [] : groups.split(',').map(unescape),
  };
}

/** A CEL expression that escapes `%`, `;` and `,` in the string `s`, as parseStamp undoes it. */
const escaped = (s: string) => `${s}.replace('%', '%25').replace(';', '%3B').replace(',', '%2C')`;

/**
 * The objects that make the stamp: the parameter ConfigMap (its UID is the epoch), the MutatingAdmissionPolicy and
 * its binding. Shipped in manifests/admission/ (npm run manifests).
 */
export function authorPolicyObjects(): Array<Record<string, unknown>> {
  const labels = { 'app.kubernetes.io/part-of': 'metaops' };
  const stored = `request.operation == 'UPDATE' && has(oldObject.metadata.annotations) && '${AUTHOR_ANNOTATION}' in oldObject.metadata.annotations ? oldObject.metadata.annotations['${AUTHOR_ANNOTATION}'] : ''`;
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: AUTHOR_POLICY, namespace: AUTHOR_POLICY_NAMESPACE, labels },
      data: {
        about:
          'The parameter of the MutatingAdmissionPolicy metaops-podbuggertool-author: its UID is in every author stamp. Deleting and creating it again makes every stamp made before untrusted (docs/podbuggertool.md).',
      },
    },
    {
      apiVersion: ADMISSION_API,
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: AUTHOR_POLICY, labels },
      spec: {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ['debug.metaops.dev'],
              apiVersions: ['*'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['podbuggertools'],
            },
          ],
        },
        failurePolicy: 'Fail',
        reinvocationPolicy: 'Never',
        variables: [
          { name: 'epoch', expression: 'string(params.metadata.uid)' },
          {
            name: 'changed',
            expression: "request.operation == 'CREATE' || object.spec != oldObject.spec",
          },
          { name: 'stored', expression: stored },
          {
            name: 'stamp',
            expression: [
              "'v1;' + variables.epoch + ';'",
              escaped('request.userInfo.username'),
              `';' + ${escaped("(has(request.userInfo.uid) ? request.userInfo.uid : '')")}`,
              `';' + (has(request.userInfo.groups) ? request.userInfo.groups.map(g, ${escaped('g')}).join(',') : '')`,
            ].join(' + '),
          },
          {
            name: 'value',
            expression:
              "variables.changed ? variables.stamp : (variables.stored.startsWith('v1;' + variables.epoch + ';') ? variables.stored : '')",
          },
        ],
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: {
              expression: `Object{metadata: Object.metadata{annotations: {"${AUTHOR_ANNOTATION}": variables.value}}}`,
            },
          },
        ],
      },
    },
    {
      apiVersion: ADMISSION_API,
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { name: AUTHOR_POLICY, labels },
      spec: {
        policyName: AUTHOR_POLICY,
        paramRef: { name: AUTHOR_POLICY, namespace: AUTHOR_POLICY_NAMESPACE, parameterNotFoundAction: 'Deny' },
      },
    },
  ];
}

export type AuthorVerdict =
  | { allowed: true; author: string }
  | { allowed: false; reason: 'AuthorUnverified' | 'AuthorNotAllowed'; message: string };

/** The caller's budget was spent before a call the check needed: the caller comes back later. */
export class OutOfTime extends Error {
  constructor() {
    super('the work budget was spent before the author could be checked');
    this.name = 'OutOfTime';
  }
}

/** How long a policy's epoch and an author's answer are reused (a revoked right stops the tool within this). */
export const AUTHOR_CACHE_MS = 10_000;
const MAX_ANSWERS = 1000;

/** What is remembered between hook calls: the policy's epoch and the API server's answers, each for a while. */
export class AuthorCache {
  epoch: { value: string | undefined; at: number } | undefined;
  readonly answers = new Map<string, { allowed: boolean; at: number }>();
  constructor(readonly clock: () => number = Date.now) {}

  fresh(at: number): boolean {
    return this.clock() - at < AUTHOR_CACHE_MS;
  }

  remember(key: string, allowed: boolean): void {
    if (this.answers.size >= MAX_ANSWERS) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, { allowed, at: this.clock() });
  }
}

/** The verb and resource a tool's author must hold in its namespace: adding an ephemeral container to a pod. */
export const AUTHOR_RIGHT = { verb: 'patch', group: '', resource: 'pods', subresource: 'ephemeralcontainers' } as const;

/** Whether a tool's author may do what it does, asked of the API server (through `kube`) and remembered in `cache`. */
export class AuthorCheck {
  constructor(
    private readonly kube: KubeApi,
    private readonly cache: AuthorCache,
  ) {}

  /**
   * The policy's epoch: the UID of its parameter ConfigMap, when the policy and its binding (to that policy and a
   * ConfigMap named after it) are in place. The ConfigMap's namespace is the one the binding names (the hook server's
   * own, wherever it was installed): only a cluster administrator may write the binding.
   */
  private async currentEpoch(over: () => boolean): Promise<string | undefined> {
    const cached = this.cache.epoch;
    if (cached && this.cache.fresh(cached.at)) return cached.value;
    if (over()) throw new OutOfTime();
    const [policy, binding] = await Promise.all([
      this.kube.get(ADMISSION_API, 'mutatingadmissionpolicies', '', AUTHOR_POLICY),
      this.kube.get(ADMISSION_API, 'mutatingadmissionpolicybindings', '', AUTHOR_POLICY),
    ]);
    const spec = binding?.['spec'] as
      { policyName?: unknown; paramRef?: { name?: unknown; namespace?: unknown } } | undefined;
    const namespace = spec?.paramRef?.namespace;
    const bound =
      policy !== undefined &&
      spec?.policyName === AUTHOR_POLICY &&
      spec.paramRef?.name === AUTHOR_POLICY &&
      typeof namespace === 'string' &&
      namespace !== '';
    let value: string | undefined;
    if (bound) {
      if (over()) throw new OutOfTime();
      value = (await this.kube.get('v1', 'configmaps', namespace, AUTHOR_POLICY))?.metadata.uid || undefined;
    }
    this.cache.epoch = { value, at: this.cache.clock() };
    return value;
  }

  private async allowed(author: Author, namespace: string, over: () => boolean): Promise<boolean> {
    const key = JSON.stringify([author.user, author.uid, author.groups, namespace]);
    const cached = this.cache.answers.get(key);
    if (cached && this.cache.fresh(cached.at)) return cached.allowed;
    if (over()) throw new OutOfTime();
    const review = await this.kube.create!('authorization.k8s.io/v1', 'subjectaccessreviews', '', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: author.user,
        ...(author.uid ? { uid: author.uid } : {}),
        groups: author.groups,
        resourceAttributes: { namespace, ...AUTHOR_RIGHT },
      },
    });
    const allowed = (review['status'] as { allowed?: unknown } | undefined)?.allowed === true;
    this.cache.remember(key, allowed);
    return allowed;
  }

  /**
   * Whether the tool, as the API server has it, may act in its namespace: its stamp is the policy's, and its author
   * may patch pods/ephemeralcontainers there. Errors of the API server are thrown (the caller reports them), and so
   * is OutOfTime when `over` says no call may start any more.
   */
  async verify(tool: KubeObject, over: () => boolean = () => false): Promise<AuthorVerdict> {
    const namespace = tool.metadata.namespace ?? 'default';
    const annotations = tool.metadata.annotations;
    const author = parseStamp(
      annotations && Object.hasOwn(annotations, AUTHOR_ANNOTATION) ? annotations[AUTHOR_ANNOTATION] : undefined,
    );
    if (!author)
      return {
        allowed: false,
        reason: 'AuthorUnverified',
        message: `the tool has no author stamp from the admission policy ${AUTHOR_POLICY} (it was written before the policy was in force): change its spec, or delete it and create it again, and the policy stamps whoever does; nothing is injected`,
      };
    const epoch = await this.currentEpoch(over);
    if (epoch === undefined)
      return {
        allowed: false,
        reason: 'AuthorUnverified',
        message: `the admission policy ${AUTHOR_POLICY} (and its binding and ConfigMap) is not installed, so no author can be trusted: install manifests/admission/ (docs/podbuggertool.md); nothing is injected`,
      };
    if (author.epoch !== epoch)
      return {
        allowed: false,
        reason: 'AuthorUnverified',
        message: `the tool's author stamp was not made by the admission policy in force (it was installed after the stamp): change the tool's spec, or delete it and create it again; nothing is injected`,
      };
    if (await this.allowed(author, namespace, over)) return { allowed: true, author: author.user };
    return {
      allowed: false,
      reason: 'AuthorNotAllowed',
      message: `its author ${author.user} may not patch pods/ephemeralcontainers in namespace ${namespace}, and a tool does nothing its author could not do; nothing is injected`,
    };
  }
}
