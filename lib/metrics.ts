// Prometheus metrics at /metrics, from a registry private to each app instance: hook calls and durations by
// hook and outcome, and the calls hooks make to AWS, etcd and the Kubernetes API, by outcome.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type HookOutcome = 'ok' | 'not_modified' | 'deadline' | 'client_error' | 'error';

export class Metrics {
  readonly registry = new Registry();
  readonly hookCalls = new Counter({
    name: 'metaops_hook_requests_total',
    help: 'Hook calls by hook and outcome (ok, not_modified, client_error, error).',
    labelNames: ['hook', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly hookDuration = new Histogram({
    name: 'metaops_hook_duration_seconds',
    help: 'Hook call duration by hook and outcome.',
    labelNames: ['hook', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly dependencyCalls = new Counter({
    name: 'metaops_dependency_calls_total',
    help: 'Calls to AWS, etcd and the Kubernetes API by dependency, operation and outcome.',
    labelNames: ['dependency', 'operation', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly dependencyDuration = new Histogram({
    name: 'metaops_dependency_duration_seconds',
    help: 'Duration of calls to AWS, etcd and the Kubernetes API.',
    labelNames: ['dependency', 'operation'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
    registers: [this.registry],
  });

  /** Labelled children per hook and outcome, looked up once: a call records without building label objects. */
  private readonly hookRecorders = new Map<
    string,
    { calls: { inc(): void }; duration: { observe(v: number): void } }
  >();

  /** One hook call: counted and its duration (seconds) observed. */
  hookCall(hook: string, outcome: HookOutcome, seconds: number): void {
    const key = outcome + ' ' + hook;
    let recorder = this.hookRecorders.get(key);
    if (!recorder) {
      recorder = { calls: this.hookCalls.labels(hook, outcome), duration: this.hookDuration.labels(hook, outcome) };
      this.hookRecorders.set(key, recorder);
    }
    recorder.calls.inc();
    recorder.duration.observe(seconds);
  }

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: 'metaops_' });
  }

  /** The instrumented view of each object already instrumented (an object belongs to one dependency). */
  private readonly instrumented = new WeakMap<object, object>();

  /**
   * The same object, each async method of which is counted and timed as a call to `dependency`. Asked again for
   * the same object (a client kept for the life of the server), it gives the same view rather than a new one.
   */
  instrument<T extends object>(target: T, dependency: string): T {
    const known = this.instrumented.get(target);
    if (known) return known as T;
    const view = new Proxy(target, {
      get: (obj, prop, receiver) => {
        const value = Reflect.get(obj, prop, receiver);
        if (typeof value !== 'function') return value;
        const operation = String(prop);
        return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(obj, args);
          // Methods that return the client itself (withDeadline, withSignal) are instrumented in turn.
          if (result && typeof result === 'object' && !(result instanceof Promise) && result !== obj) {
            return this.instrument(result as object, dependency);
          }
          if (!(result instanceof Promise)) return result;
          const stop = this.dependencyDuration.startTimer({ dependency, operation });
          return result.then(
            (v) => {
              stop();
              this.dependencyCalls.inc({ dependency, operation, outcome: 'ok' });
              return v;
            },
            (err: unknown) => {
              stop();
              this.dependencyCalls.inc({ dependency, operation, outcome: 'error' });
              throw err;
            },
          );
        };
      },
    });
    this.instrumented.set(target, view);
    return view;
  }
}
