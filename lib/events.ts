// Kubernetes Events (events.k8s.io/v1) for what metaops did or failed to do to a resource, so that
// `kubectl describe` shows it. Repeats aggregate into one Event's `series` instead of flooding: the same
// (object, type, reason, note) within AGGREGATE_MS updates the count, at most once per SERIES_EVERY_MS.
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';

export type EventType = 'Normal' | 'Warning';

/** The object an Event is about. */
export interface EventTarget {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string | undefined;
  uid?: string | undefined;
}

export interface EventInput {
  target: EventTarget;
  type: EventType;
  /** The same reason as the condition it explains (UpperCamelCase). */
  reason: string;
  /** What happened, for a person: a sentence, at most NOTE_MAX characters. */
  note: string;
  /** What metaops was doing (UpperCamelCase), e.g. `InjectDebugContainer`, `AddMember`. */
  action: string;
}

/** What the recorder needs from the Kubernetes API. */
export interface EventApi {
  /** POST the Event; resolves `false` when one of that name exists already (409). */
  createEvent(namespace: string, event: Record<string, unknown>): Promise<boolean>;
  /** Merge-patch the Event of that name. */
  patchEvent(namespace: string, name: string, patch: Record<string, unknown>): Promise<void>;
}

export const NOTE_MAX = 1024;
export const AGGREGATE_MS = 10 * 60_000;
export const SERIES_EVERY_MS = 60_000;
/** Keys remembered for aggregation; the oldest go first. */
const MAX_KEYS = 4096;

/** MicroTime as the API server wants it: RFC 3339 with six fractional digits. */
export function microTime(at: Date): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
  first: number;
  lastSent: number;
}

export class EventRecorder {
  private readonly seen = new Map<string, Seen>();
  private readonly instance: string;

  constructor(
    private readonly api: () => EventApi,
    private readonly now: () => Date = () => new Date(),
    instance = hostname(),
  ) {
    this.instance = instance.slice(0, 128);
  }

  /** The Event object for an input, named after its target and a digest of what it says. */
  event(input: EventInput, key: string, at: Date): { name: string; namespace: string; body: Record<string, unknown> } {
    const namespace = input.target.namespace || 'default';
    const digest = createHash('sha256').update(key).digest('hex').slice(0, 12);
    const name = `${input.target.name.slice(0, 200)}.${digest}`;
    const regarding: Record<string, unknown> = { apiVersion: input.target.apiVersion, kind: input.target.kind, name: input.target.name };
    if (input.target.namespace) regarding['namespace'] = input.target.namespace;
    if (input.target.uid) regarding['uid'] = input.target.uid;
    return {
      name,
      namespace,
      body: {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name, namespace },
        eventTime: microTime(at),
        reportingController: 'metaops',
        reportingInstance: this.instance,
        action: input.action,
        reason: input.reason,
        note: input.note.length > NOTE_MAX ? `${input.note.slice(0, NOTE_MAX - 3)}...` : input.note,
        type: input.type,
        regarding,
      },
    };
  }

  /**
   * Records the Event: a new one the first time, the series count after, no call at all for a repeat within
   * SERIES_EVERY_MS of the last one sent. Never throws: an Event that cannot be written is logged by the caller.
   */
  async record(input: EventInput): Promise<'created' | 'series' | 'suppressed'> {
    const at = this.now();
    const t = at.getTime();
    const key = [input.target.uid ?? `${input.target.namespace}/${input.target.kind}/${input.target.name}`, input.type, input.reason, input.note].join('\u0000');
    const seen = this.seen.get(key);
    if (seen && t - seen.first < AGGREGATE_MS) {
      seen.count++;
      if (t - seen.lastSent < SERIES_EVERY_MS) return 'suppressed';
      seen.lastSent = t;
      await this.api().patchEvent(seen.namespace, seen.name, { series: { count: seen.count, lastObservedTime: microTime(at) } });
      return 'series';
    }
    // Named after the target and a digest of what it says and when it was first seen: a new Event per window.
    const { name, namespace, body } = this.event(input, `${key}\u0000${t}`, at);
    this.remember(key, { name, namespace, count: 1, first: t, lastSent: t });
    const created = await this.api().createEvent(namespace, body);
    if (created) return 'created';
    // An Event of that name exists (another replica wrote it in the same millisecond): continue its series.
    const entry = this.seen.get(key)!;
    entry.count = 2;
    await this.api().patchEvent(namespace, name, { series: { count: entry.count, lastObservedTime: microTime(at) } });
    return 'series';
  }

  private remember(key: string, value: Seen): void {
    this.seen.delete(key);
    if (this.seen.size >= MAX_KEYS) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, value);
  }
}
