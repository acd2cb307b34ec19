// A PodBuggerTool acts only as its author could (issue 29, item 5): not only as RBAC answers for the author, but as
// the API server's admission would answer the author's own PATCH. A cluster administrator's ValidatingAdmissionPolicy
// that decides on who adds an ephemeral container (here: tenants' debug containers must run as non-root) refuses
// the tenant's own `kubectl debug`; the hook server's PATCH for the tenant's tool passes the same admission as the
// `metaops` service account, so the tool must not add what its author could not. With METAOPS_DEBUG_ACT_AS_AUTHOR=true
// the PATCH impersonates the stamped author, and admission answers as for the author's own; with it off (the
// default) the PATCH is the service account's, as docs/podbuggertool.md says ("Who may debug").
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import t from 'tap';
import { AUTHOR_ANNOTATION, AuthorCache, AuthorCheck } from '../../hooks/podbuggertool/author.js';
import { podbuggertoolInjector } from '../../hooks/podbuggertool/index.js';
import { WORK_BUDGET_MS } from '../../hooks/podbuggertool/inject.js';
import { DEFAULT_POLICY, type DebugPolicy } from '../../hooks/podbuggertool/match.js';
import { HttpKubeApi, type KubeApi } from '../../lib/kube.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { waitFor } from '../e2e/cluster.js';
import { authorPolicyCreated, createToolWriter, pastAuthorGrace, pbtApiServer } from '../fixtures/pbt-apiserver.js';
import { root } from '../fixtures/requests.js';

const { api, kubectl, apply, as, getJson } = pbtApiServer(t, 'pbt-author-admission', [
  'alice-token,alice,uid-alice,tenants',
]);
const NS = 'team-a';

t.before(async () => {
  kubectl(['apply', '-f', join(root, 'manifests', 'crds', 'podbuggertools.debug.metaops.dev.yaml')]);
  for (const ns of ['metaops', NS]) apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'metaops', namespace: 'metaops' } });
  kubectl(['apply', '-f', join(root, 'manifests', 'deploy', 'rbac.yaml')]);
  kubectl(['apply', '-f', join(root, 'manifests', 'admission', 'podbuggertool-author.yaml')]);
  kubectl([
    'create',
    'rolebinding',
    'metaops-podbuggertool',
    '-n',
    NS,
    '--clusterrole=metaops-podbuggertool',
    '--serviceaccount=metaops:metaops',
  ]);
  kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/podbuggertools.debug.metaops.dev']);
  // What a cluster admin grants for METAOPS_DEBUG_ACT_AS_AUTHOR=true (docs/podbuggertool.md): impersonate only the
  // tenants' users, UIDs and groups, by name.
  apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'metaops-act-as-tenants' },
    rules: [
      { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['alice'] },
      {
        apiGroups: [''],
        resources: ['groups'],
        verbs: ['impersonate'],
        resourceNames: ['tenants', 'system:authenticated'],
      },
      {
        apiGroups: ['authentication.k8s.io'],
        resources: ['uids'],
        verbs: ['impersonate'],
        resourceNames: ['uid-alice'],
      },
    ],
  });
  kubectl([
    'create',
    'clusterrolebinding',
    'metaops-act-as-tenants',
    '--clusterrole=metaops-act-as-tenants',
    '--serviceaccount=metaops:metaops',
  ]);
  createToolWriter(kubectl);
  kubectl(['create', 'clusterrole', 'debugger', '--verb=get,list,patch', '--resource=pods,pods/ephemeralcontainers']);
  for (const role of ['tool-writer', 'debugger'])
    kubectl(['create', 'rolebinding', `${role}-alice`, '-n', NS, `--clusterrole=${role}`, '--user=alice']);
  // The administrator's rule: a tenant's debug containers run as non-root (a ValidatingAdmissionPolicy on the
  // ephemeralcontainers subresource, deciding on the requesting user's groups).
  apply({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'tenant-debug-non-root' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['pods/ephemeralcontainers'] },
        ],
      },
      validations: [
        {
          expression:
            "!('tenants' in request.userInfo.groups) || object.spec.ephemeralContainers.all(c, has(c.securityContext) && has(c.securityContext.runAsNonRoot) && c.securityContext.runAsNonRoot == true)",
          message: "tenants' debug containers must run as non-root",
        },
      ],
    },
  });
  apply({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'tenant-debug-non-root' },
    spec: { policyName: 'tenant-debug-non-root', validationActions: ['Deny'] },
  });
  for (const name of ['web-1', 'web-2'])
    apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: NS, labels: { app: 'web' } },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
    });
  // In force: alice's own root debug container is refused (and so is the probe of the author policy's stamp).
  await waitFor(
    'the tenant policy refusing alice her own root debug container',
    async () => {
      try {
        as('alice-token', [
          'patch',
          'pod',
          'web-1',
          '-n',
          NS,
          '--subresource=ephemeralcontainers',
          '--dry-run=server',
          '--type=strategic',
          '-p',
          JSON.stringify({
            spec: { ephemeralContainers: [{ name: 'probe', image: 'busybox', stdin: true, tty: true }] },
          }),
        ]);
        return false;
      } catch (err) {
        return /must run as non-root/.test(String((err as { stderr?: unknown }).stderr));
      }
    },
    60_000,
  );
  await waitFor(
    'the author policy in force',
    async () => {
      apply(tool('probe'));
      const stamped = getJson(['pbt', 'probe', '-n', NS]).metadata.annotations?.[AUTHOR_ANNOTATION];
      kubectl(['delete', 'pbt', 'probe', '-n', NS]);
      return typeof stamped === 'string' && stamped.startsWith('v1;');
    },
    60_000,
  );
  await pastAuthorGrace(authorPolicyCreated(getJson), 1500);
  writeFileSync(join(api.dir, 'metaops.token'), kubectl(['create', 'token', 'metaops', '-n', 'metaops']));
});

