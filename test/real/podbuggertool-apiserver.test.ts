// PodBuggerTool against a real kube-apiserver (and etcd), built by e2e/build.sh, with RBAC: the injector's re-reads
// and ephemeral-container PATCH with its precondition, the count behind the tool's status, the RBAC of
// manifests/deploy/rbac.yaml (the hook server's client authenticated as the `metaops` service account through a
// token file), and the author model: the admission policy of manifests/admission/ stamping each tool with the user
// who wrote it, and a SubjectAccessReview for that user. Tenant A (alice) may write PodBuggerTools in tenant B's
// namespace but may not add ephemeral containers there; tenant B (bob) may in his.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import {
  AUTHOR_ANNOTATION,
  AUTHOR_CACHE_MS,
  AUTHOR_GRACE_MS,
  AuthorCache,
  AuthorCheck,
  parseStamp,
} from '../../hooks/podbuggertool/author.js';
import { podbuggertool, podbuggertoolInjector } from '../../hooks/podbuggertool/index.js';
import { WORK_BUDGET_MS } from '../../hooks/podbuggertool/inject.js';
import { DEFAULT_POLICY, FAILURES_ANNOTATION, type DebugPolicy } from '../../hooks/podbuggertool/match.js';
import { eventName, KubeEventRecorder } from '../../lib/events.js';
import { HttpKubeApi, KubeError, type KubeApi } from '../../lib/kube.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { waitFor } from '../e2e/cluster.js';
import { authorPolicyCreated, createToolWriter, pastAuthorGrace, pbtApiServer } from '../fixtures/pbt-apiserver.js';
import { FIXED_NOW, root } from '../fixtures/requests.js';

// Tenant A, tenant B, and a user whose name has every character the stamp escapes; RBAC, so that the service
// account has exactly what manifests/deploy/rbac.yaml grants.
const { api, kubectl, apply, as, getJson } = pbtApiServer(t, 'pbt-apiserver', [
  'alice-token,alice,uid-alice,team-a',
  'bob-token,bob,uid-bob,team-b',
  'odd-token,"o;dd,user%",uid-odd,g;1%',
  // Rights revoked: carol's by her own RoleBinding, dave's by his group's.
  'carol-token,carol,uid-carol,team-c',
  'dave-token,dave,uid-dave,team-d',
]);
const dir = api.dir;

t.before(async () => {
  kubectl(['apply', '-f', join(root, 'manifests', 'crds', 'podbuggertools.debug.metaops.dev.yaml')]);
  for (const ns of ['metaops', 'dbg', 'team-a', 'team-b'])
    apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'metaops', namespace: 'metaops' } });
  apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nobody', namespace: 'metaops' } });
  kubectl(['apply', '-f', join(root, 'manifests', 'deploy', 'rbac.yaml')]);
  kubectl(['apply', '-f', join(root, 'manifests', 'admission', 'podbuggertool-author.yaml')]);
  // The namespaces the tests debug in are opted in, as a cluster admin would (manifests/deploy/rbac.yaml).
  for (const ns of ['dbg', 'team-a', 'team-b']) optIn(ns);
  kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/podbuggertools.debug.metaops.dev']);
  // What the tenants may do: write PodBuggerTools in both namespaces (a shared role, too broad), and add
  // ephemeral containers only in their own.
  createToolWriter(kubectl);
  kubectl(['create', 'clusterrole', 'debugger', '--verb=patch', '--resource=pods/ephemeralcontainers']);
  for (const [user, ns, role] of [
    ['alice', 'team-a', 'tool-writer'],
    ['alice', 'team-b', 'tool-writer'],
    ['alice', 'team-a', 'debugger'],
    ['bob', 'team-b', 'tool-writer'],
    ['bob', 'team-b', 'debugger'],
    ['o;dd,user%', 'team-a', 'tool-writer'],
    ['o;dd,user%', 'team-a', 'debugger'],
    ['carol', 'dbg', 'tool-writer'],
    ['carol', 'dbg', 'debugger'],
    ['dave', 'dbg', 'tool-writer'],
  ] as const)
    kubectl([
      'create',
      'rolebinding',
      `${role}-${user.replace(/[^a-z]/g, '')}`,
      '-n',
      ns,
      `--clusterrole=${role}`,
      `--user=${user}`,
    ]);
  // Dave may debug dbg as a member of team-d (a RoleBinding of the group), not by name.
  kubectl(['create', 'rolebinding', 'debugger-team-d', '-n', 'dbg', '--clusterrole=debugger', '--group=team-d']);
  // The API server serves the new kind a moment after the CRD is Established, and the policy applies a moment
  // after it is created: a tool written by then carries a stamp.
  await waitFor(
    'the author policy in force',
    async () => {
      kubectl(['apply', '-f', '-'], JSON.stringify(tool('probe', { label: 'x=y', image: 'busybox' })));
      const stamped = getJson(['pbt', 'probe', '-n', 'dbg']).metadata.annotations?.[AUTHOR_ANNOTATION];
      kubectl(['delete', 'pbt', 'probe', '-n', 'dbg']);
      return typeof stamped === 'string' && stamped.startsWith('v1;');
    },
    60_000,
  );
  // A tool is trusted only past the policy's grace after its creation (author.ts AUTHOR_GRACE_MS).
  await pastAuthorGrace(authorPolicyCreated(getJson), 1500);
  for (const sa of ['metaops', 'nobody'])
    writeFileSync(join(dir, `${sa}.token`), kubectl(['create', 'token', sa, '-n', 'metaops']));
});

