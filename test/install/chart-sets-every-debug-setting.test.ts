// Every METAOPS_DEBUG_* setting the hook server reads (hooks/podbuggertool/match.ts policyFromEnv) can be set through
// the Helm chart's values, as kustomize users set it in manifests/deploy/: a setting the chart cannot carry (the
// administrator of a Helm install cannot choose it) is a setting that chart users do not have.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { renderChart } from '../../scripts/render-chart.js';
import { root } from '../fixtures/requests.js';

const read = (path: string) => readFileSync(join(root, path), 'utf8');

t.test('the chart can set every METAOPS_DEBUG_* variable the server reads', async (t) => {
  const source = read('hooks/podbuggertool/match.ts');
  const names = [...new Set([...source.matchAll(/env\['(METAOPS_DEBUG_[A-Z_]+)'\]/g)].map((m) => m[1]!))];
  t.ok(names.includes('METAOPS_DEBUG_ACT_AS_AUTHOR'), 'the server reads METAOPS_DEBUG_ACT_AS_AUTHOR');
  const deployment = renderChart().get('templates/deployment.yaml') ?? '';
  t.ok(deployment.length > 0, 'the chart has a deployment template');
  for (const name of names)
    t.ok(deployment.includes(`name: ${name}`), `charts/metaops/templates/deployment.yaml can set ${name}`);
});
