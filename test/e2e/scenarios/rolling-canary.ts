// Why PodSet rolls its pods itself: Metacontroller's own RollingRecreate, shown on each release with controllers of
// the suite's own (throwaway CRDs, three namespaced ConfigMaps each, a hook served by this process). With a selector
// of the parent's own, v1.5.20 rolls a changed template to every child one at a time, and v4.17.2 reaches the first
// and stops, waiting forever on "missing child" (it looks namespaced children up by bare name). With
// generateSelector, as every metaops controller has, neither release gets past the first child: the desired
// children it compares lack the controller-uid label the first one was made with ("not updated yet").
// docs/metacontroller.md. If a release fixes either, this scenario fails and says so: the workaround can be looked at.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { freePort, waitFor, E2E_RESYNC_SECONDS, type ControlPlane } from '../cluster.js';
import { secs, condition, type Scenario } from './common.js';

const GROUP = 'e2e.metaops.dev';

function crd(plural: string, kind: string) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

/** The hook: three ConfigMaps `<name>-<i>` holding spec.value, labelled `canary: <name>`. */
function serve(port: number): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { parent } = JSON.parse(body) as { parent: { metadata: { name: string }; spec: { value: string } } };
      const name = parent.metadata.name;
      const children = [0, 1, 2].map((i) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${name}-${i}`, labels: { canary: name } },
        data: { value: parent.spec.value },
      }));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: {}, children }));
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

interface Variant {
  plural: string;
  kind: string;
  generateSelector: boolean;
  /** Whether this release finishes the rollout, and if not the message it waits on. */
  expect: (k: ControlPlane) => RegExp | 'finishes';
}

const VARIANTS: Variant[] = [
  {
    plural: 'rollselects',
    kind: 'RollSelect',
    generateSelector: false,
    expect: (k) => (k.mc.features.rollingUpdate ? 'finishes' : /^missing child ConfigMap \S+-\d$/),
  },
  {
    plural: 'rollgenerates',
    kind: 'RollGenerate',
    generateSelector: true,
    expect: (k) =>
      k.mc.features.rollingUpdate ? /^child ConfigMap \S+-\d is not updated yet$/ : /^missing child ConfigMap \S+-\d$/,
  },
];

async function run(k: ControlPlane, port: number, v: Variant): Promise<string> {
  const def = crd(v.plural, v.kind);
  await k.kubectl(['apply', '-f', '-'], JSON.stringify(def));
  await k.kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd', def.metadata.name]);
  await k.kubectl(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'metacontroller.k8s.io/v1alpha1',
      kind: 'CompositeController',
      metadata: { name: `e2e-${v.plural}` },
      spec: {
        generateSelector: v.generateSelector,
        resyncPeriodSeconds: E2E_RESYNC_SECONDS,
        parentResource: { apiVersion: `${GROUP}/v1`, resource: v.plural },
        childResources: [{ apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'RollingRecreate' } }],
        hooks: { sync: { webhook: { url: `http://127.0.0.1:${port}/sync` } } },
      },
    }),
  );
  const name = v.kind.toLowerCase();
  const apply = (value: string) =>
    k.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: `${GROUP}/v1`,
        kind: v.kind,
        metadata: { name },
        // Without generateSelector, the parent selects its children, and Metacontroller labels its ControllerRevisions
        // from spec.template.metadata.labels (as a Deployment's pods).
        spec: {
          value,
          ...(v.generateSelector
            ? {}
            : { selector: { matchLabels: { canary: name } }, template: { metadata: { labels: { canary: name } } } }),
        },
      }),
    );
  const values = async () =>
    Promise.all(
      [0, 1, 2].map(
        async (i) => (await k.getOrUndefined(['configmap', `${name}-${i}`]))?.data?.value as string | undefined,
      ),
    );
  const updated = async () => condition(await k.json(['get', v.plural, name]), 'Updated');
  const how = `${v.generateSelector ? 'generateSelector' : 'a selector of its own'}`;
  await apply('a');
  await waitFor(`three ConfigMaps of ${name} with a`, async () => (await values()).every((x) => x === 'a'));
  const t0 = Date.now();
  await apply('b');
  const expected = v.expect(k);
  if (expected === 'finishes') {
    await waitFor(
      `every ConfigMap of ${name} on b`,
      async () => (await values()).every((x) => x === 'b'),
      60_000,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${await values()}; Updated ${JSON.stringify(await updated())}`);
    });
    return `${how}: the three ConfigMaps rolled to the new template in ${secs(t0)}`;
  }
  const stuck = await waitFor(`${name} Updated=False RolloutWaiting`, async () => {
    const c = await updated();
    return c?.reason === 'RolloutWaiting' && expected.test(c.message) ? c : undefined;
  });
  // Resyncs come and go; the rollout never moves on.
  await new Promise((r) => setTimeout(r, 3 * E2E_RESYNC_SECONDS * 1000));
  const now = await values();
  assert.equal(now.filter((x) => x === 'b').length, 1, `${how}: one child moved and no more: ${now}`);
  assert.match((await updated())?.message ?? '', expected, `${how}: still waiting`);
  return `${how}: one ConfigMap on the new template, then "${stuck.message}" for ${3 * E2E_RESYNC_SECONDS}s (all three exist)`;
}

export const rollingCanary: Scenario = {
  name: "Metacontroller's own RollingRecreate (why PodSet does not use it): with a selector of its own, v1.5.20 reaches every namespaced child and v4.17.2 stops after the first; with generateSelector neither gets past the first",
  async run(k) {
    const notes: string[] = [];
    const server = await serve(await freePort());
    const port = (server.address() as { port: number }).port;
    try {
      for (const v of VARIANTS) notes.push(`${k.mc.version}, ${await run(k, port, v)}`);
      return notes;
    } finally {
      for (const v of VARIANTS) {
        await k.kubectl(['delete', v.plural, '--all', '--wait=true', '--ignore-not-found']).catch(() => undefined);
        await k.kubectl(['delete', 'compositecontroller', `e2e-${v.plural}`, '--ignore-not-found']);
        await k.kubectl(['delete', 'crd', `${v.plural}.${GROUP}`, '--ignore-not-found']);
      }
      server.close();
    }
  },
};
