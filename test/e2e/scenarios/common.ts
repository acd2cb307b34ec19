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