/** The hook server's client, as the service account `sa` through its token file. */
const client = (sa: string) =>
  new HttpKubeApi(5000, {
    server: `https://127.0.0.1:${api.port()}`,
    insecure: true,
    tokenFile: join(dir, `${sa}.token`),
  });
const pod = (name: string, labels: Record<string, string>, ns = 'dbg') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
});
const tool = (name: string, spec: Record<string, unknown>, ns = 'dbg') => ({
  apiVersion: 'debug.metaops.dev/v1alpha1',
  kind: 'PodBuggerTool',
  metadata: { name, namespace: ns },
  spec,
});
/** A namespace opted in by a cluster admin: the hook server may read, list and debug its pods (manifests/deploy/rbac.yaml). */
function optIn(ns: string): void {
  kubectl([
    'create',
    'rolebinding',
    'metaops-podbuggertool',
    '-n',
    ns,
    '--clusterrole=metaops-podbuggertool',
    '--serviceaccount=metaops:metaops',
  ]);
}

const ephemeral = (ns: string, name: string) =>
  ((getJson(['pod', name, '-n', ns])['spec'] as any).ephemeralContainers ?? []) as any[];

/** The injector and the tool's status as Metacontroller calls them, with the hook server's client as `sa`. */
const ANY: DebugPolicy = { ...DEFAULT_POLICY, allowlist: ['*'] };
function hooksAs(sa: string, policy: DebugPolicy = ANY) {
  const kube: KubeApi = client(sa);
  const cache = new AuthorCache();
  const options = (log?: (msg: string) => void) => ({
    now: new Date(),
    services: { kube: () => kube },
    settings: { policy, workBudgetMs: WORK_BUDGET_MS },
    clients: { authors: (k: KubeApi) => new AuthorCheck(k, cache) },
    ...(log
      ? {
          log: {
            warn: (_o: unknown, msg: string) => log(msg),
            info() {},
            debug() {},
            error() {},
            child() {
              return this;
            },
          } as never,
        }
      : {}),
  });
  return {
    kube,
    /** The injector asked about a pod: the pod, and the tools of its namespace, as the API server has them now. */
    inject: async (ns: string, name: string, log?: (msg: string) => void, tools?: KubeObject[]) => {
      const related = tools ?? (JSON.parse(kubectl(['get', 'pbt', '-n', ns, '-o', 'json'])).items as KubeObject[]);
      const request = {
        controller: {},
        object: getJson(['pod', name, '-n', ns]),
        attachments: {},
        related: {
          'PodBuggerTool.debug.metaops.dev/v1alpha1': Object.fromEntries(related.map((x) => [x.metadata.name!, x])),
        },
      };
      const res = await runHook(podbuggertoolInjector, 'sync', request as never, options(log));
      // Metacontroller writes the annotations it answers.
      for (const [k, v] of Object.entries(res.annotations ?? {}))
        kubectl(['annotate', '--overwrite', 'pod', name, '-n', ns, v === null ? `${k}-` : `${k}=${v}`]);
      return res;
    },
    status: (ns: string, name: string) =>
      runHook(
        podbuggertool,
        'sync',
        { controller: {}, parent: getJson(['pbt', name, '-n', ns]), children: {} } as never,
        options(),
      ),
  };
}
const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

