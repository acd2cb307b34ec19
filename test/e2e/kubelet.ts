// A tiny kubelet that watches: the control plane has no kubelet, so pods are API objects only. This one watches the
// pods of a selector (`kubectl get --watch`), and reports each as a kubelet would through the status subresource:
// Running and Ready a while after it appears, or, for an image it cannot pull, Pending with its container waiting
// on ErrImagePull. It keeps every state the watch showed, so that a scenario can check an invariant at every change
// (e.g. "at most one member down"), not only at the moments it happens to look.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ControlPlane } from './cluster.js';

export interface KubeletOptions {
  namespace?: string;
  selector: string;
  /** How long after a pod appears it is reported Ready (default 1.5 s): a rollout that does not wait shows. */
  readyAfterMs?: number;
  /** Whether an image can be pulled (default: every one). */
  pullable?: (image: string) => boolean;
}

/** What the watch showed at one change: each live pod by name (terminating ones left out). */
export interface PodState {
  at: number;
  pods: Map<string, { uid: string; image: string; ready: boolean }>;
}

/** Splits concatenated JSON documents (kubectl's watch output) into objects. */
export class JsonStream {
  private buf = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private start = -1;
  private scanned = 0;

  push(chunk: string): unknown[] {
    this.buf += chunk;
    const out: unknown[] = [];
    for (let i = this.scanned; i < this.buf.length; i++) {
      const ch = this.buf[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') this.inString = false;
        continue;
      }
      if (ch === '"') this.inString = true;
      else if (ch === '{') {
        if (this.depth++ === 0) this.start = i;
      } else if (ch === '}' && --this.depth === 0) {
        out.push(JSON.parse(this.buf.slice(this.start, i + 1)));
        this.buf = this.buf.slice(i + 1);
        i = -1;
      }
    }
    this.scanned = this.buf.length;
    return out;
  }
}

const isReady = (pod: any) =>
  pod.status?.phase === 'Running' &&
  (pod.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

export class Kubelet {
  readonly states: PodState[] = [];
  private readonly pods = new Map<string, any>();
  private proc: ChildProcess | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly reported = new Set<string>();
  private stopped = false;
  private listeners: Array<() => void> = [];
  readonly errors: string[] = [];

  constructor(
    private readonly plane: ControlPlane,
    private readonly options: KubeletOptions,
  ) {}

  get namespace(): string {
    return this.options.namespace ?? 'default';
  }

  start(): void {
    const args = ['get', 'pods', '-n', this.namespace, '-l', this.options.selector];
    args.push('--watch', '--output-watch-events', '-o', 'json');
    const child = spawn(join(this.plane.bin, 'kubectl'), args, {
      env: { ...process.env, KUBECONFIG: this.plane.kubeconfig },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = child;
    const stream = new JsonStream();
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      for (const event of stream.push(chunk)) this.onEvent(event as { type: string; object: any });
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => {
      if (!this.stopped) this.errors.push(text.trim());
    });
  }

  /** The latest state, or undefined before the first event. */
  latest(): PodState | undefined {
    return this.states.at(-1);
  }

  /** Resolves at the next change the watch shows. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.listeners.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    const proc = this.proc;
    if (proc && proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    }
  }

  private onEvent(event: { type: string; object: any }): void {
    const pod = event.object;
    const name = pod?.metadata?.name as string | undefined;
    if (!name) return;
    if (event.type === 'DELETED') this.pods.delete(name);
    else this.pods.set(name, pod);
    const state: PodState = { at: Date.now(), pods: new Map() };
    for (const [n, p] of this.pods) {
      if (p.metadata.deletionTimestamp) continue;
      state.pods.set(n, { uid: p.metadata.uid, image: p.spec?.containers?.[0]?.image ?? '', ready: isReady(p) });
    }
    this.states.push(state);
    const waiting = this.listeners;
    this.listeners = [];
    for (const resolve of waiting) resolve();
    if (event.type !== 'DELETED' && !pod.metadata.deletionTimestamp) this.report(pod);
  }

  /** Reports a new pod's status once: Ready after readyAfterMs, or waiting on ErrImagePull. */
  private report(pod: any): void {
    const uid = pod.metadata.uid as string;
    if (this.reported.has(uid) || isReady(pod)) return;
    this.reported.add(uid);
    const image = pod.spec?.containers?.[0]?.image ?? '';
    const pullable = this.options.pullable?.(image) ?? true;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (this.stopped) return;
        this.patch(pod, pullable).catch((err: unknown) => {
          // A pod deleted meanwhile has no status to report.
          if (!/NotFound|not found|Precondition/.test(String(err))) this.errors.push(String(err));
        });
      },
      pullable ? (this.options.readyAfterMs ?? 1500) : 200,
    );
    this.timers.add(timer);
  }

  private async patch(pod: any, pullable: boolean): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const container = pod.spec?.containers?.[0]?.name ?? 'c';
    const status = pullable
      ? {
          phase: 'Running',
          podIP: '10.1.0.1',
          startTime: now,
          conditions: [
            { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
            { type: 'Initialized', status: 'True', lastTransitionTime: now },
            { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
            { type: 'Ready', status: 'True', lastTransitionTime: now },
          ],
          containerStatuses: [
            {
              name: container,
              image: pod.spec?.containers?.[0]?.image,
              imageID: '',
              ready: true,
              restartCount: 0,
              started: true,
              state: { running: { startedAt: now } },
            },
          ],
        }
      : {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: now }],
          containerStatuses: [
            {
              name: container,
              image: pod.spec?.containers?.[0]?.image,
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: 'ErrImagePull', message: 'rpc error: not found' } },
            },
          ],
        };
    // The uid as a precondition: a pod replaced meanwhile under the same name is not the one reported on.
    await this.plane.kubectl([
      'patch',
      'pod',
      pod.metadata.name,
      '-n',
      this.namespace,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ metadata: { uid: pod.metadata.uid }, status }),
    ]);
  }
}