function tool(name: string) {
  return {
    apiVersion: 'debug.metaops.dev/v1alpha1',
    kind: 'PodBuggerTool',
    metadata: { name, namespace: NS },
    // baseline (the default): busybox runs as root.
    spec: { label: 'app=web', image: 'busybox:1.36', command: ['sh', '-c', 'cat /proc/1/environ; sleep 3600'] },
  };
}

t.test(
  "a tool adds no debug container its author's own request would be refused by the API server's admission",
  async (t) => {
    // Alice, by herself: refused.
    const own = (() => {
      try {
        as('alice-token', [
          'patch',
          'pod',
          'web-1',
          '-n',
          NS,
          '--subresource=ephemeralcontainers',
          '--type=strategic',
          '-p',
          JSON.stringify({
            spec: { ephemeralContainers: [{ name: 'debug-mine', image: 'busybox:1.36', stdin: true, tty: true }] },
          }),
        ]);
        return 'added';
      } catch (err) {
        return String((err as { stderr?: unknown }).stderr);
      }
    })();
    t.match(own, /must run as non-root/, 'alice may not add a root debug container herself');
    // Alice, through a PodBuggerTool, the hook server acting as her: refused as she is.
    as('alice-token', ['apply', '-f', '-'], JSON.stringify(tool('rooted')));
    const res = await inject('web-1', true);
    t.match(
      JSON.stringify(res.annotations ?? {}),
      /debug-rooted\\":\\"(Invalid|Forbidden);/,
      'the pod records the API server refusing the author',
    );
    const added = (((getJson(['pod', 'web-1', '-n', NS])['spec'] as any).ephemeralContainers ?? []) as any[]).map(
      (c) => `${c.name} (securityContext ${JSON.stringify(c.securityContext ?? {})})`,
    );
    t.same(added, [], "alice's tool added no container the API server refuses alice herself");
  },
);

/** The injector's one call about `pod`, acting as the tool's author or not (METAOPS_DEBUG_ACT_AS_AUTHOR). */
async function inject(pod: string, actAsAuthor: boolean) {
  const kube: KubeApi = new HttpKubeApi(5000, {
    server: `https://127.0.0.1:${api.port()}`,
    insecure: true,
    tokenFile: join(api.dir, 'metaops.token'),
  });
  const policy: DebugPolicy = { ...DEFAULT_POLICY, allowlist: ['busybox'], actAsAuthor };
  const cache = new AuthorCache();
  const related = JSON.parse(kubectl(['get', 'pbt', '-n', NS, '-o', 'json'])).items as KubeObject[];
  return (await runHook(
    podbuggertoolInjector,
    'sync',
    {
      controller: {},
      object: getJson(['pod', pod, '-n', NS]),
      attachments: {},
      related: {
        'PodBuggerTool.debug.metaops.dev/v1alpha1': Object.fromEntries(related.map((x) => [x.metadata.name!, x])),
      },
    } as never,
    {
      now: new Date(),
      services: { kube: () => kube },
      settings: { policy, workBudgetMs: WORK_BUDGET_MS },
      clients: { authors: (k: KubeApi) => new AuthorCheck(k, cache) },
    },
  )) as { annotations?: Record<string, string> };
}

t.test(
  "with METAOPS_DEBUG_ACT_AS_AUTHOR off (the default), a tool's container passes admission as the hook server's service account",
  async (t) => {
    // The documented limit: RBAC is checked for the author (she may patch pods/ephemeralcontainers), admission is
    // asked about the service account, which the tenants' policy does not name.
    const res = await inject('web-2', false);
    t.notOk(res.annotations?.['debug.metaops.dev/failures']?.includes('debug-rooted'), 'no failure recorded');
    const added = (((getJson(['pod', 'web-2', '-n', NS])['spec'] as any).ephemeralContainers ?? []) as any[]).map(
      (c) => c.name,
    );
    t.same(added, ['debug-rooted'], 'added by the hook server, as docs/podbuggertool.md says');
  },
);