t.test('the RBAC grants the hook server what it uses, and no more', async (t) => {
  const can = (verb: string, what: string, ns: string | undefined = 'dbg') => {
    // `pods/exec` is a subresource; `configmaps/<name>` a name.
    const [resource, part] = what.split('/');
    const subresource = ['ephemeralcontainers', 'exec', 'attach', 'status'].includes(part ?? '') ? part : undefined;
    try {
      return kubectl([
        'auth',
        'can-i',
        verb,
        subresource ? resource! : what,
        ...(subresource ? [`--subresource=${subresource}`] : []),
        ...(ns ? ['-n', ns] : []),
        '--as',
        'system:serviceaccount:metaops:metaops',
      ]).trim();
    } catch (err) {
      return String((err as { stdout?: Buffer }).stdout ?? '').trim();
    }
  };
  t.equal(can('get', 'pods'), 'yes', 're-read before a PATCH');
  t.equal(can('list', 'pods'), 'yes', "the count behind a tool's status");
  t.equal(can('patch', 'pods/ephemeralcontainers'), 'yes');
  // Only where an admin bound metaops-podbuggertool: not in a namespace that did not opt in.
  t.equal(can('get', 'pods', 'metaops'), 'no', 'no pods get in a namespace not opted in');
  t.equal(can('patch', 'pods/ephemeralcontainers', 'metaops'), 'no', 'no ephemeral containers there');
  t.equal(can('create', 'events.events.k8s.io', 'metaops'), 'yes', 'Events everywhere');
  t.equal(can('get', 'podbuggertools.debug.metaops.dev'), 'yes');
  // What Metacontroller sends with each pod: the tools of its namespace, listed where pods are counted, only there.
  t.equal(can('list', 'podbuggertools.debug.metaops.dev'), 'yes', "the namespace's tools, measured beside a pod");
  t.equal(can('list', 'podbuggertools.debug.metaops.dev', 'metaops'), 'no', 'not in a namespace not opted in');
  t.equal(can('create', 'subjectaccessreviews.authorization.k8s.io', undefined), 'yes', "the author's check");
  t.equal(
    can('get', 'mutatingadmissionpolicies.admissionregistration.k8s.io/metaops-podbuggertool-author', undefined),
    'yes',
  );
  t.equal(
    can('get', 'mutatingadmissionpolicybindings.admissionregistration.k8s.io/metaops-podbuggertool-author', undefined),
    'yes',
  );
  t.equal(
    can('get', 'validatingadmissionpolicies.admissionregistration.k8s.io/metaops-podbuggertool-author', undefined),
    'yes',
  );
  t.equal(
    can(
      'get',
      'validatingadmissionpolicybindings.admissionregistration.k8s.io/metaops-podbuggertool-author',
      undefined,
    ),
    'yes',
  );
  t.equal(can('create', 'events.events.k8s.io'), 'yes');
  t.equal(can('patch', 'events.events.k8s.io'), 'yes', 'a repeated event updates its series');
  for (const [verb, what, ns] of [
    ['watch', 'pods'],
    ['patch', 'pods'],
    ['update', 'pods'],
    ['delete', 'pods'],
    ['create', 'pods/exec'],
    ['create', 'pods/attach'],
    ['patch', 'pods/status'],
    ['update', 'podbuggertools.debug.metaops.dev'],
    ['get', 'secrets'],
    ['get', 'configmaps'],
    ['get', 'configmaps', 'metaops'],
    ['get', 'configmaps/other', 'metaops'],
    ['get', 'configmaps/metaops-podbuggertool-author', 'metaops'],
    ['update', 'configmaps/metaops-podbuggertool-author', 'metaops'],
    ['get', 'mutatingadmissionpolicies.admissionregistration.k8s.io/other', undefined],
    ['update', 'mutatingadmissionpolicies.admissionregistration.k8s.io/metaops-podbuggertool-author', undefined],
    ['delete', 'mutatingadmissionpolicybindings.admissionregistration.k8s.io/metaops-podbuggertool-author', undefined],
    ['get', 'validatingadmissionpolicies.admissionregistration.k8s.io/other', undefined],
    ['update', 'validatingadmissionpolicies.admissionregistration.k8s.io/metaops-podbuggertool-author', undefined],
    [
      'delete',
      'validatingadmissionpolicybindings.admissionregistration.k8s.io/metaops-podbuggertool-author',
      undefined,
    ],
    ['create', 'events'],
    ['patch', 'events'],
    ['update', 'events.events.k8s.io'],
    ['delete', 'events.events.k8s.io'],
    ['get', 'events.events.k8s.io'],
  ] as Array<[string, string, string | undefined]>) {
    t.equal(
      can(verb, what, ns === undefined && what.includes('admission') ? undefined : (ns ?? 'dbg')),
      'no',
      `no ${verb} ${what}`,
    );
  }
});

