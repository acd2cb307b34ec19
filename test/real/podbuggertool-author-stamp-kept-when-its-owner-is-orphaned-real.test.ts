// The author of a PodBuggerTool is whoever last wrote its spec; a write of its metadata alone changes nothing
// (docs/podbuggertool.md, "Who may debug"). A tenant can have a write of metadata made by a user far more privileged
// than any administrator, with nothing but rights in their own namespace: the garbage collector. A tool that names
// an owner (a ConfigMap of the tenant's) loses that ownerReference when the owner is deleted with
// `--cascade=orphan`: kube-controller-manager's generic-garbage-collector (RBAC: get, list, watch, patch, update and
// delete on every resource, pods/ephemeralcontainers included) patches the tool. A mutating webhook after the author
// policy that writes the request's own user as the stamp (a tenant's Kyverno Policy: `{{request.userInfo}}`) then
// stamps the tenant's spec as the garbage collector's, and the validating author policy lets it through ("the
// writer's stamp"): the hook server acts for the tenant's tool with the garbage collector's rights, in every pod of
// the namespace it selects.
//
// Expected: the orphaning leaves mallory the author of her tool, and the tool does not act (mallory may not debug).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import {
  AUTHOR_ANNOTATION,
  AUTHOR_GRACE_MS,
  AUTHOR_POLICY,
  AuthorCache,
  AuthorCheck,
} from '../../hooks/podbuggertool/author.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { waitFor } from '../e2e/cluster.js';
import { startApiServer } from '../fixtures/apiserver.js';
import { freePort } from '../fixtures/net.js';
import { root } from '../fixtures/requests.js';

const api = startApiServer(t, 'pbt-author-orphaned', [], {
  authorization: 'RBAC',
  tokens: ['mallory-token,mallory,uid-mallory,tenants'],
});
const kubectl = (args: string[], input?: string) => api.kubectl(args, input);
const apply = (obj: unknown) => kubectl(['apply', '-f', '-'], JSON.stringify(obj));
const as = (token: string, args: string[], input?: string) => kubectl([`--token=${token}`, ...args], input);
const getJson = (args: string[]) =>
  JSON.parse(kubectl(['get', ...args, '-o', 'json', '--show-managed-fields'])) as KubeObject;
