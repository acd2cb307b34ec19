// Metacontroller sends the whole DecoratorController with every injector request (`controller`: as its informer
// holds it, metadata and all), and the tool's status counts a pod pending only when its request fits in the body
// limit: the controller is counted as an allowance (hooks/podbuggertool/sync.ts CONTROLLER_ALLOWANCE). The shipped
// DecoratorController, as a real API server stores it after each way it is installed (kubectl apply, again after a
// change, server-side apply, a label and an annotation added by hand; Helm install and upgrade), is within it: the
// allowance is what the request's `controller` is, measured as Metacontroller writes it (lib/go-json.ts).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import { CONTROLLER_ALLOWANCE } from '../../hooks/podbuggertool/sync.js';
import { goJsonBytes } from '../../lib/go-json.js';
import { waitFor } from '../e2e/cluster.js';
import { v4Folder } from '../e2e/metacontroller.js';
import { startApiServer } from '../fixtures/apiserver.js';
import { root } from '../fixtures/requests.js';

const api = startApiServer(t, 'pbt-controller-size');
const NAME = 'metaops-podbuggertool-injector';
const manifest = join(root, 'manifests', 'controllers', `${NAME}.yaml`);

t.test('the shipped DecoratorController, however it was installed, is within the request allowance', async (t) => {
  // Metacontroller v4.17.2's own CRDs (v1.5.20's lack the fields the manifest sets: etag, authorization).
  api.kubectl(['apply', '-f', join(v4Folder(root), 'metacontroller-crds-v1.yaml')]);
  await waitFor(
    'the DecoratorController CRD Established',
    async () => {
      try {
        api.kubectl(['get', 'decoratorcontrollers']);
        return true;
      } catch {
        return false;
      }
    },
    60_000,
  );
  const stored = () =>
    JSON.parse(api.kubectl(['get', 'decoratorcontroller', NAME, '-o', 'json', '--show-managed-fields']));
  const sizes: Record<string, number> = {};
  const measure = (how: string) => {
    const bytes = goJsonBytes(stored());
    sizes[how] = bytes;
    t.ok(bytes <= CONTROLLER_ALLOWANCE, `${how}: ${bytes} bytes, within ${CONTROLLER_ALLOWANCE}`);
  };

  api.kubectl(['apply', '-f', manifest]);
  measure('kubectl apply');
  const shipped = YAML.parse(readFileSync(manifest, 'utf8'));
  const changed = structuredClone(shipped);
  changed.spec.hooks.sync.webhook.timeout = '9s';
  api.kubectl(['apply', '-f', '-'], JSON.stringify(changed));
  api.kubectl(['apply', '-f', manifest]);
  measure('kubectl apply, a change applied and undone');
  api.kubectl(['apply', '--server-side', '--force-conflicts', '-f', manifest]);
  api.kubectl(['label', 'decoratorcontroller', NAME, 'team=platform']);
  api.kubectl(['annotate', 'decoratorcontroller', NAME, 'owner=platform-team']);
  measure('then server-side apply, a label and an annotation by hand');
  api.kubectl(['delete', 'decoratorcontroller', NAME]);
  api.kubectl(['create', '-f', manifest]);
  api.kubectl(['apply', '-f', manifest]);
  measure('kubectl create, then apply');
  api.kubectl(['delete', 'decoratorcontroller', NAME]);

  // Helm: the chart's own rendering of it, installed and upgraded as Helm does (its ownership label and annotations).
  const bin = execFileSync('bash', [join(root, 'e2e', 'build.sh'), 'helm'], { stdio: ['ignore', 'pipe', 'inherit'] })
    .toString()
    .trim()
    .split('\n')
    .pop()!;
  const helm = (args: string[]) =>
    execFileSync(join(bin, 'helm'), [...args, '--kubeconfig', join(api.dir, 'kubeconfig')], {
      encoding: 'utf8',
      env: {
        ...process.env,
        HELM_CACHE_HOME: join(api.dir, 'helm', 'cache'),
        HELM_CONFIG_HOME: join(api.dir, 'helm', 'config'),
        HELM_DATA_HOME: join(api.dir, 'helm', 'data'),
      },
    });
  const chart = join(root, 'charts', 'metaops');
  const values = ['--namespace', 'metaops', '--skip-crds', '--set', 'operators.s3=false'];
  helm(['install', 'metaops', chart, '--create-namespace', ...values]);
  measure('helm install');
  helm(['upgrade', 'metaops', chart, ...values, '--set', 'webhook.url=https://metaops-hooks.platform.example.com']);
  measure('helm upgrade to a webhook URL');
  t.comment(JSON.stringify(sizes));
});