t.test('the author stamp is the API server’s: whoever writes the spec, never what a client writes', async (t) => {
  const A = (ns: string, name: string) => getJson(['pbt', name, '-n', ns]).metadata.annotations?.[AUTHOR_ANNOTATION];
  const forged = { ...tool('stamped', { label: 'app=web', image: 'busybox' }, 'team-b') } as any;
  forged.metadata.annotations = { [AUTHOR_ANNOTATION]: 'v1;admin;admin;system:masters' };
  as('alice-token', ['apply', '-f', '-'], JSON.stringify(forged));
  t.same(
    parseStamp(A('team-b', 'stamped')),
    { user: 'alice', uid: 'uid-alice', groups: ['team-a', 'system:authenticated'] },
    'created by alice, whatever she wrote',
  );
  const first = A('team-b', 'stamped');
  as('bob-token', ['label', 'pbt', 'stamped', '-n', 'team-b', 'reviewed=yes']);
  t.equal(A('team-b', 'stamped'), first, 'a label by bob: still alice’s');
  as('bob-token', [
    'annotate',
    '--overwrite',
    'pbt',
    'stamped',
    '-n',
    'team-b',
    `${AUTHOR_ANNOTATION}=v1;bob;uid-bob;team-b`,
  ]);
  t.equal(A('team-b', 'stamped'), first, 'the stamp rewritten by bob: put back');
  as('bob-token', ['annotate', 'pbt', 'stamped', '-n', 'team-b', `${AUTHOR_ANNOTATION}-`]);
  t.equal(A('team-b', 'stamped'), first, 'removed by bob: put back');
  // The spec is fixed at creation: bob's change is refused, and the tool stays alice's, with alice's spec.
  t.throws(
    () =>
      as('bob-token', [
        'patch',
        'pbt',
        'stamped',
        '-n',
        'team-b',
        '--type=merge',
        '-p',
        '{"spec":{"image":"busybox:1.37"}}',
      ]),
    /spec cannot be changed once it is created/,
    'the spec changed by bob: refused, saying why',
  );
  t.equal(A('team-b', 'stamped'), first, 'still alice’s');
  t.match(getJson(['pbt', 'stamped', '-n', 'team-b'])['spec'], { image: 'busybox' }, 'with her spec');
  // Names with the characters the stamp escapes come back whole.
  as('odd-token', ['apply', '-f', '-'], JSON.stringify(tool('odd', { label: 'app=web', image: 'busybox' }, 'team-a')));
  t.same(parseStamp(A('team-a', 'odd')), {
    user: 'o;dd,user%',
    uid: 'uid-odd',
    groups: ['g;1%', 'system:authenticated'],
  });
  kubectl(['delete', 'pbt', 'stamped', '-n', 'team-b']);
  // The authenticator's extra information is stamped too (impersonated here, as an authenticating proxy or an OIDC
  // token's claims would give it), escaped as the rest, and sent in the author's review.
  kubectl(
    [
      '--as=alice',
      '--as-uid=uid-alice',
      '--as-group=team-a',
      '--as-user-extra=scopes=a=1',
      '--as-user-extra=scopes=b,c',
      '--as-user-extra=session=x;y%',
      'create',
      '-f',
      '-',
    ],
    JSON.stringify(tool('extra', { label: 'app=web', image: 'busybox' }, 'team-a')),
  );
  t.same(parseStamp(A('team-a', 'extra')), {
    user: 'alice',
    uid: 'uid-alice',
    groups: ['team-a', 'system:authenticated'],
    extra: { scopes: ['a=1', 'b,c'], session: ['x;y%'] },
  });
  kubectl(['delete', 'pbt', 'extra', '-n', 'team-a']);
});

t.test("tenant A's tool in tenant B's namespace injects nothing; B's own, and A's in her namespace, do", async (t) => {
  apply(pod('b-web', { app: 'web' }, 'team-b'));
  apply(pod('a-web', { app: 'web' }, 'team-a'));
  as(
    'alice-token',
    ['apply', '-f', '-'],
    JSON.stringify(
      tool('sneak', { label: 'app=web', image: 'busybox', command: ['sh', '-c', 'cat /proc/1/environ'] }, 'team-b'),
    ),
  );
  const hooks = hooksAs('metaops');
  // Nothing added; the injector may ask to be called again later (a refusal is asked about again, backing off, until
  // the tool's status says it).
  for (let i = 0; i < 2; i++) t.same((await hooks.inject('team-b', 'b-web')).attachments, []);
  t.same(ephemeral('team-b', 'b-web'), [], "alice's command runs in none of bob's pods");
  t.match(ready(await hooks.status('team-b', 'sneak')), {
    status: 'False',
    reason: 'AuthorNotAllowed',
    message: /alice may not patch pods\/ephemeralcontainers in namespace team-b/,
  });
  // Bob's own tool, and alice's in her own namespace: injected.
  as('bob-token', ['apply', '-f', '-'], JSON.stringify(tool('mine', { label: 'app=web', image: 'busybox' }, 'team-b')));
  as(
    'alice-token',
    ['apply', '-f', '-'],
    JSON.stringify(tool('hers', { label: 'app=web', image: 'busybox' }, 'team-a')),
  );
  await hooks.inject('team-b', 'b-web');
  await hooks.inject('team-a', 'a-web');
  t.same(
    ephemeral('team-b', 'b-web').map((c) => c.name),
    ['debug-mine'],
  );
  t.same(
    ephemeral('team-a', 'a-web').map((c) => c.name),
    ['debug-hers'],
  );
  t.match(ready(await hooks.status('team-b', 'mine')), { status: 'True', reason: 'Injected' });
  // Bob may not change alice's tool (its spec is fixed at creation); he deletes it and creates his own under that
  // name (he may write tools in his namespace): it is his, and it acts.
  t.throws(
    () =>
      as('bob-token', ['patch', 'pbt', 'sneak', '-n', 'team-b', '--type=merge', '-p', '{"spec":{"command":["sh"]}}']),
    /spec cannot be changed once it is created/,
  );
  as('bob-token', ['delete', 'pbt', 'sneak', '-n', 'team-b']);
  as(
    'bob-token',
    ['apply', '-f', '-'],
    JSON.stringify(tool('sneak', { label: 'app=web', image: 'busybox', command: ['sh'] }, 'team-b')),
  );
  await hooks.inject('team-b', 'b-web');
  t.same(
    ephemeral('team-b', 'b-web')
      .map((c) => c.name)
      .sort(),
    ['debug-mine', 'debug-sneak'],
  );
});

