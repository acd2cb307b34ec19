// Who wrote a PodBuggerTool, and whether that user could do what the tool does. A tool runs its command in every
// pod it selects through the hook server's own service account; without this check it is pods/exec by proxy for
// anyone who may create PodBuggerTools.
//
// The model (docs/podbuggertool.md, "Who may debug"): the API server stamps the author. A MutatingAdmissionPolicy
// shipped with metaops (admissionregistration.k8s.io/v1) writes `debug.metaops.dev/author` on every create from the
// request's own user information (name, UID, groups, extra); on every update it puts back the stamp the tool had, so
// no client can set or change it. The API server runs it before the mutating webhooks and never again, so a webhook
// after it could rewrite the stamp, or the spec: a ValidatingAdmissionPolicy shipped with it (validating admission
// runs after every mutation) computes the creator's stamp again and refuses a create stored with any other, and
// refuses every update that changes the spec, or stores a stamp other than the tool's own (or none). A tool's spec is
// the one its creator wrote, whoever writes it later (a label, the garbage collector's orphaning) and whatever a
// webhook does inside that write. (What admission cannot tell: a webhook that rewrites the spec inside another user's
// create. No validator sees an object as its writer sent it; docs/podbuggertool.md says so.) A stamp is trusted only on a tool created
// after both policies and their bindings (their creationTimestamps, which no client sets): a tool written before
// they were in place (or while they were not) may carry a stamp written by hand, or rewritten by a webhook. And only
// while all four are at metadata.generation 1 (their specs never changed since they were made; the API server sets
// it): a policy or binding narrowed in place and put back may have left tools unstamped meanwhile, and nothing dates
// the change (managedFields are not a change log: a field removed drops its manager's entry). And only on a tool at
// metadata.generation 1 (2 once its deletion began): a spec changed since its creation is nobody's the stamp names
// (specChanged). Before acting, the hook
// asks the API server (SubjectAccessReview) whether the author may patch pods/ephemeralcontainers in the tool's
// namespace: what the tool does, and what `kubectl debug` needs. (An earlier design took an epoch from a parameter ConfigMap: the
// API server of Kubernetes 1.36 stopped finding a policy's parameters once the policy had been deleted and created
// again, and refused every tool write: no parameter is used.)
//
// What a revocation does. The review asks about the stamped user, UID and groups against the authorizer as it is at
// the time of the check (RBAC bindings now), never against a verdict of the tool's creation: a RoleBinding or
// ClusterRoleBinding revoked, whether it names the user or one of the stamped groups, refuses the author from the
// next review on (AUTHOR_CACHE_MS at most). Group membership is the authenticator's, told only in the request that
// wrote the spec, and nothing can derive it again later: a user taken out of a group at the identity provider keeps
// that group's rights for their tools until the tool is deleted and created again or the binding is revoked.
import { createHash } from 'node:crypto';
import { impersonationHeaders, type KubeApi, KubeError, type KubeObject } from '../../lib/index.js';
import { SharedMemory } from './memory.js';

/** The annotation the admission policy writes (and keeps) on every PodBuggerTool. */
export const AUTHOR_ANNOTATION = 'debug.metaops.dev/author';
/** The name of the policy and of its binding. */
export const AUTHOR_POLICY = 'metaops-podbuggertool-author';
const ADMISSION_API = 'admissionregistration.k8s.io/v1';

/** The author of a tool's spec, as the admission policy stamped it. */
export interface Author {
  user: string;
  uid: string;
  groups: string[];
  /** The authenticator's extra information (scopes, a session's ID...): some authorizers decide on it. */
  extra?: Record<string, string[]>;
}

/** `%`, `;`, `,` and `=` escaped, as the policy writes every part (a user or group name may contain any of them). */
function unescape(part: string): string {
  return part.replace(/%(25|3B|2C|3D)/g, (_, code: string) => ({ '25': '%', '3B': ';', '2C': ',', '3D': '=' })[code]!);
}

/**
 * The stamp's extra part, `<key>=<value>,...` (a key once per value), as a map of lists. An object without a
 * prototype: a key is the author's text, and one named `__proto__` is a key like any other (on a plain `{}` it would
 * set the prototype and be lost from the review, the cache key and the impersonation headers).
 */
function parseExtra(text: string): Record<string, string[]> | undefined {
  const extra = Object.create(null) as Record<string, string[]>;
  for (const item of text === '' ? [] : text.split(',')) {
    const eq = item.indexOf('=');
    if (eq <= 0) return undefined;
    const key = unescape(item.slice(0, eq));
    (Object.hasOwn(extra, key) ? extra[key]! : (extra[key] = [])).push(unescape(item.slice(eq + 1)));
  }
  return extra;
}

/**
 * The longest stamp read: the API server keeps at most 256 KiB of annotations on an object (keys and values
 * together), so every stamp the policy can write is read, a user in a few thousand groups included (each group named
 * as an LDAP distinguished name, `cn=...,ou=groups,dc=example,dc=com`, its `,` and `=` escaped: 60 to 80 characters).
 * What a stamp costs is bounded by it: parsing it, and a SubjectAccessReview naming its groups (the API server takes
 * requests of 3 MiB); the answers are remembered by a hash of who was asked about (AuthorCache), not by the groups.
 */
export const MAX_STAMP_CHARS = 256 * 1024;

/**
 * A stamp `v1;<user>;<uid>;<group>,<group>...[;<key>=<value>,...]`, or undefined for anything else. The extra part
 * (the authenticator's userInfo.extra) is written since the policy sends it on; a stamp without it has none.
 */
