// The chart has a switch per operator, `operators.pod-network-policy` among them (values.yaml: "Which operators to
// install: each is its CRD (kept by helm uninstall) and its controller"). That DecoratorController has a finalize
// hook, so Metacontroller has put its finalizer `metacontroller.io/decoratorcontroller-metaops-pod-network-policy` on
// every pods' NetworkPolicy of every PodSet, Memcached and EtcdCluster (docs/operating.md, Tenants). Metacontroller
// does not remove a DecoratorController's finalizer from its objects when the DecoratorController is deleted
// (metacontroller/metacontroller#1062, open; fix PR #1222 not merged; v4.17.2 and v1.5.20 alike). So an admin who
// runs `helm upgrade --set operators.pod-network-policy=false` (a cluster-wide egress policy instead, no NetworkPolicy
// support in the CNI), while PodSet, Memcached and EtcdCluster stay on, deletes the DecoratorController: from then on
// every such policy deleted (a PodSet deleted the default way: its finalize releases the policy and the garbage
// collector deletes it) stays Terminating for good, a parent deleted with --cascade=foreground stays Terminating for
// good (blockOwnerDeletion), `kubectl delete namespace` hangs, and a parent made again under the name says
// NetworkPolicyNameTaken for good. Nothing at the switch says so: docs/operating.md's "Rolling back" note speaks of a
// rollback of metaops, not of this switch.
// Must hold: turning the switch off cannot strand the finalizer silently: the chart keeps the DecoratorController
// (helm.sh/resource-policy: keep) or the switch says what to do first (remove the finalizer from the policies).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { renderChart } from '../../scripts/render-chart.js';
import { root } from '../fixtures/requests.js';

t.test('operators.pod-network-policy=false strands no finalizer silently', async (t) => {
  const files = renderChart();
  const template = [...files].find(
    ([path, text]) =>
      path.startsWith('templates/') &&
      /kind: DecoratorController/.test(text) &&
      /metaops-pod-network-policy/.test(text),
  );
  t.ok(template, 'the chart renders the DecoratorController');
  const kept = /helm\.sh\/resource-policy["']?:\s*["']?keep/.test(template?.[1] ?? '');
  const values = readFileSync(join(root, 'charts', 'metaops', 'values.yaml'), 'utf8');
  const lines = values.split('\n');
  const at = lines.findIndex((l) => /^\s*pod-network-policy:/.test(l));
  // What values.yaml says at the switch (the comment block of `operators:` and the line itself).
  const start = lines.findIndex((l) => /^operators:/.test(l));
  let from = start;
  while (from > 0 && /^#/.test(lines[from - 1]!)) from--;
  const said = lines.slice(from, at + 1).join('\n');
  const warned = /finalizer/i.test(said);
  t.ok(
    kept || warned,
    `turning pod-network-policy off deletes the DecoratorController and leaves its finalizer on every pods' ` +
      `NetworkPolicy (kept: ${kept}; values.yaml at the switch says: ${JSON.stringify(said)})`,
  );
});