t.test(
  'a revoked RoleBinding, of the user or of a stamped group: no container in pods made past AUTHOR_CACHE_MS, Ready=False says why, those added before stay, and the refused status counts and names no pod',
  async (t) => {
    as('carol-token', ['apply', '-f', '-'], JSON.stringify(tool('by-user', { label: 'team=cd', image: 'busybox' })));
    as('dave-token', ['apply', '-f', '-'], JSON.stringify(tool('by-group', { label: 'team=cd', image: 'busybox' })));
    t.match(parseStamp(getJson(['pbt', 'by-group', '-n', 'dbg']).metadata.annotations?.[AUTHOR_ANNOTATION]), {
      user: 'dave',
      groups: ['team-d', 'system:authenticated'],
    });
    apply(pod('cd-1', { team: 'cd' }));
    const hooks = hooksAs('metaops');
    for (let i = 0; i < 2; i++) await hooks.inject('dbg', 'cd-1');
    t.same(
      ephemeral('dbg', 'cd-1')
        .map((c) => c.name)
        .sort(),
      ['debug-by-group', 'debug-by-user'],
      'both allowed, dave through his group',
    );
    kubectl(['delete', 'rolebinding', 'debugger-carol', 'debugger-team-d', '-n', 'dbg']);
    const revoked = Date.now();
    // The API server's authorizer follows the deletion (its informer): the reviews say no.
    await waitFor(
      'the revocations in force',
      async () =>
        await Promise.all(
          ['carol', 'dave'].map((user) =>
            new AuthorCheck(client('metaops'), new AuthorCache()).verify(
              getJson(['pbt', user === 'carol' ? 'by-user' : 'by-group', '-n', 'dbg']),
            ),
          ),
        ).then((v) => v.every((x) => !x.allowed)),
      30_000,
    );
    // Past AUTHOR_CACHE_MS after the revocation, the server that injected before (its answers remembered) adds
    // nothing to a new pod.
    await new Promise((r) => setTimeout(r, Math.max(0, revoked + AUTHOR_CACHE_MS + 200 - Date.now())));
    apply(pod('cd-2', { team: 'cd' }));
    for (let i = 0; i < 2; i++) t.match(await hooks.inject('dbg', 'cd-2'), { attachments: [], annotations: undefined });
    t.same(ephemeral('dbg', 'cd-2'), [], 'nothing added to a pod made after the revocation');
    t.equal(ephemeral('dbg', 'cd-1').length, 2, 'the containers added before stay');
    for (const [name, who] of [
      [
        'by-user',
        /its author carol may not patch pods\/ephemeralcontainers in namespace dbg \(asked of the API server now, with the groups team-c, system:authenticated/,
      ],
      [
        'by-group',
        /its author dave may not patch pods\/ephemeralcontainers in namespace dbg \(asked of the API server now, with the groups team-d, system:authenticated/,
      ],
    ] as const) {
      const res = await hooks.status('dbg', name);
      t.match(ready(res), { status: 'False', reason: 'AuthorNotAllowed', message: who }, name);
      t.match(
        ready(res).message,
        new RegExp(
          `Any debug-${name} added before stays .*while the tool is refused its status counts and names no pod`,
        ),
        `${name}: the container added before is said to stay`,
      );
      for (const field of ['matched', 'injected', 'pending', 'failed', 'failures', 'skips'])
        t.notOk(field in res.status!, `${name}: no ${field} in a refused status (no pod counted or named)`);
      kubectl([
        'patch',
        'pbt',
        name,
        '-n',
        'dbg',
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: res.status }),
      ]);
    }
    // Their status written (as Metacontroller does): a pod they select costs no call and asks no resync.
    apply(pod('cd-3', { team: 'cd' }));
    t.same(await hooks.inject('dbg', 'cd-3'), { attachments: [] });
    t.same(ephemeral('dbg', 'cd-3'), []);
  },
);

