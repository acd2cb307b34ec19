// The per-request logger, built when a request first logs something.
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Fastify gives every request a child of the server's logger bound to its request id. pino builds a child
 * eagerly (bindings serialised through the redaction paths, ~1-2 us), yet a hook call that succeeds logs nothing
 * at the default level. This stands in for that child and builds it on the first log line at an enabled level.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  private built: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.built ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.built ? this.built.level : this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  /** pino's isLevelEnabled, answered from the parent until the child exists (it has the parent's level). */
  isLevelEnabled(level: string): boolean {
    const target = (this.built ?? this.parent) as FastifyBaseLogger & { isLevelEnabled?(l: string): boolean };
    return target.isLevelEnabled ? target.isLevelEnabled(level) : true;
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  // One method per level, put on the prototype below (not arrow-function fields: no closures per request).
  declare fatal: FastifyBaseLogger['fatal'];
  declare error: FastifyBaseLogger['error'];
  declare warn: FastifyBaseLogger['warn'];
  declare info: FastifyBaseLogger['info'];
  declare debug: FastifyBaseLogger['debug'];
  declare trace: FastifyBaseLogger['trace'];
  silent(): void {}

  /** A line at `method`'s level: dropped while the level is disabled and no child exists yet. */
  write(method: Method, args: unknown[]): void {
    if (!this.built && !this.isLevelEnabled(method)) return;
    (this.logger[method] as (...a: unknown[]) => void)(...args);
  }
}

for (const method of ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const) {
  LazyChildLogger.prototype[method] = function (this: LazyChildLogger, ...args: unknown[]) {
    this.write(method, args);
  } as FastifyBaseLogger[typeof method];
}

/**
 * Fastify's childLoggerFactory: lazy children for requests, except where a route asks for its own level or
 * serialisers (then the child must exist to carry them).
 */
export function lazyChildLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  const opts = options as { level?: string; serializers?: unknown } | undefined;
  if (opts?.level || opts?.serializers) return logger.child(bindings, options);
  return new LazyChildLogger(logger, bindings, options);
}
