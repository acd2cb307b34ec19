// The seeds' walkthroughs, run with kubectl against the real control plane. Each scenario asserts on
// `kubectl get ... -o json` and waits with a time limit, never a fixed sleep. Returns notes for the report.
import { join } from 'node:path';
import type { ControlPlane } from '../cluster.js';
import { parentLabelValue } from '../../../lib/parent-label.js';

export interface Scenario {
  name: string;
  run(plane: ControlPlane): Promise<string[] | void>;
}

export const examples = (root: string, file: string) => join(root, 'manifests', 'examples', file);
export const secs = (t0: number) => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
export const condition = (obj: any, type: string) => obj?.status?.conditions?.find((c: any) => c.type === type);

/**
 * A pod of another namespace carrying every label of a parent's pods but its parent label (lib/parent-label.ts), which
 * it carries with the values a tenant can compute (the unkeyed hash of kind, namespace and name; the name), written
 * `writes` times, syncs the parent no more than its resyncs do (every `seconds` at the shortest, plus three at the
 * edges): customize asks for the pods by the keyed value. On Metacontroller v1.5.20 a related rule by name/instance was
 * matched by labels alone: each write synced it. Returns the note for the report.
 */
export async function assertNotWokenFromAnotherNamespace(
  k: ControlPlane,
  o: {
    hook: string;
    ownPods: string[];
    namespace: string;
    /** The parent label, and the parent's kind and name: the intruder carries the values computable from them. */
    parentLabel: string;
    parent: { kind: string; name: string };
    seconds: number;
    writes?: number;
  },
): Promise<string> {
  const writes = o.writes ?? 20;
  const own = (await k.json(['get', 'pods', '-n', o.namespace, '-l', o.ownPods.join(',')])).items[0]?.metadata
    ?.labels as Record<string, string> | undefined;
  if (!own?.[o.parentLabel]) throw new Error(`${o.hook}: no pod of ${o.ownPods.join(',')} carries ${o.parentLabel}`);
  if (own[o.parentLabel] === parentLabelValue(undefined, o.parent.kind, o.namespace, o.parent.name))
    throw new Error(`${o.hook}: ${o.parentLabel} is the unkeyed value: the server has no key (METAOPS_LABEL_KEY)`);
  // Not the keyed value, nor the labels a controller sets from its own object's uid (a Job's), which no tenant knows.
  const guessable = Object.fromEntries(
    Object.entries(own).filter(([key]) => key !== o.parentLabel && !key.endsWith('controller-uid')),
  );
  guessable[o.parentLabel] = parentLabelValue(undefined, o.parent.kind, o.namespace, o.parent.name);
  const intruder = `${o.namespace}-intruder`;
  await k.kubectl(['create', 'namespace', intruder]);
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'intruder', namespace: intruder, labels: guessable },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  };
  await k.kubectl(['apply', '-f', '-'], JSON.stringify(pod));
  const before = (await k.hookCalls()).get(o.hook) ?? 0;
  const from = Date.now();
  for (let i = 0; i < writes; i++)
    await k.kubectl(['label', 'pod', 'intruder', '-n', intruder, `write=${i}`, '--overwrite']);
  await new Promise((r) => setTimeout(r, 2000));
  const calls = ((await k.hookCalls()).get(o.hook) ?? 0) - before;
  const window = (Date.now() - from) / 1000;
  const resyncs = Math.ceil(window / o.seconds) + 3;
  await k.kubectl(['delete', 'namespace', intruder, '--wait=false']);
  if (calls > resyncs)
    throw new Error(
      `${writes} writes of another namespace's pod with the labels of ${o.ownPods.join(',')} but the keyed ${o.parentLabel} called ${o.hook} ${calls} times in ${window.toFixed(1)}s (resyncs explain ${resyncs})`,
    );
  return `${writes} writes of a pod with the labels of ${o.ownPods.join(',')} but the keyed parent label, in another namespace: ${o.hook} called ${calls} times in ${window.toFixed(1)}s (resyncs explain ${resyncs})`;
}

/**
 * The spec of a PodSet's or Memcached's NetworkPolicy selecting `pods`, as the hook answers it
 * (lib/network-policy.ts) and the API server must store it unchanged (no defaulted field: quiet at rest).
 */
export function workloadPolicySpec(pods: Record<string, string>): Record<string, unknown> {
  return {
    podSelector: { matchLabels: pods },
    policyTypes: ['Egress'],
    egress: [
      {
        to: [
          { ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.169.254/32', '168.63.129.16/32', '169.254.0.23/32'] } },
          { ipBlock: { cidr: '::/0', except: ['fd00:ec2::254/128', 'fd20:ce::254/128'] } },
          { namespaceSelector: {} },
        ],
      },
    ],
  };
}