t.test(
  'the policy installed again: stamps are made again at once, tools from before are no longer trusted',
  async (t) => {
    const admission = join(root, 'manifests', 'admission', 'podbuggertool-author.yaml');
    kubectl(['delete', '-f', admission]);
    kubectl(['apply', '-f', admission]);
    const check = () => new AuthorCheck(client('metaops'), new AuthorCache());
    // A policy with a parameter (an earlier design) was never applied again by this API server once made again.
    await waitFor(
      'the policy made again in force',
      async () => {
        as(
          'alice-token',
          ['apply', '-f', '-'],
          JSON.stringify(tool('again', { label: 'x=y', image: 'busybox' }, 'team-a')),
        );
        const stamped = getJson(['pbt', 'again', '-n', 'team-a']).metadata.annotations?.[AUTHOR_ANNOTATION];
        if (typeof stamped === 'string' && stamped.startsWith('v1;alice;')) return true;
        kubectl(['delete', 'pbt', 'again', '-n', 'team-a']);
        return false;
      },
      60_000,
    );
    t.match(await check().verify(getJson(['pbt', 'hers', '-n', 'team-a'])), {
      allowed: false,
      reason: 'AuthorUnverified',
      message: /was created before the admission policy/,
    });
    t.match(
      await check().verify(getJson(['pbt', 'again', '-n', 'team-a'])),
      { allowed: false, reason: 'AuthorUnverified' },
      'within the grace',
    );
    await new Promise((r) => setTimeout(r, AUTHOR_GRACE_MS + 1500));
    kubectl(['delete', 'pbt', 'again', '-n', 'team-a']);
    as(
      'alice-token',
      ['apply', '-f', '-'],
      JSON.stringify(tool('again', { label: 'x=y', image: 'busybox' }, 'team-a')),
    );
    t.same(await check().verify(getJson(['pbt', 'again', '-n', 'team-a'])), { allowed: true, author: 'alice' });
    kubectl(['delete', 'pbt', 'again', '-n', 'team-a']);
  },
);

t.test('injection on a real API server: the tool and the pod it has, once, with a precondition', async (t) => {
  apply(pod('web-1', { app: 'web' }));
  apply(pod('db-1', { app: 'db' }));
  kubectl(['apply', '-f', '-'], JSON.stringify(tool('a', { label: 'app=web', image: 'busybox:1.36' })));
  const hooks = hooksAs('metaops', { ...ANY, profiles: ['baseline', 'sysadmin'] });
  const real = getJson(['pbt', 'a', '-n', 'dbg']);
  // The request lies about the tool (another image, a privileged profile, a command).
  const lie = {
    ...real,
    spec: {
      label: 'app=web',
      image: 'evil.example/rootkit',
      securityProfile: 'sysadmin',
      command: ['sh', '-c', 'pwn'],
    },
  };
  const stale = getJson(['pod', 'web-1', '-n', 'dbg']);
  t.same(await hooks.inject('dbg', 'web-1', undefined, [lie]), { attachments: [] });
  const list = ephemeral('dbg', 'web-1');
  t.equal(list.length, 1);
  t.match(list[0], { name: 'debug-a', image: 'docker.io/library/busybox:1.36' });
  t.notOk(list[0].securityContext, "the API server's profile, not the request's");
  t.notOk(list[0].command, "the request's command was not used");
  t.same(ephemeral('dbg', 'db-1'), [], 'a pod the tool does not select is not touched');
  t.same(await hooks.inject('dbg', 'db-1'), { attachments: [] });
  // A stale request again: the re-read sees the container, nothing is added.
  const request = {
    controller: {},
    object: stale,
    attachments: {},
    related: { 'PodBuggerTool.debug.metaops.dev/v1alpha1': { a: real } },
  };
  const again = await runHook(podbuggertoolInjector, 'sync', request as never, {
    services: { kube: () => hooks.kube },
    settings: { policy: ANY, workBudgetMs: WORK_BUDGET_MS },
  });
  t.same(again, { attachments: [] });
  t.equal(ephemeral('dbg', 'web-1').length, 1);
  // The precondition is enforced by the API server: a stale resourceVersion or another uid is refused.
  const conflict = await hooks.kube
    .addEphemeralContainers('dbg', 'web-1', [{ name: 'debug-x', image: 'busybox' }], {
      resourceVersion: stale.metadata.resourceVersion!,
    })
    .catch((e: unknown) => e);
  t.match(conflict, { status: 409, reason: 'Conflict' });
  const current = getJson(['pod', 'web-1', '-n', 'dbg']);
  const otherUid = await hooks.kube
    .addEphemeralContainers('dbg', 'web-1', [{ name: 'debug-x', image: 'busybox' }], {
      uid: '00000000-0000-0000-0000-000000000000',
      resourceVersion: current.metadata.resourceVersion!,
    })
    .catch((e: unknown) => e);
  t.ok(
    otherUid instanceof KubeError && otherUid.status >= 400,
    `another uid is refused (${(otherUid as Error).message})`,
  );
  t.equal(ephemeral('dbg', 'web-1').length, 1);
});

