// Instrumentation: GET /metrics, every hook call counted and timed by outcome (countCalls, a hook of each hook route),
// and every call to the Kubernetes API and to an operator's clients counted and timed under its name. A plugin of
// the whole server (fastify-plugin: not encapsulated).
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { KubeEventRecorder, type EventRecorder } from './events.js';
import { OVERLOADED, StatusError } from './answer.js';
import { HOW_TO_AUTHENTICATE } from './guard.js';
import type { CallContext, Services } from './hook.js';
import type { HookOutcome, Metrics } from './metrics.js';

/** GET /metrics: the server's metrics in Prometheus' text format. */
export const instrumentPlugin = fp<{ metrics: Metrics }>(
  (app, { metrics }, done) => {
    app.get('/metrics', async (_request, reply) => {
      reply.header('content-type', metrics.registry.contentType);
      return metrics.registry.metrics();
    });
    done();
  },
  { name: 'metaops-instrument' },
);

/**
 * The onResponse hook of one hook route: counted and timed per route (a hook of its own, not a server-wide one that
 * would have to find out which route answered): every answer, refusals and errors included.
 */
export function countCalls(metrics: Metrics, name: string) {
  return (_request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    metrics.hookCall(name, outcomeOf(reply.statusCode), reply.elapsedTime / 1000);
    done();
  };
}

/**
 * One debug line per answered hook call, with the call's context ({hook, namespace, name, uid}); the context's
 * logger is built only when debug is on.
 */
export function logAnswered(log: FastifyBaseLogger, ctx: Pick<CallContext, 'log'>): void {
  const enabled = 'isLevelEnabled' in log ? log.isLevelEnabled : undefined;
  if (typeof enabled === 'function' && enabled.call(log, 'debug')) ctx.log.debug('hook answered');
}

function outcomeOf(code: number): HookOutcome {
  if (code === 304) return 'not_modified';
  if (code === OVERLOADED) return 'deadline';
  if (code < 400) return 'ok';
  return code < 500 ? 'client_error' : 'error';
}

/** lib's services with the Kubernetes API's calls counted and timed; Events go through it unless a recorder was given. */
export function instrumentedServices(
  base: Services,
  metrics: Metrics,
  events: Services['events'] | undefined,
): Services {
  let kube: ReturnType<Services['kube']> | undefined;
  let recorder: EventRecorder | undefined;
  const services: Services = {
    ...base,
    kube: () => (kube ??= metrics.instrument(base.kube(), 'kube')),
    events: () => (recorder ??= events ? events() : new KubeEventRecorder(() => services.kube())),
  };
  return services;
}

/**
 * An operator's client factories, each client they make counted and timed under the factory's name (`etcd`,
 * `aws`); a factory that answers a promise (a lazily loaded SDK) is instrumented when it resolves. Values that
 * are not factories (settings) pass as they are.
 */
export function instrumentedClients(built: Record<string, unknown>, metrics: Metrics): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, factory] of Object.entries(built)) {
    if (typeof factory !== 'function') {
      out[key] = factory;
      continue;
    }
    const view = (client: unknown) => (client && typeof client === 'object' ? metrics.instrument(client, key) : client);
    out[key] = (...args: unknown[]) => {
      const client: unknown = factory(...args);
      return client instanceof Promise ? client.then(view) : view(client);
    };
  }
  return out;
}

/** The client factory an unauthenticated call gets in place of each: it refuses, before any connection is made. */
export function refuseClient(): never {
  throw new StatusError(HOW_TO_AUTHENTICATE, 401);
}
