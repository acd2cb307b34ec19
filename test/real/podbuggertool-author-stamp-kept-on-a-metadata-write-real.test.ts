// The author of a PodBuggerTool is whoever last wrote its spec: "a user who may edit a tool but not debug its
// namespace cannot borrow its author's rights by changing it (it becomes theirs), and one who only labels it changes
// nothing" (docs/podbuggertool.md, "Who may debug"). The validating author policy is there because a mutating webhook
// after the mutating policy (a tenant's Kyverno Policy in their own namespace) may rewrite the stamp.
//
// On an update that changes neither the spec nor, as its writer sent it, the stamp (a label, a finalizer: an
// administrator's `kubectl label`, the garbage collector taking an ownerReference away), the mutating policy puts
// back the stamp the tool had. A webhook after it may then write the stamp of the request's own user, which such a
// webhook reads in the AdmissionReview (Kyverno: `{{request.userInfo}}`): the validating policy lets it through,
// because it is "the writer's stamp", though the writer wrote no spec. The tenant's spec is then stored under the
// administrator's name, and the hook server acts for it with the administrator's rights.
//
// The webhook here stands for such a tenant's mutate rule: on a PodBuggerTool carrying the tenant's annotation
// `defaults.example.com/stamp: writer`, it writes the author annotation from the request's userInfo, escaped as the
// policy writes it. Expected: an administrator's label on mallory's tool leaves mallory its author (the write keeps
// her stamp, or is refused), and the tool does not act as the administrator.
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

const api = startApiServer(t, 'pbt-author-metadata-write', [], {
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

t.test("an administrator's label on a tenant's tool does not make the administrator its author", async (t) => {
  kubectl(['apply', '-f', join(root, 'manifests', 'crds', 'podbuggertools.debug.metaops.dev.yaml')]);
  apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/podbuggertools.debug.metaops.dev']);
  // Mallory may write PodBuggerTools in her namespace, and nothing else: no pods/ephemeralcontainers.
  kubectl([
    'create',
    'clusterrole',
    'tool-writer',
    '--verb=get,list,create,update,patch,delete',
    '--resource=podbuggertools.debug.metaops.dev',
  ]);
  kubectl(['create', 'rolebinding', 'tool-writer-mallory', '-n', NS, '--clusterrole=tool-writer', '--user=mallory']);
  kubectl(['apply', '-f', join(root, 'manifests', 'admission', 'podbuggertool-author.yaml')]);
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
  // The author policy and the webhook in force: a tool written now is stamped with its writer, and seen.
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

  // Mallory's tool, with the annotation her webhook rule acts on: stamped as hers (the writer's stamp).
  as('mallory-token', ['apply', '-f', '-'], JSON.stringify(tool('hers', { [TRIGGER]: 'writer' })));
  const before = getJson(['pbt', 'hers', '-n', NS]);
  t.match(before.metadata.annotations?.[AUTHOR_ANNOTATION], /^v1;mallory;/, 'stamped as mallory');
  t.match(
    await new AuthorCheck(api.kube(), new AuthorCache()).verify(before),
    { allowed: false, reason: 'AuthorNotAllowed' },
    'mallory may not debug her namespace: her tool does nothing',
  );

  // An administrator labels it (the spec untouched): a write of metadata, which "changes nothing".
  try {
    kubectl(['label', 'pbt', 'hers', '-n', NS, 'reviewed=yes']);
  } catch (err) {
    t.comment(`the label was refused: ${String((err as { stderr?: Buffer }).stderr ?? err)}`);
  }
  const after = getJson(['pbt', 'hers', '-n', NS]);
  t.comment(`stamp after the label: ${after.metadata.annotations?.[AUTHOR_ANNOTATION]}`);
  t.same(after.spec, before.spec, "the spec is mallory's, as she wrote it");
  t.match(
    after.metadata.annotations?.[AUTHOR_ANNOTATION],
    /^v1;mallory;/,
    'the stamp is still the one of who wrote the spec (mallory), not the labeller (admin)',
  );
  const verdict = await new AuthorCheck(api.kube(), new AuthorCache()).verify(after);
  t.comment(`verdict: ${JSON.stringify(verdict)}`);
  t.match(verdict, { allowed: false }, "mallory's spec does not act with the administrator's rights");
});