t.test('the count on a real API server: pages of the selected pods, every state', async (t) => {
  kubectl(['create', 'namespace', 'many']);
  optIn('many');
  const items = Array.from({ length: 60 }, (_, i) =>
    pod(`p${String(i).padStart(2, '0')}`, { app: i < 50 ? 'web' : 'db' }, 'many'),
  );
  kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  kubectl(['apply', '-f', '-'], JSON.stringify(tool('count', { label: 'app=web', image: 'busybox' }, 'many')));
  const hooks = hooksAs('metaops');
  const before = await hooks.status('many', 'count');
  t.match(before.status, { matched: 50, injected: 0, pending: 50 });
  t.match(ready(before), { reason: 'Injecting', message: '0 of 50 matching pods carry debug-count; 50 pending' });
  for (const p of items.slice(0, 20)) await hooks.inject('many', p.metadata.name);
  kubectl([
    'patch',
    'pod',
    'p30',
    '-n',
    'many',
    '--subresource=status',
    '--type=merge',
    '-p',
    '{"status":{"phase":"Succeeded"}}',
  ]);
  const during = await hooks.status('many', 'count');
  t.match(during.status, {
    matched: 50,
    injected: 20,
    pending: 29,
    skipped: 1,
    skips: [{ pod: 'p30', reason: 'PodCompleted' }],
  });
  // A page of one pod at a time gives the same counts (the continue token of a real server).
  const { countPods } = await import('../../hooks/podbuggertool/sync.js');
  const listed: number[] = [];
  const tools: number[] = [];
  const paged: KubeApi = {
    ...hooks.kube,
    get: hooks.kube.get.bind(hooks.kube),
    addEphemeralContainers: hooks.kube.addEphemeralContainers.bind(hooks.kube),
    list: (v, r, ns, o) =>
      hooks.kube.list!(v, r, ns, { ...o, limit: 7 }).then(
        (page) => ((r === 'pods' ? listed : tools).push(page.items.length), page),
      ),
  };
  const counted = await countPods(
    paged,
    getJson(['pbt', 'count', '-n', 'many']) as ParentObject,
    { label: 'app=web', image: 'busybox', securityProfile: 'baseline' } as never,
    () => false,
  );
  t.match(counted, { complete: true, counts: { matched: 50, injected: 20, pending: 29, skipped: 1 } });
  t.same(listed, [7, 7, 7, 7, 7, 7, 7, 1], 'eight pages of the 50 selected pods');
  // Pods are pending: the tools of the namespace, which Metacontroller sends with each, listed once to measure them
  // (the hook server's own rights: list podbuggertools where it counts pods).
  t.same(tools, [1], "the namespace's one tool, listed once");
});