export function parseStamp(text: unknown): Author | undefined {
  if (typeof text !== 'string' || text.length > MAX_STAMP_CHARS) return undefined;
  const parts = text.split(';');
  if ((parts.length !== 4 && parts.length !== 5) || parts[0] !== 'v1') return undefined;
  const [, user, uid, groups, extraText] = parts as [string, string, string, string, string | undefined];
  if (!user) return undefined;
  const extra = extraText === undefined ? {} : parseExtra(extraText);
  if (!extra) return undefined;
  return {
    user: unescape(user),
    uid: unescape(uid),
    groups: groups === '' ? [] : groups.split(',').map(unescape),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

/** A CEL expression that escapes `%`, `;`, `,` and `=` in the string `s`, as parseStamp undoes it. */
const escaped = (s: string) => `${s}.replace('%', '%25').replace(';', '%3B').replace(',', '%2C').replace('=', '%3D')`;

/** The author annotation of `obj` (`object` or `oldObject`) in CEL, '' when it has none. */
const annotationOf = (obj: string) =>
  `has(${obj}.metadata.annotations) && '${AUTHOR_ANNOTATION}' in ${obj}.metadata.annotations ? ${obj}.metadata.annotations['${AUTHOR_ANNOTATION}'] : ''`;

/** The resources both policies match: every create and update of a PodBuggerTool (its status apart). */
const MATCH_TOOLS = {
  resourceRules: [
    {
      apiGroups: ['debug.metaops.dev'],
      apiVersions: ['*'],
      operations: ['CREATE', 'UPDATE'],
      resources: ['podbuggertools'],
    },
  ],
};

/**
 * Whether the request creates the tool: the only write that stamps it (the stamp is then the writer's). A tool's spec
 * is fixed at its creation (the validating policy refuses an update that changes it), so the stamp names who wrote
 * the spec, and no later write, nor a webhook inside one, gives that spec to another user.
 */
const CREATED = {
  name: 'created',
  expression: "request.operation == 'CREATE'",
};
/** The writer's stamp, from the request's userInfo: what parseStamp reads. */
const STAMP = {
  name: 'stamp',
  expression: [
    "'v1;'",
    escaped('request.userInfo.username'),
    `';' + ${escaped("(has(request.userInfo.uid) ? request.userInfo.uid : '')")}`,
    `';' + (has(request.userInfo.groups) ? request.userInfo.groups.map(g, ${escaped('g')}).join(',') : '')`,
    // userInfo.extra (scopes, a session's ID...): some authorizers decide on it, so the review sends it.
    `';' + (has(request.userInfo.extra) ? request.userInfo.extra.map(k, request.userInfo.extra[k].map(v, ${escaped('k')} + '=' + ${escaped('v')}).join(',')).filter(e, e != '').join(',') : '')`,
  ].join(' + '),
};

/**
 * Whether the stored stamp (`written`) is the writer's (`stamp`): the validating policy's variables, `same` last.
 */
const SAME_STAMP = [
  // Each part of both (`v1`, user, UID, groups, extra: a part's own `;` is escaped), and the extra part's
  // items: the mutating policy lists userInfo.extra's keys in the order the API server iterates that map,
  // which need not be the same at two evaluations, so the extra part is compared as a set of items.
  { name: 'mine', expression: "variables.stamp.split(';')" },
  { name: 'theirs', expression: "variables.written.split(';')" },
  { name: 'myExtra', expression: "variables.mine[4].split(',')" },
  {
    name: 'theirExtra',
    expression: "size(variables.theirs) == 5 ? variables.theirs[4].split(',') : ['']",
  },
  {
    name: 'same',
    expression:
      'variables.written == variables.stamp || (size(variables.theirs) == 5 && variables.theirs[0] == variables.mine[0] && variables.theirs[1] == variables.mine[1] && variables.theirs[2] == variables.mine[2] && variables.theirs[3] == variables.mine[3] && size(variables.theirExtra) == size(variables.myExtra) && variables.theirExtra.all(e, e in variables.myExtra) && variables.myExtra.all(e, e in variables.theirExtra))',
  },
];

/**
 * The objects that make the stamp, all four named AUTHOR_POLICY: the MutatingAdmissionPolicy that writes it and its
 * binding, and the ValidatingAdmissionPolicy that refuses a tool stored with a stamp that is not its writer's, and its
 * binding. Shipped in manifests/admission/ (npm run manifests) and in the Helm chart.
 *
 * Why both. The API server runs MutatingAdmissionPolicies before mutating admission webhooks, and the mutating
 * policy is never reinvoked (reinvocationPolicy Never): a webhook after it (a tenant's Kyverno Policy that copies an
 * annotation the tenant wrote, any "namespace defaults" webhook) may rewrite the stamp, or the spec, and the tool
 * would be stored with an author its writer chose, or with a spec under the name of a user who never wrote it.
 * Validating admission runs after every mutation, on the object as it is to be stored: the validating policy
 * computes the writer's stamp again (the same CEL as the mutating policy) and refuses a create whose stored stamp is
 * not that stamp; it refuses every update that changes the spec (a tool is deleted and created again to change it),
 * and every update whose stored stamp is not the tool's own, whoever writes it: a webhook that writes the stamp of a
 * later writer (an administrator's label, the garbage collector's orphaning) has that write refused. An update that
 * only empties the stamp (no empty stamp is trusted: an update of a tool written before the policy, which the
 * mutating policy gives an empty one) is let through, so Metacontroller's and other clients' writes of metadata go on.
 */
export function authorPolicyObjects(): Array<Record<string, unknown>> {
  const labels = { 'app.kubernetes.io/part-of': 'metaops' };
  const stored = `request.operation == 'UPDATE' && ${annotationOf('oldObject')}`;
  return [
    {
      apiVersion: ADMISSION_API,
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: AUTHOR_POLICY, labels },
      spec: {
        matchConstraints: MATCH_TOOLS,
        failurePolicy: 'Fail',
        reinvocationPolicy: 'Never',
        variables: [
          CREATED,
          { name: 'stored', expression: stored },
          STAMP,
          {
            name: 'value',
            expression:
              "variables.created ? variables.stamp : (variables.stored.startsWith('v1;') ? variables.stored : '')",
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
      spec: { policyName: AUTHOR_POLICY },
    },
    {
      apiVersion: ADMISSION_API,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: AUTHOR_POLICY, labels },
      spec: {
        matchConstraints: MATCH_TOOLS,
        failurePolicy: 'Fail',
        variables: [
          CREATED,
          { name: 'stored', expression: stored },
          STAMP,
          // The stamp as the tool is to be stored: after every mutating policy and webhook.
          { name: 'written', expression: annotationOf('object') },
          ...SAME_STAMP,
        ],
        validations: [
          {
            // The spec as it is to be stored, after every mutation: a webhook that rewrites the spec inside another
            // user's write (an administrator's label, the garbage collector's orphaning) is refused with it.
            expression: 'variables.created || object.spec == oldObject.spec',
            reason: 'Forbidden',
            message: `a PodBuggerTool's spec cannot be changed once it is created: its author stamp (annotation ${AUTHOR_ANNOTATION}) names who created it, and the tool acts only with that user's rights; delete the tool and create it again with the new spec (docs/podbuggertool.md, "Who may debug")`,
          },
          {
            // A create: the writer's stamp. An update: the stored stamp kept (or emptied: no empty stamp is trusted),
            // whoever writes, so that no webhook gives the tool the name of the user of a later write.
            expression:
              "variables.created ? variables.same : (variables.written == variables.stored || variables.written == '')",
            reason: 'Forbidden',
            message: `the PodBuggerTool's author stamp (annotation ${AUTHOR_ANNOTATION}) is not the one the MutatingAdmissionPolicy ${AUTHOR_POLICY} writes: on a create, the stamp of the user who creates it; on an update, the stamp the tool has. A mutating webhook after that policy changed it, or the policy is not in force; metaops trusts a stamp only as its creator's, so this write is refused (docs/podbuggertool.md, "Who may debug")`,
          },
        ],
      },
    },
    {
      apiVersion: ADMISSION_API,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: AUTHOR_POLICY, labels },
      spec: { policyName: AUTHOR_POLICY, validationActions: ['Deny'] },
    },
  ];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A label selector as it selects: absent, `{}` and one of empty lists are all "everything". */
function selectorOf(s: unknown): Json {
  const sel = (s ?? {}) as { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  return {
    matchLabels: (sel.matchLabels ?? {}) as Json,
    matchExpressions: (sel.matchExpressions ?? []) as Json,
  };
}

/** A rule of resources as it matches: the API server's default scope (`*`) and no resourceNames written out. */
function ruleOf(r: unknown): Json {
  const rule = (r ?? {}) as Record<string, unknown>;
  return {
    ...(rule as Record<string, Json>),
    resourceNames: (rule['resourceNames'] ?? []) as Json,
    scope: (rule['scope'] ?? '*') as Json,
  };
}

/**
 * What a matchConstraints (the policy's) or matchResources (the binding's) covers, with the API server's defaults
 * written out (matchPolicy Equivalent, selectors `{}`, scope `*`), so that the object as stored compares equal to the
 * object as shipped. An absent matchResources is "all the policy matches", as one of no rules is.
 */
function coverageOf(m: unknown): Json {
  const match = (m ?? {}) as Record<string, unknown>;
  const rules = (x: unknown) => (Array.isArray(x) ? x.map(ruleOf) : []);
  return {
    ...(match as Record<string, Json>),
    matchPolicy: (match['matchPolicy'] ?? 'Equivalent') as Json,
    namespaceSelector: selectorOf(match['namespaceSelector']),
    objectSelector: selectorOf(match['objectSelector']),
    resourceRules: rules(match['resourceRules']),
    excludeResourceRules: rules(match['excludeResourceRules']),
  };
}

/**
 * The fields of the policies' and the bindings' specs that decide which tools are stamped (or checked) and with what:
 * every field of admissionregistration.k8s.io/v1 MutatingAdmissionPolicySpec, MutatingAdmissionPolicyBindingSpec,
 * ValidatingAdmissionPolicySpec and ValidatingAdmissionPolicyBindingSpec, with the API server's defaults written out.
 */
const POLICY_FIELDS: Record<string, (v: unknown) => Json> = {
  paramKind: (v) => (v ?? null) as Json,
  matchConstraints: coverageOf,
  matchConditions: (v) => (v ?? []) as Json,
  variables: (v) => (v ?? []) as Json,
  mutations: (v) => (v ?? []) as Json,
  failurePolicy: (v) => (v ?? 'Fail') as Json,
  reinvocationPolicy: (v) => (v ?? 'Never') as Json,
};
const BINDING_FIELDS: Record<string, (v: unknown) => Json> = {
  policyName: (v) => (v ?? null) as Json,
  paramRef: (v) => (v ?? null) as Json,
  matchResources: coverageOf,
};
const VALIDATING_POLICY_FIELDS: Record<string, (v: unknown) => Json> = {
  paramKind: (v) => (v ?? null) as Json,
  matchConstraints: coverageOf,
  matchConditions: (v) => (v ?? []) as Json,
  variables: (v) => (v ?? []) as Json,
  validations: (v) => (v ?? []) as Json,
  auditAnnotations: (v) => (v ?? []) as Json,
  failurePolicy: (v) => (v ?? 'Fail') as Json,
};
const VALIDATING_BINDING_FIELDS: Record<string, (v: unknown) => Json> = {
  policyName: (v) => (v ?? null) as Json,
  paramRef: (v) => (v ?? null) as Json,
  matchResources: coverageOf,
  validationActions: (v) => (v ?? []) as Json,
};

/** The four objects of the author model, in the order authorPolicyObjects ships them, and how a refusal names each. */
export const AUTHOR_OBJECTS = [
  { kind: 'MutatingAdmissionPolicy', resource: 'mutatingadmissionpolicies', what: 'policy', fields: POLICY_FIELDS },
  {
    kind: 'MutatingAdmissionPolicyBinding',
    resource: 'mutatingadmissionpolicybindings',
    what: 'binding',
    fields: BINDING_FIELDS,
  },
  {
    kind: 'ValidatingAdmissionPolicy',
    resource: 'validatingadmissionpolicies',
    what: 'validating policy',
    fields: VALIDATING_POLICY_FIELDS,
  },
  {
    kind: 'ValidatingAdmissionPolicyBinding',
    resource: 'validatingadmissionpolicybindings',
    what: 'validating binding',
    fields: VALIDATING_BINDING_FIELDS,
  },
] as const;

/** A JSON value as text, its objects' keys sorted: equal texts for equal values whatever the order of keys. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * The fields of the stored policies and bindings (`stored`, in the order of AUTHOR_OBJECTS) that are not what metaops
 * ships (authorPolicyObjects, from which the manifests and the chart are made), as `policy spec.<field>`, `binding
 * spec.<field>`, `validating policy spec.<field>`, `validating binding spec.<field>`; none when all four stamp and
 * check every tool as shipped. A binding narrowed by matchResources (a namespaceSelector, an objectSelector,
 * excludeResourceRules), a policy with other matchConstraints, matchConditions, variables, mutations, validations or
 * failurePolicy, a validating binding that only warns or audits, may leave some tools unstamped (or stamped
 * otherwise, or a stamp rewritten after the mutating policy stored), and their annotation is then whatever their
 * writer put there.
 */
export function authorPolicyDifferences(stored: readonly KubeObject[]): string[] {
  const shipped = authorPolicyObjects() as unknown as KubeObject[];
  const differences: string[] = [];
  AUTHOR_OBJECTS.forEach(({ what, fields }, i) => {
    const storedSpec = (stored[i]?.['spec'] ?? {}) as Record<string, unknown>;
    const shippedSpec = shipped[i]!['spec'] as Record<string, unknown>;
    for (const [field, normal] of Object.entries(fields))
      if (canonical(normal(storedSpec[field])) !== canonical(normal(shippedSpec[field])))
        differences.push(`${what} spec.${field}`);
  });
  return differences;
}

/** The stamped groups as a refusal names them: the first five, and how many more. */
function groupsText(groups: string[]): string {
  if (groups.length === 0) return 'no groups';
  const shown = groups.slice(0, 5).join(', ');
  return `the groups ${shown}${groups.length > 5 ? ` and ${groups.length - 5} more` : ''}`;
}

export type AuthorVerdict =
  | { allowed: true; author: string }
  | {
      allowed: false;
      reason: 'AuthorUnverified' | 'AuthorNotAllowed';
      message: string;
      /** Refused on the pod asked about, though allowed on the namespace's pods (an authorizer deciding per pod). */
      onPod?: true;
    };

/**
 * The reason of a tool's status whose author may not patch pods/ephemeralcontainers in its namespace as a whole, but
 * may on some of the pods it selects, by name (RBAC's resourceNames, a webhook that decides per pod). Not a refusal:
 * the injector asks about each pod by name, and a pod the author may not patch is that pod's failure.
 */
export const PER_POD = 'AuthorAllowedOnSomePods';
/**
 * The most SubjectAccessReviews by pod name the tool's status asks at one sync, when its author is refused on the
 * namespace as a whole (and the pods it lists at that sync): a pass over the pods the tool selects goes on from one
 * sync to the next where it stopped (probe.ts), so that a pod anywhere in the list is asked about, and each sync's
 * work is bounded whatever the number of pods, and whatever the number of refused tools.
 */
export const MAX_PROBED_PODS = 16;

/**
 * The authorizer could not decide: the API server answered a SubjectAccessReview `allowed: false` with an
 * `evaluationError` and no explicit `denied` (a webhook authorizer that timed out or erred). Not a refusal: an error,
 * neither remembered nor taken for an answer; the caller retries (the injector records it on the pod, reason
 * AuthorizerError, with the backoff of any failure; the tool's status keeps what it said, and its sync is retried).
 */
export class AuthorizerError extends KubeError {
  constructor(evaluationError: string) {
    // The review itself was answered (201): the reason is the authorizer's, its words cut to a log line's length.
    super(201, `the authorizer could not decide: ${evaluationError.slice(0, 256)}`, 'AuthorizerError');
    this.name = 'AuthorizerError';
  }
}

/** A SubjectAccessReview's answer: allowed, refused, or the authorizer's error (a no with an evaluationError). */
function decision(review: KubeObject): boolean | AuthorizerError {
  const status = review['status'] as { allowed?: unknown; denied?: unknown; evaluationError?: unknown } | undefined;
  if (status?.allowed === true) return true;
  const error = status?.evaluationError;
  return status?.denied !== true && typeof error === 'string' && error !== '' ? new AuthorizerError(error) : false;
}

/** The caller's budget was spent before a call the check needed: the caller comes back later. */
export class OutOfTime extends Error {
  constructor() {
    super('the work budget was spent before the author could be checked');
    this.name = 'OutOfTime';
  }
}

/**
 * A tool created within this time of the policy (or its binding) is not trusted: the API server applies a new policy
 * a moment after it is created (a second or two here), and a tool written in between keeps whatever annotation its
 * writer gave it.
 */
export const AUTHOR_GRACE_MS = 10_000;

/**
 * How long an author's answer (the SubjectAccessReview's) is reused: a binding revoked (the user's own or one of a
 * group the stamp names) stops injection into new pods within this; a grant starts it within this (and the tool's
 * resync, when its status said refused). The state of the admission policy is not remembered: it is read at every
 * check, so a policy removed or made again is seen at once.
 */
export const AUTHOR_CACHE_MS = 10_000;
/** Answers remembered over the whole server, each namespace's share kept (SharedMemory). */
const MAX_ANSWERS = 1000;

/**
 * The key of an answer about a question asked in `namespace` (its hash): the namespace, a space, the hash. A
 * namespace name has no space, and neither has a base64 hash.
 */
export function answerKey(namespace: string, hash: string): string {
  return `${namespace} ${hash}`;
}

/** The namespace of an answer's key ('' for a key of no namespace). */
function namespaceOfAnswer(key: string): string {
  const space = key.indexOf(' ');
  return space < 0 ? '' : key.slice(0, space);
}

/**
 * The API server's answers about authors, remembered between hook calls; one per server, shared by the injector and
 * the tool's status (authorCacheFor), so that a refusal either of them heard is the answer of both. Bounded over the
 * server and shared fairly between namespaces: past MAX_ANSWERS, the oldest answer of the namespace that holds the
 * most is forgotten, so one namespace's pods (one question each) never push out what another's checks remembered.
 */
export class AuthorCache {
  readonly answers = new SharedMemory<{ allowed: boolean; at: number }>(MAX_ANSWERS, namespaceOfAnswer);
  constructor(readonly clock: () => number = Date.now) {}

  fresh(at: number): boolean {
    const age = this.clock() - at;
    return age >= 0 && age < AUTHOR_CACHE_MS;
  }

  remember(key: string, allowed: boolean): void {
    this.answers.set(key, { allowed, at: this.clock() });
  }
}

const shared = new WeakMap<object, AuthorCache>();

/** The author cache of a server (its environment object): the same for both PodBuggerTool hooks. */
export function authorCacheFor(environment: object): AuthorCache {
  let cache = shared.get(environment);
  if (!cache) shared.set(environment, (cache = new AuthorCache()));
  return cache;
}

/** The verb and resource a tool's author must hold in its namespace: adding an ephemeral container to a pod. */
export const AUTHOR_RIGHT = { verb: 'patch', group: '', resource: 'pods', subresource: 'ephemeralcontainers' } as const;

/**
 * What a tool's author must hold in its namespace for the tool's status to name its pods: listing them. (The status
 * is counted with the hook server's rights: naming pods to an author who may not list them is pods/list by proxy.)
 */
export const NAMES_RIGHT = { verb: 'list', group: '', resource: 'pods' } as const;

/** A tool's author stamp, when it has one of the policy's form. */
function stampOf(tool: KubeObject): Author | undefined {
  return parseStamp(stampText(tool));
}

/** The text of a tool's author annotation, when it has one. */
function stampText(tool: KubeObject): unknown {
  const annotations = tool.metadata.annotations;
  return annotations && Object.hasOwn(annotations, AUTHOR_ANNOTATION) ? annotations[AUTHOR_ANNOTATION] : undefined;
}

/**
 * Why a tool's author annotation is no stamp the hook reads, as the refusal says it: none at all (written before the
 * policy), one longer than MAX_STAMP_CHARS, or one not of the policy's form (written by hand).
 */
function unreadStamp(tool: KubeObject): string {
  const text = stampText(tool);
  if (typeof text === 'string' && text.length > MAX_STAMP_CHARS)
    return `the tool's author stamp is ${text.length} characters long, longer than the ${MAX_STAMP_CHARS / 1024} KiB the hook server reads (its author is in too many groups to be named in one SubjectAccessReview): it cannot be checked; nothing is injected`;
  if (text !== undefined)
    return `the tool has no author stamp from the admission policy ${AUTHOR_POLICY}: its annotation ${AUTHOR_ANNOTATION} is not of the policy's form ("v1;<user>;<uid>;<groups>;<extra>"), written by hand before the policy was in force: delete the tool and create it again, and the policy stamps whoever does; nothing is injected`;
  return `the tool has no author stamp from the admission policy ${AUTHOR_POLICY} (it was written before the policy was in force): delete it and create it again, and the policy stamps whoever does; nothing is injected`;
}

/**
 * When an object was last written other than its status (ms): the newest managedFields[].time of an entry not of the
 * status subresource; undefined when none is known and its generation is 1 or absent (never changed since made: its
 * creationTimestamp says when); null when it was changed (generation > 1) and no such time is known (unknown).
 */
export function lastWritten(obj: KubeObject): number | undefined | null {
  const entries = (obj.metadata as { managedFields?: unknown }).managedFields;
  let newest: number | undefined;
  for (const e of Array.isArray(entries) ? entries.slice(0, MAX_MANAGED_FIELDS) : []) {
    const entry = e as { subresource?: unknown; time?: unknown } | null;
    if (!entry || typeof entry !== 'object' || entry.subresource === 'status') continue;
    const at = typeof entry.time === 'string' ? Date.parse(entry.time) : NaN;
    if (Number.isFinite(at) && (newest === undefined || at > newest)) newest = at;
  }
  if (newest !== undefined) return newest;
  const generation = (obj.metadata as { generation?: unknown }).generation;
  return typeof generation === 'number' && generation > 1 ? null : undefined;
}

/**
 * Why the tool's spec may not be the one it was created with, or undefined when it is. The API server raises a
 * custom resource's metadata.generation at every change of its spec (never at a write of its metadata or status), and
 * once when its deletion begins (a finalizer holding it): a tool at generation 1, or 2 while it is being deleted, has
 * the spec its creator wrote, which the stamp names. Any other generation (none included, which the API server never
 * stores) is a spec written since by someone the stamp does not name: while the policies were not in force, or by a
 * path that bypassed them.
 */
export function specChanged(tool: KubeObject): string | undefined {
  const generation = tool.metadata.generation;
  const deleting = typeof tool.metadata.deletionTimestamp === 'string' && tool.metadata.deletionTimestamp !== '';
  const expected = deleting ? 2 : 1;
  if (generation === expected || (deleting && generation === 1)) return undefined;
  return typeof generation === 'number'
    ? `it is at generation ${generation}${deleting ? ', being deleted' : ''}, not ${expected}`
    : 'it has no generation';
}

/** The managedFields entries read of one object: the API server keeps one per manager and operation. */
const MAX_MANAGED_FIELDS = 256;

/**
 * The objects a refusal tells to delete and create again: each pair (a policy and its binding) of which one is at
 * fault, both named, as `the MutatingAdmissionPolicy and the MutatingAdmissionPolicyBinding` (and the validating pair).
 */
function remade(kinds: readonly string[]): string {
  const pairs = (['Mutating', 'Validating'] as const)
    .filter((p) => kinds.some((k) => k.startsWith(p)))
    .map((p) => `the ${p}AdmissionPolicy and the ${p}AdmissionPolicyBinding`);
  return pairs.join(' and ');
}

/**
 * Why a tool's stamp is not trusted though the policies are in place since `since` (ms): the tool was created before
 * them (or within AUTHOR_GRACE_MS of them), or its spec changed since its creation (specChanged). Undefined when
 * neither.
 */
function untrustedTool(tool: KubeObject, since: number): AuthorVerdict | undefined {
  // Past the grace: a tool written while the API server was taking the policy in may carry a stamp of its writer's.
  const created = Date.parse(tool.metadata.creationTimestamp ?? '');
  if (!(created > since + AUTHOR_GRACE_MS))
    return {
      allowed: false,
      reason: 'AuthorUnverified',
      message: `the tool was created before the admission policy ${AUTHOR_POLICY} was in place (or within ${AUTHOR_GRACE_MS / 1000} s of it), so its author stamp may not be the policy's: delete it and create it again; nothing is injected`,
    };
  // The spec as it was created: the stamp names who created the tool, and nobody else's spec acts under it.
  const changedSpec = specChanged(tool);
  if (changedSpec !== undefined)
    return {
      allowed: false,
      reason: 'AuthorUnverified',
      message: `the tool's spec was changed after it was created (${changedSpec}), though the admission policy ${AUTHOR_POLICY} refuses such a change: its author stamp names who created it, not who wrote this spec, so no author can be trusted: delete it and create it again; nothing is injected`,
    };
  return undefined;
}

/** Whether a tool's author may do what it does, asked of the API server (through `kube`) and remembered in `cache`. */
export class AuthorCheck {
  constructor(
    private readonly kube: KubeApi,
    private readonly cache: AuthorCache,
  ) {}

  /**
   * Since when the four objects of AUTHOR_OBJECTS (the mutating policy, the validating policy, and their bindings to
   * them) are all in place as they are now: the latest of their creationTimestamps and the times of their last writes
   * (lastWritten) (ms); those missing (`missing`: not found, bound to another policy, or without a creationTimestamp);
   * the fields in which they are not as metaops ships them (and so may leave tools unstamped, or a stamp rewritten
   * after the mutating policy unrefused); or the objects changed in place since they were made (`changed`: their
   * metadata.generation, which the API server sets, is not 1). A change in place may have left tools unstamped for a
   * while, and nothing on the object dates it: the API server moves a managedFields time only for a manager that sets
   * or changes a field, and drops the entry of one left owning nothing, so a narrowing put back by removing what it
   * added leaves only the creation's entry (at generation 3). Only objects never changed (generation 1) are dated by
   * their creation; any other is trusted again once deleted and created again (generation 1, a new
   * creationTimestamp). `kinds`: the kinds at fault, for the refusal's remedy.
   */
  private async inPlaceSince(
    over: () => boolean,
  ): Promise<
    | number
    | { missing: string[]; kinds: string[] }
    | { differences: string[]; kinds: string[] }
    | { changed: string[]; kinds: string[] }
  > {
    // Read at every check, never remembered: a policy removed (or made again, or changed) counts from the next check.
    // As admissionregistration.k8s.io/v1 only (Kubernetes 1.36 and later): the manifests ship that version, and an API
    // server of 1.34 or 1.35 (v1beta1 behind a feature gate) answers 404 for the mutating ones, read as not installed.
    if (over()) throw new OutOfTime();
    const stored = await Promise.all(
      AUTHOR_OBJECTS.map(({ resource }) => this.kube.get(ADMISSION_API, resource, '', AUTHOR_POLICY)),
    );
    const missing: string[] = [];
    const kinds: string[] = [];
    AUTHOR_OBJECTS.forEach(({ kind }, i) => {
      const o = stored[i];
      const fault = !o
        ? `no ${kind} ${AUTHOR_POLICY}`
        : kind.endsWith('Binding') && (o['spec'] as { policyName?: unknown } | undefined)?.policyName !== AUTHOR_POLICY
          ? `the ${kind} ${AUTHOR_POLICY} bound to another policy`
          : Number.isNaN(Date.parse(o.metadata.creationTimestamp ?? ''))
            ? `the ${kind} ${AUTHOR_POLICY} without a creationTimestamp`
            : undefined;
      if (fault) {
        missing.push(fault);
        kinds.push(kind);
      }
    });
    if (missing.length > 0) return { missing, kinds };
    const objects = stored as KubeObject[];
    // In place, and as shipped: a policy or binding narrowed (or otherwise changed) stamps or checks some tools only.
    const differences = authorPolicyDifferences(objects);
    if (differences.length > 0)
      return {
        differences,
        kinds: AUTHOR_OBJECTS.filter(({ what }) => differences.some((d) => d.startsWith(`${what} spec.`))).map(
          ({ kind }) => kind,
        ),
      };
    // Never changed since made: a generation other than 1 (or none, which no API server stores) is a change in place.
    const changed = AUTHOR_OBJECTS.map(({ kind }, i) => [kind, objects[i]!.metadata.generation] as const).filter(
      ([, generation]) => generation !== 1,
    );
    if (changed.length > 0)
      return {
        changed: changed.map(
          ([kind, generation]) =>
            `${kind} ${AUTHOR_POLICY} is ${typeof generation === 'number' ? `at generation ${generation}` : 'without a generation'}`,
        ),
        kinds: changed.map(([kind]) => kind),
      };
    const created = objects.map((o) => Date.parse(o.metadata.creationTimestamp!));
    const written = objects.map(lastWritten);
    return Math.max(...created, ...written.filter((w): w is number => typeof w === 'number'));
  }

  /**
   * The API server's answer whether `author` holds `right` in `namespace` (on the pod `name`, when given); `cached`:
   * 'use' a fresh remembered answer or ask, 'only' a remembered one (undefined without), or 'ask' again now.
   */
  private async allowed(
    author: Author,
    namespace: string,
    over: () => boolean,
    question: { right?: typeof AUTHOR_RIGHT | typeof NAMES_RIGHT; name?: string; cached?: 'use' | 'only' | 'ask' } = {},
  ): Promise<boolean | undefined> {
    const { right = AUTHOR_RIGHT, name, cached = 'use' } = question;
    // Remembered by a hash of the question: a stamp of many groups costs its answer no more memory than any other.
    const asked = JSON.stringify([
      author.user,
      author.uid,
      author.groups,
      author.extra ?? {},
      namespace,
      ...(right === AUTHOR_RIGHT ? [] : [right.verb, right.resource]),
      ...(name !== undefined ? [name] : []),
    ]);
    const key = answerKey(namespace, createHash('sha256').update(asked).digest('base64'));
    const answer = this.cache.answers.get(key);
    // 'ask': asked again now, whatever is remembered (the answer is remembered); 'only': what is remembered, if fresh.
    if (cached !== 'ask' && answer && this.cache.fresh(answer.at)) return answer.allowed;
    if (cached === 'only') return undefined;
    if (over()) throw new OutOfTime();
    const review = await this.kube.create!('authorization.k8s.io/v1', 'subjectaccessreviews', '', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: author.user,
        ...(author.uid ? { uid: author.uid } : {}),
        groups: author.groups,
        ...(author.extra && Object.keys(author.extra).length > 0 ? { extra: author.extra } : {}),
        // The pod by name, when the question is about one: an authorizer that decides per object (a webhook, RBAC's
        // resourceNames) answers for the pod the container goes into, not for "some pod of the namespace".
        resourceAttributes: { namespace, ...right, ...(name !== undefined ? { name } : {}) },
      },
    });
    const allowed = decision(review);
    // A no that is the authorizer's error, not its decision: never remembered. Whether the author may act is not
    // known (an error, retried); whether the status may name pods is no, for now (nothing named on doubt).
    if (allowed instanceof AuthorizerError) {
      if (right === AUTHOR_RIGHT) throw allowed;
      return false;
    }
    this.cache.remember(key, allowed);
    return allowed;
  }

  /**
   * Whether the tool, as the API server has it, may act in its namespace: its stamp is the policy's, and its author
   * may patch pods/ephemeralcontainers there. Errors of the API server are thrown (the caller reports them), and so
   * is OutOfTime when `over` says no call may start any more.
   */
  async verify(
    tool: KubeObject,
    over: () => boolean = () => false,
    pod?: string,
    perPod = false,
  ): Promise<AuthorVerdict> {
    const namespace = tool.metadata.namespace ?? 'default';
    const author = stampOf(tool);
    if (!author) return { allowed: false, reason: 'AuthorUnverified', message: unreadStamp(tool) };
    const since = await this.inPlaceSince(over);
    if (typeof since === 'object' && 'missing' in since)
      return {
        allowed: false,
        reason: 'AuthorUnverified',
        message: `the admission policy ${AUTHOR_POLICY} is not installed in full (${since.missing.join(', ')}; metaops ships a MutatingAdmissionPolicy that stamps each tool's author and a ValidatingAdmissionPolicy that refuses a stamp that is not its writer's, each with its binding, all named ${AUTHOR_POLICY}), so no author can be trusted: install manifests/admission/ (served as ${ADMISSION_API}: Kubernetes 1.36 or later; a 1.34 or 1.35 API server's v1beta1 policy is not read, docs/podbuggertool.md), then delete and create again the tools written before; nothing is injected`,
      };
    if (typeof since === 'object' && 'changed' in since)
      return {
        allowed: false,
        reason: 'AuthorUnverified',
        message: `the admission policy ${AUTHOR_POLICY} (or its binding) was changed in place since it was made (its ${since.changed.join(' and ')}, not 1): while it was otherwise, tools may have been written without the policy's stamp (or with a stamp rewritten after it), and nothing says when it changed, so no author can be trusted: delete ${remade(since.kinds)} ${AUTHOR_POLICY} and create them again from manifests/admission/ (a new apply, or helm upgrade, does not do: it changes them in place), then delete and create again the tools written before (docs/podbuggertool.md); nothing is injected`,
      };
    if (typeof since === 'object')
      return {
        allowed: false,
        reason: 'AuthorUnverified',
        message: `the admission policy ${AUTHOR_POLICY} (or its binding) is not as metaops ships it (${since.differences.join(', ')} differ${since.differences.length === 1 ? 's' : ''}), so it may not stamp (or check) every tool and no author can be trusted: delete ${remade(since.kinds)} ${AUTHOR_POLICY} and create them again from manifests/admission/, unchanged and not narrowed (an edit in place, or an apply over them, leaves them past generation 1, which trusts no stamp), then delete and create again the tools written before (docs/podbuggertool.md); nothing is injected`,
      };
    const untrusted = untrustedTool(tool, since);
    if (untrusted) return untrusted;
    if (pod === undefined) {
      if (await this.allowed(author, namespace, over)) return { allowed: true, author: author.user };
    } else if (perPod) {
      // The tool's status found its author allowed on some pods by name only (PER_POD): each pod is asked about by
      // name, and a refusal is that pod's, whatever the answer on the namespace as a whole.
      if (await this.allowed(author, namespace, over, { name: pod })) return { allowed: true, author: author.user };
      return {
        allowed: false,
        reason: 'AuthorNotAllowed',
        onPod: true,
        message: `its author ${author.user} may not patch pods/ephemeralcontainers of pod ${pod} in namespace ${namespace} (asked of the API server now, with ${groupsText(author.groups)} stamped when the tool was created)`,
      };
    } else if ((await this.allowed(author, namespace, over, { cached: 'only' })) !== false) {
      // Asked about the pod by name, unless a refusal on the namespace's pods was heard (by either hook) within
      // AUTHOR_CACHE_MS: an authorizer that decides per object answers for the pod the container goes into.
      if (await this.allowed(author, namespace, over, { name: pod })) return { allowed: true, author: author.user };
      // Refused on this pod: on this pod only (the author may patch others of the namespace), or on all of them
      // (asked again now, so a refusal of the author is not taken for one of the pod).
      if (await this.allowed(author, namespace, over, { cached: 'ask' }))
        return {
          allowed: false,
          reason: 'AuthorNotAllowed',
          onPod: true,
          message: `its author ${author.user} may not patch pods/ephemeralcontainers of pod ${pod} in namespace ${namespace} (asked of the API server now, with ${groupsText(author.groups)} stamped when the tool was created)`,
        };
    }
    return {
      allowed: false,
      reason: 'AuthorNotAllowed',
      message: `its author ${author.user} may not patch pods/ephemeralcontainers in namespace ${namespace} (asked of the API server now, with ${groupsText(author.groups)} stamped when the tool was created), and a tool does nothing its author could not do; nothing more is injected`,
    };
  }

  /**
   * Whether the tool's author may patch pods/ephemeralcontainers of the pod `pod` (one the tool selects), asked by
   * name now (an authorizer that decides per object: RBAC's resourceNames, a webhook; an answer remembered from
   * before a revocation is not taken), and remembered as the other answers are (the injector's next question about
   * that pod within AUTHOR_CACHE_MS is this answer). Asked only of a tool whose author verify refused on the
   * namespace as a whole; the caller bounds the questions (MAX_PROBED_PODS a sync).
   */
  async allowedOnPod(tool: KubeObject, pod: string, over: () => boolean = () => false): Promise<boolean> {
    const author = stampOf(tool);
    if (!author) return false;
    return (
      (await this.allowed(author, tool.metadata.namespace ?? 'default', over, { name: pod, cached: 'ask' })) === true
    );
  }

  /**
   * Whether the tool's author may list pods in its namespace (NAMES_RIGHT): its status names pods only then. Asked
   * only of a tool verify allowed; remembered as the other answers are.
   */
  async mayList(tool: KubeObject, over: () => boolean = () => false): Promise<boolean> {
    const author = stampOf(tool);
    return (
      author !== undefined &&
      (await this.allowed(author, tool.metadata.namespace ?? 'default', over, { right: NAMES_RIGHT })) === true
    );
  }
}

/**
 * The tool's author as the API server is to take its PATCH (METAOPS_DEBUG_ACT_AS_AUTHOR=true: impersonated), or why
 * they cannot be: no stamp the hook reads, or user information no HTTP header can carry exactly (a name with a
 * control character or white space at an end, more groups than MAX_IMPERSONATION_BYTES of headers). Such a tool acts
 * on no pod: never as the hook server instead.
 */
export function actingAuthor(tool: KubeObject): { author: Author } | { problem: string } {
  const author = stampOf(tool);
  if (!author) return { problem: unreadStamp(tool) };
  const made = impersonationHeaders(author);
  if ('problem' in made)
    return {
      problem: `the hook server adds containers as the tool's author (METAOPS_DEBUG_ACT_AS_AUTHOR=true), and its author ${author.user.slice(0, 64)} cannot be impersonated: ${made.problem}; nothing is injected`,
    };
  return { author };
}
