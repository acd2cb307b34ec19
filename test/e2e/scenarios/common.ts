// The seeds' walkthroughs, run with kubectl against the real control plane. Each scenario asserts on
// `kubectl get ... -o json` and waits with a time limit, never a fixed sleep. Returns notes for the report.
import { join } from 'node:path';
import type { ControlPlane } from '../cluster.js';

export interface Scenario {
  name: string;
  run(plane: ControlPlane): Promise<string[] | void>;
}

export const examples = (root: string, file: string) => join(root, 'manifests', 'examples', file);
export const secs = (t0: number) => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
export const condition = (obj: any, type: string) => obj?.status?.conditions?.find((c: any) => c.type === type);

/**
 * A pod of another namespace carrying every label of a parent's pods but the one with the parent's uid (what any tenant
 * can write, its name/instance labels guessed from the parent's name), written `writes` times, syncs the parent no more
 * than its resyncs do (every `seconds` at the shortest, plus three at the edges): customize asks for the pods by the
 * uid label. On Metacontroller v1.5.20 a related rule by name/instance was matched by labels alone: each write synced it.
 * Returns the note for the report.
 */
export async function assertNotWokenFromAnotherNamespace(
  k: ControlPlane,
  o: { hook: string; ownPods: string[]; namespace: string; uidLabel: string; seconds: number; writes?: number },
): Promise<string> {
  const writes = o.writes ?? 20;
  const own = (await k.json(['get', 'pods', '-n', o.namespace, '-l', o.ownPods.join(',')])).items[0]?.metadata
    ?.labels as Record<string, string> | undefined;
  if (!own?.[o.uidLabel]) throw new Error(`${o.hook}: no pod of ${o.ownPods.join(',')} carries ${o.uidLabel}`);
  // Not the uid, nor the labels a controller sets from its own object's uid (a Job's), which no tenant knows either.
  const guessable = Object.fromEntries(
    Object.entries(own).filter(([key]) => key !== o.uidLabel && !key.endsWith('controller-uid')),
  );
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
      `${writes} writes of another namespace's pod with the labels of ${o.ownPods.join(',')} but ${o.uidLabel} called ${o.hook} ${calls} times in ${window.toFixed(1)}s (resyncs explain ${resyncs})`,
    );
  return `${writes} writes of a pod with the labels of ${o.ownPods.join(',')} but its uid, in another namespace: ${o.hook} called ${calls} times in ${window.toFixed(1)}s (resyncs explain ${resyncs})`;
}