t.test(
  'a PATCH the API server refuses: recorded on the pod, an event on the tool, the reason in its status',
  async (t) => {
    // The namespace's Pod Security level is the administrator's: `restricted` refuses a container without its
    // security context, whatever the hook server's own rights.
    kubectl(['create', 'namespace', 'strict']);
    optIn('strict');
    kubectl(['label', 'namespace', 'strict', 'pod-security.kubernetes.io/enforce=restricted']);
    const restrictedPod = {
      ...pod('web-3', { app: 'web' }, 'strict'),
      spec: {
        securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [
          {
            name: 'app',
            image: 'nginx:1.27',
            securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          },
        ],
      },
    };
    apply(restrictedPod);
    kubectl(['apply', '-f', '-'], JSON.stringify(tool('loose', { label: 'app=web', image: 'busybox:1.36' }, 'strict')));
    const lines: string[] = [];
    const hooks = hooksAs('metaops');
    const res = await hooks.inject('strict', 'web-3', (msg) => lines.push(msg));
    t.same(Object.keys(res).sort(), ['annotations', 'attachments', 'resyncAfterSeconds']);
    t.match(res, {
      attachments: [],
      annotations: { [FAILURES_ANNOTATION]: /^\{"debug-loose":"Forbidden;n=1;at=[0-9]+;k=[0-9a-f]{8}"\}$/ },
      resyncAfterSeconds: 30,
    });
    t.same(lines, ['PodBuggerTool strict/loose: could not add debug-loose to pod strict/web-3: Forbidden']);
    t.same(ephemeral('strict', 'web-3'), []);
    const events = JSON.parse(kubectl(['get', 'events.events.k8s.io', '-n', 'strict', '-o', 'json'])).items as any[];
    t.match(
      events.filter((e) => e.regarding?.name === 'loose'),
      [
        {
          reportingController: 'metaops',
          reason: 'InjectionFailed',
          type: 'Warning',
          action: 'AddEphemeralContainer',
          note: /^could not add debug-loose to pod strict\/web-3 \(the first of these ten minutes\): Forbidden; one Event per reason/,
          regarding: {
            kind: 'PodBuggerTool',
            name: 'loose',
            uid: getJson(['pbt', 'loose', '-n', 'strict']).metadata.uid,
          },
          related: { kind: 'Pod', name: 'web-3' },
        },
      ],
    );
    const status = await hooks.status('strict', 'loose');
    t.match(status.status, { matched: 1, failed: 1, failures: [{ pod: 'web-3', reason: 'Forbidden' }] });
    t.match(ready(status), { reason: 'InjectionFailed', message: /web-3 \(Forbidden\)/ });
    // The restricted profile, with a non-root user (the tool created again: its spec is fixed at creation): admitted.
    kubectl(['delete', 'pbt', 'loose', '-n', 'strict']);
    kubectl(
      ['apply', '-f', '-'],
      JSON.stringify(
        tool(
          'loose',
          { label: 'app=web', image: 'busybox:1.36', securityProfile: 'restricted', runAsUser: 65534 },
          'strict',
        ),
      ),
    );
    t.same(await hooks.inject('strict', 'web-3'), { attachments: [], annotations: { [FAILURES_ANNOTATION]: null } });
    t.match(ephemeral('strict', 'web-3'), [
      { name: 'debug-loose', securityContext: { runAsNonRoot: true, runAsUser: 65534 } },
    ]);
    // A client without the rights (not the manifest's service account): Forbidden, nothing added.
    apply(pod('web-4', { app: 'web' }));
    const denied = await hooksAs('nobody').inject('dbg', 'web-4');
    t.match(denied, {
      annotations: { [FAILURES_ANNOTATION]: /^\{"debug-a":"Forbidden;n=1;at=[0-9]+;k=[0-9a-f]{8}"\}$/ },
    });
    t.same(ephemeral('dbg', 'web-4'), []);
  },
);

t.test(
  'events on a real API server, as the service account: one event, then its series (create and patch only)',
  async (t) => {
    const recorder = new KubeEventRecorder(() => client('metaops'));
    const warnings: string[] = [];
    const log = { info: () => undefined, warn: (_o: Record<string, unknown>, msg: string) => warnings.push(msg) };
    const parent = getJson(['pbt', 'a', '-n', 'dbg']) as ParentObject;
    const spec = {
      type: 'Warning' as const,
      reason: 'EtcdCallFailed',
      action: 'Reconcile',
      note: 'Synced: add e-1 failed: etcd did not answer in time',
      subject: 'Synced',
    };
    for (let i = 0; i < 3; i++) await recorder.record(parent, [spec], new Date(FIXED_NOW.getTime() + i * 1000), log);
    t.same(
      warnings.filter((w) => /could not record/.test(w)),
      [],
      'every write allowed',
    );
    const name = eventName(parent, spec, FIXED_NOW);
    const event = JSON.parse(kubectl(['get', 'events.events.k8s.io', name, '-n', 'dbg', '-o', 'json']));
    t.match(event, {
      reason: 'EtcdCallFailed',
      type: 'Warning',
      reportingController: 'metaops',
      regarding: { kind: 'PodBuggerTool', name: 'a', uid: parent.metadata.uid },
      series: { count: 3 },
    });
    t.match(event.series.lastObservedTime, /^2026-01-02T03:04:07/);
    // kubectl describe shows it (the core/v1 view of the same event).
    t.match(
      kubectl(['describe', 'pbt', 'a', '-n', 'dbg']),
      /Warning\s+EtcdCallFailed\s+.*metaops.*Synced: add e-1 failed/,
    );
    // Without the rights: logged, nothing thrown.
    const denied: string[] = [];
    await new KubeEventRecorder(() => client('nobody')).record(parent, [{ ...spec, subject: 'other' }], FIXED_NOW, {
      info: () => undefined,
      warn: (_o, msg) => denied.push(msg),
    });
    t.match(denied.join('\n'), /could not record the event EtcdCallFailed: Forbidden/);
  },
);
