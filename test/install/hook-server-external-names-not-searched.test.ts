// The hook server dials AWS by name: IAM at its global endpoint `iam.amazonaws.com` (the SDK's endpoint for every
// region of the aws partition), S3 at `<bucket>.s3.<region>.amazonaws.com`. Its pod resolves names through the pod's
// resolv.conf (`search metaops.svc.cluster.local svc.cluster.local cluster.local`, `ndots:5` unless the pod says
// otherwise): a name with fewer than ndots dots is tried under each search domain first. `iam.amazonaws.com` is
// then looked up as `iam.amazonaws.com.svc.cluster.local` before itself, and that is the record of a pod with hostname
// `iam` behind a headless Service `amazonaws` in a namespace named `com` (<hostname>.<subdomain>.<namespace>.svc).
// The tenant of namespace `com` answers for IAM: every S3 resource of every tenant stops (TLS to the impostor fails),
// and the impostor learns each call's timing. The NetworkPolicy lets the server out on 443 to any address, pods
// included, so nothing stops the connection. Every external name the server dials must be looked up as it is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import { IAMClient, GetUserCommand } from '@aws-sdk/client-iam';
import { podDnsConfig } from '../../lib/names.js';
import { root } from '../fixtures/requests.js';

/** The host an AWS SDK client of the server dials for one call (stopped before it is sent). */
async function iamHost(region: string): Promise<string> {
  let host = '';
  const iam = new IAMClient({ region, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
  iam.middlewareStack.add(
    () => async (args: any) => {
      host = args.request.hostname;
      throw new Error('not sent');
    },
    { step: 'finalizeRequest' },
  );
  await iam.send(new GetUserCommand({ UserName: 'x' })).catch(() => undefined);
  return host;
}

t.test("the hook server looks up AWS's names as they are, never first under its pod's search domains", async (t) => {
  const [deployment] = YAML.parseAllDocuments(
    readFileSync(join(root, 'manifests', 'deploy', 'deployment.yaml'), 'utf8'),
  ).map((d) => d.toJS());
  const options: Array<{ name: string; value?: string }> = deployment.spec.template.spec.dnsConfig?.options ?? [];
  const ndotsOption = options.find((o) => o.name === 'ndots');
  // Kubernetes' default for a ClusterFirst pod.
  const ndots = ndotsOption ? Number(ndotsOption.value) : 5;
  for (const region of ['us-east-1', 'eu-north-1']) {
    const host = await iamHost(region);
    t.equal(host, 'iam.amazonaws.com', `IAM in ${region} is dialled at its global name`);
    const dots = host.split('.').length - 1;
    t.ok(
      dots >= ndots,
      `${host} (${dots} dots) is looked up as it is first: the pod's ndots is ${ndots}, so it is tried as ${host}.svc.cluster.local (namespace "com", Service "amazonaws", hostname "iam") before`,
    );
  }
});

t.test("the Helm chart's Deployment looks names up as the kustomize one does", async (t) => {
  // The chart is rendered from manifests/deploy (scripts/render-chart.ts); its template is YAML with Helm's
  // expressions in values only, so the pod's dnsConfig reads as it is.
  const text = readFileSync(join(root, 'charts', 'metaops', 'templates', 'deployment.yaml'), 'utf8');
  const at = text.indexOf('      dnsConfig:');
  t.ok(at > 0, 'the chart sets the pod dnsConfig');
  const lines = text.slice(at).split('\n');
  const end = lines.findIndex((line, i) => i > 0 && !line.startsWith('        '));
  const block = YAML.parse(lines.slice(0, end).join('\n'));
  t.same(block, { dnsConfig: { options: [{ name: 'ndots', value: '1' }] } });
});

t.test(
  'the hook server resolves names by the same rule as the pods metaops makes (lib/names.ts podDnsConfig)',
  async (t) => {
    const [deployment] = YAML.parseAllDocuments(
      readFileSync(join(root, 'manifests', 'deploy', 'deployment.yaml'), 'utf8'),
    ).map((d) => d.toJS());
    t.same(deployment.spec.template.spec.dnsConfig, podDnsConfig(), 'manifests/deploy/deployment.yaml');
    const chart = readFileSync(join(root, 'charts', 'metaops', 'templates', 'deployment.yaml'), 'utf8');
    const block = /dnsConfig:\n(?:\s{8,}.*\n)+/.exec(chart)?.[0] ?? '';
    t.same(YAML.parse(block.replace(/^\s{6}/gm, ''))?.dnsConfig, podDnsConfig(), 'the Helm chart');
  },
);