const NS = 'team-m';
const TRIGGER = 'defaults.example.com/stamp';
const SEEN = 'defaults.example.com/seen';
/** When the object of `kind` named AUTHOR_POLICY was created (0 when there is none: an install without it). */
function createdAt(kind: string): number {
  try {
    return Date.parse(getJson([kind, AUTHOR_POLICY]).metadata.creationTimestamp!);
  } catch {
    return 0;
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

function tool(name: string, annotations: Record<string, string> = {}) {
  return {
    apiVersion: 'debug.metaops.dev/v1alpha1',
    kind: 'PodBuggerTool',
    metadata: { name, namespace: NS, annotations },
    // Mallory's spec: her image and command, in every pod labelled app=web of her namespace.
    spec: { label: 'app=web', image: 'busybox:1.36', command: ['sh', '-c', 'cat /var/run/secrets/* ; sleep 3600'] },
  };
}

/**
 * A mutating webhook that writes the request's own user as the author stamp (as the policy would write it) on a tool
 * that carries TRIGGER, and marks every tool it saw with SEEN; in a process of its own.
 */
async function startWebhook(t: Test): Promise<{ url: string; ca: string }> {
  const dir = api.dir;
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1'],
      ...['-keyout', join(dir, 'webhook.key'), '-out', join(dir, 'webhook.crt')],
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(join(dir, 'webhook.crt'));
  const port = await freePort();
  const pointer = (key: string) => `/metadata/annotations/${key.replace('~', '~0').replace('/', '~1')}`;
  const script = `
    const { createServer } = require('node:https');
    const { readFileSync } = require('node:fs');
    const esc = (s) => String(s).replaceAll('%', '%25').replaceAll(';', '%3B').replaceAll(',', '%2C').replaceAll('=', '%3D');
    const stampOf = (u) => 'v1;' + esc(u.username ?? '') + ';' + esc(u.uid ?? '') + ';' + (u.groups ?? []).map(esc).join(',') + ';' +
      Object.entries(u.extra ?? {}).map(([k, vs]) => vs.map((v) => esc(k) + '=' + esc(v)).join(',')).filter((e) => e !== '').join(',');
    const server = createServer({ key: readFileSync(${JSON.stringify(join(dir, 'webhook.key'))}), cert: readFileSync(${JSON.stringify(join(dir, 'webhook.crt'))}) }, (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c.toString()));
      req.on('end', () => {
        const review = JSON.parse(body);
        const annotations = review.request.object?.metadata?.annotations;
        const patch = [];
        if (!annotations) patch.push({ op: 'add', path: '/metadata/annotations', value: {} });
        patch.push({ op: 'add', path: ${JSON.stringify(pointer(SEEN))}, value: 'yes' });
        if (annotations?.[${JSON.stringify(TRIGGER)}] === 'writer')
          patch.push({ op: 'add', path: ${JSON.stringify(pointer(AUTHOR_ANNOTATION))}, value: stampOf(review.request.userInfo) });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true,
          patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') } }));
      });
    });
    server.listen(${port}, '127.0.0.1');
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  t.teardown(() => {
    child.kill();
  });
  return { url: `https://127.0.0.1:${port}/mutate`, ca: cert.toString('base64') };
}

/** kube-controller-manager's garbage collector, with each controller's own service account (as clusters run it). */
async function startGarbageCollector(t: Test): Promise<void> {
  const port = await freePort();
  const bin = execFileSync('bash', [join(root, 'e2e', 'build.sh'), 'kube', 'etcd'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .toString()
    .trim()
    .split('\n')
    .pop()!;
  const child = spawn(
    join(bin, 'kube-controller-manager'),
    [
      ...['--kubeconfig', join(api.dir, 'kubeconfig'), '--bind-address', '127.0.0.1', '--secure-port', String(port)],
      ...['--service-account-private-key-file', join(api.dir, 'sa.key')],
      ...['--root-ca-file', join(api.dir, 'pki', 'apiserver.crt')],
      ...['--controllers', 'garbage-collector-controller', '--leader-elect=false'],
      '--use-service-account-credentials=true',
    ],
    { stdio: 'ignore' },
  );
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
}

const ownersOf = (o: KubeObject) => (o.metadata as { ownerReferences?: unknown[] }).ownerReferences ?? [];

t.test('a tool whose owner is deleted with --cascade=orphan keeps its author', async (t) => {
  kubectl(['apply', '-f', join(root, 'manifests', 'crds', 'podbuggertools.debug.metaops.dev.yaml')]);
  apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/podbuggertools.debug.metaops.dev']);
  // Mallory may write PodBuggerTools and ConfigMaps in her namespace, and nothing else: no pods/ephemeralcontainers.
  kubectl([
    'create',
    'clusterrole',
    'tool-writer',
    '--verb=get,list,create,update,patch,delete',
    '--resource=podbuggertools.debug.metaops.dev,configmaps',
  ]);
  kubectl(['create', 'rolebinding', 'tool-writer-mallory', '-n', NS, '--clusterrole=tool-writer', '--user=mallory']);
  kubectl(['apply', '-f', join(root, 'manifests', 'admission', 'podbuggertool-author.yaml')]);
  await startGarbageCollector(t);
  const { url, ca } = await startWebhook(t);
  apply({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'tenant-defaults' },
    webhooks: [
      {
        name: 'tenant-defaults.example.com',
        clientConfig: { url, caBundle: ca },
        rules: [
          {
            apiGroups: ['debug.metaops.dev'],
            apiVersions: ['*'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['podbuggertools'],
            scope: 'Namespaced',
          },
        ],
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        timeoutSeconds: 5,
      },
    ],
  });
  await waitFor(
    'the author policy and the webhook in force',
    async () => {
      as('mallory-token', ['apply', '-f', '-'], JSON.stringify(tool('probe')));
      const annotations = getJson(['pbt', 'probe', '-n', NS]).metadata.annotations ?? {};
      as('mallory-token', ['delete', 'pbt', 'probe', '-n', NS]);
      return (annotations[AUTHOR_ANNOTATION] ?? '').startsWith('v1;mallory;') && annotations[SEEN] === 'yes';
    },
    60_000,
  );
  const since = Math.max(
    ...[
      'mutatingadmissionpolicy',
      'mutatingadmissionpolicybinding',
      'validatingadmissionpolicy',
      'validatingadmissionpolicybinding',
    ].map((kind) => createdAt(kind)),
  );
  await sleep(since + AUTHOR_GRACE_MS + 2000 - Date.now());

  // Mallory's ConfigMap, and her tool owned by it, with the annotation her webhook rule acts on.
  as('mallory-token', ['create', 'configmap', 'owner', '-n', NS]);
  const owner = getJson(['configmap', 'owner', '-n', NS]);
  const mine = tool('hers', { [TRIGGER]: 'writer' }) as ReturnType<typeof tool> & {
    metadata: { ownerReferences?: unknown[] };
  };
  mine.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }];
  as('mallory-token', ['create', '-f', '-'], JSON.stringify(mine));
  const before = getJson(['pbt', 'hers', '-n', NS]);
  t.match(before.metadata.annotations?.[AUTHOR_ANNOTATION], /^v1;mallory;/, 'stamped as mallory');
  t.match(
    await new AuthorCheck(api.kube(), new AuthorCache()).verify(before),
    { allowed: false, reason: 'AuthorNotAllowed' },
    'mallory may not debug her namespace: her tool does nothing',
  );

  // Mallory deletes her ConfigMap, orphaning its dependents: the garbage collector takes the ownerReference away.
  as('mallory-token', ['delete', 'configmap', 'owner', '-n', NS, '--cascade=orphan', '--wait=false']);
  let orphaned = false;
  try {
    orphaned = await waitFor(
      'the garbage collector takes the ownerReference away',
      async () => (ownersOf(getJson(['pbt', 'hers', '-n', NS])).length === 0 ? true : undefined),
      60_000,
    );
  } catch (err) {
    // A write of the garbage collector refused is one way to keep the stamp (the ownerReference then stays).
    t.comment(`not orphaned: ${String(err)}`);
  }
  const after = getJson(['pbt', 'hers', '-n', NS]);
  t.comment(`orphaned: ${orphaned}; stamp after: ${after.metadata.annotations?.[AUTHOR_ANNOTATION]}`);
  t.same(after.spec, before.spec, "the spec is mallory's, as she wrote it");
  t.match(
    after.metadata.annotations?.[AUTHOR_ANNOTATION],
    /^v1;mallory;/,
    'the stamp is still the one of who wrote the spec (mallory), not the garbage collector',
  );
  const verdict = await new AuthorCheck(api.kube(), new AuthorCache()).verify(after);
  t.comment(`verdict: ${JSON.stringify(verdict)}`);
  t.match(verdict, { allowed: false }, "mallory's spec does not act with the garbage collector's rights");
});
