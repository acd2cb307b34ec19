// The author check reads the admission policy and its binding as admissionregistration.k8s.io/v1 only, the API of
// Kubernetes 1.36 and later (docs/podbuggertool.md, "What this model asks of the cluster"). A 1.34 or 1.35 API server,
// even with the MutatingAdmissionPolicy feature gate and the v1beta1 API on, serves no v1 policy: there every tool is
// AuthorUnverified, told that the policy is not installed and that it needs 1.36, and nothing is asked of the
// authorizer, whatever the cluster holds as v1beta1.
import { createServer } from 'node:http';
import t from 'tap';
import { AUTHOR_ANNOTATION, AUTHOR_POLICY, authorPolicyObjects } from '../../hooks/podbuggertool/author.js';
import { HttpKubeApi } from '../../lib/kube.js';
import { POLICY_CREATED, stamp, tool } from '../fixtures/pbt.js';
import { checkNow } from '../fixtures/pbt-author.js';

t.test('a cluster serving the policy only as v1beta1: AuthorUnverified, not installed, 1.36 named', async (t) => {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    const beta =
      /^\/apis\/admissionregistration\.k8s\.io\/v1beta1\/(mutatingadmissionpolicies|mutatingadmissionpolicybindings)\/(.*)$/.exec(
        req.url ?? '',
      );
    if (req.method === 'GET' && beta && beta[2] === AUTHOR_POLICY) {
      // The policy and binding as metaops ships them, stored by a 1.35 API server as v1beta1.
      const kind =
        beta[1] === 'mutatingadmissionpolicies' ? 'MutatingAdmissionPolicy' : 'MutatingAdmissionPolicyBinding';
      const shipped = (authorPolicyObjects() as any[]).find((o) => o.kind === kind);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...shipped,
          apiVersion: 'admissionregistration.k8s.io/v1beta1',
          metadata: { name: AUTHOR_POLICY, creationTimestamp: POLICY_CREATED, generation: 1 },
        }),
      );
      return;
    }
    // The validating policy and its binding, which a 1.35 API server serves as v1 (GA since 1.30).
    const validating =
      /^\/apis\/admissionregistration\.k8s\.io\/v1\/(validatingadmissionpolicies|validatingadmissionpolicybindings)\/(.*)$/.exec(
        req.url ?? '',
      );
    if (req.method === 'GET' && validating && validating[2] === AUTHOR_POLICY) {
      const kind =
        validating[1] === 'validatingadmissionpolicies'
          ? 'ValidatingAdmissionPolicy'
          : 'ValidatingAdmissionPolicyBinding';
      const shipped = (authorPolicyObjects() as any[]).find((o) => o.kind === kind);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...shipped,
          metadata: { name: AUTHOR_POLICY, creationTimestamp: POLICY_CREATED, generation: 1 },
        }),
      );
      return;
    }
    if (req.method === 'POST' && req.url === '/apis/authorization.k8s.io/v1/subjectaccessreviews') {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'SubjectAccessReview', status: { allowed: true } }));
      return;
    }
    // A resource the API server does not serve in a group version it serves: Go's mux's 404.
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('404 page not found\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const kube = new HttpKubeApi(3000, { server: `http://127.0.0.1:${(server.address() as { port: number }).port}` });

  const stamped = tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice');
  stamped.metadata.annotations[AUTHOR_ANNOTATION] = stamp('alice');
  const verdict = await checkNow(kube).verify(stamped);
  t.match(verdict, {
    allowed: false,
    reason: 'AuthorUnverified',
    message: /is not installed.*admissionregistration\.k8s\.io\/v1.*Kubernetes 1\.36 or later/,
  });
  t.match(
    verdict,
    {
      message:
        /no MutatingAdmissionPolicy metaops-podbuggertool-author, no MutatingAdmissionPolicyBinding metaops-podbuggertool-author;/,
    },
    'the v1 objects it lacks named, not the validating ones it has',
  );
  t.same(
    asked.sort(),
    [
      `GET /apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies/${AUTHOR_POLICY}`,
      `GET /apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings/${AUTHOR_POLICY}`,
      `GET /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${AUTHOR_POLICY}`,
      `GET /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/${AUTHOR_POLICY}`,
    ],
    'the policy and binding asked for as v1, and no review asked',
  );
});
