// Validating a parent's spec against its TypeBox schema, with defaults applied.
//
// The same schema generates the CRD, so the API server already rejects most bad specs; the hook checks again
// because not everything can be said in a structural schema (a version format on a field that YAML may turn
// into a number), because the hooks are also called directly, and because a CRD may lag behind the hook.
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { MAX_BYTES } from './schemas.js';
import { parseJson } from './parse-json.js';

export type SpecResult<T> = { ok: true; spec: T } | { ok: false; message: string };

export interface SpecParser<S extends TSchema> {
  schema: S;
  parse(spec: unknown): SpecResult<Static<S>>;
}

/**
 * Compiles the schema once. parse() takes a spec that already carries every default as it is (the API server
 * fills the CRD's defaults, which come from this same schema, so that is what Metacontroller sends); any other
 * spec is cloned and defaulted first. Either way the spec is then checked. Hooks never modify the spec.
 */
export function specParser<S extends TSchema>(
  schema: S,
  extra?: (spec: Static<S>) => string | undefined,
): SpecParser<S> {
  const check: TypeCheck<S> = TypeCompiler.Compile(schema);
  const complete = defaultsPresent(schema);
  const sized = byteBounds(schema);
  return {
    schema,
    parse(spec: unknown): SpecResult<Static<S>> {
      const value =
        spec !== undefined && spec !== null && complete(spec) ? spec : Value.Default(schema, cloneData(spec ?? {}));
      if (!check.Check(value)) {
        return { ok: false, message: describeErrors(check, value) };
      }
      const problem = oversized(sized, value) ?? extra?.(value);
      if (problem) return { ok: false, message: problem };
      return { ok: true, spec: value };
    },
  };
}

/** A field whose value may be at most `max` bytes as JSON: its path from the spec (`*`: any key, `[]`: any item). */
interface ByteBound {
  path: string[];
  max: number;
}

/**
 * The fields of a schema that carry a bound on their size as JSON (MAX_BYTES, lib/schemas.ts): found once, when
 * the parser is made, through properties, list items and map values.
 */
export function byteBounds(schema: TSchema, path: string[] = []): ByteBound[] {
  const s = schema as Record<string, unknown>;
  const out: ByteBound[] = [];
  if (typeof s[MAX_BYTES] === 'number') out.push({ path, max: s[MAX_BYTES] });
  for (const [key, sub] of Object.entries((s['properties'] ?? {}) as Record<string, TSchema>))
    out.push(...byteBounds(sub, [...path, key]));
  if (s['items'] && !Array.isArray(s['items'])) out.push(...byteBounds(s['items'] as TSchema, [...path, '[]']));
  for (const sub of Object.values((s['patternProperties'] ?? {}) as Record<string, TSchema>))
    out.push(...byteBounds(sub, [...path, '*']));
  return out;
}

/** The first field over its bound, said with its path and size; undefined when every one fits. */
function oversized(bounds: readonly ByteBound[], spec: unknown): string | undefined {
  for (const bound of bounds) {
    let found: string | undefined;
    visit(spec, bound.path, 'spec', (value, at) => {
      const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
      if (bytes > bound.max) found ??= `${at} is ${bytes} bytes as JSON: at most ${bound.max}`;
    });
    if (found) return found;
  }
  return undefined;
}

/** Calls `fn` with every value at `path` below `value` (a valid spec: lists and objects where the schema says). */
function visit(value: unknown, path: readonly string[], at: string, fn: (value: unknown, at: string) => void): void {
  if (value === undefined) return;
  if (path.length === 0) return fn(value, at);
  const [step, ...rest] = path as [string, ...string[]];
  if (step === '[]') {
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, rest, `${at}[${i}]`, fn));
  } else if (value !== null && typeof value === 'object') {
    const keys = step === '*' ? Object.keys(value) : Object.hasOwn(value, step) ? [step] : [];
    for (const key of keys) visit((value as Record<string, unknown>)[key], rest, `${at}.${key}`, fn);
  }
}

/**
 * A copy of JSON data that keeps every key as data. TypeBox's Value.Clone assigns keys one by one, so a key named
 * `__proto__` (a label, a tag, a nodeSelector entry) became the copy's prototype: dropped from the data, and its
 * contents readable through inheritance. JSON.parse defines such keys as own properties. Neither JSON.parse nor
 * JSON.stringify (without a replacer) recurses in V8, so the round trip is safe at any depth (lib/json.ts).
 */
export function cloneData<T>(value: T): T {
  return parseJson(JSON.stringify(value)) as T;
}

type Present = (value: unknown) => boolean;
const always: Present = () => true;
const never: Present = () => false;

/**
 * A test, built once from the schema, of whether a value already has every default the schema declares
 * (where a default would apply: a missing property of an object that is there). Schemas it does not know how
 * to read (unions, maps) answer "no" when they hold a default, which sends the value through Value.Default.
 */
export function defaultsPresent(schema: TSchema): Present {
  const s = schema as Record<string, unknown>;
  // Its own default is the enclosing object's business (the property must be there); what is inside counts here.
  if (!holdsDefault({ ...s, default: undefined })) return always;
  const plainObject =
    s['type'] === 'object' &&
    !s['anyOf'] &&
    !s['oneOf'] &&
    !s['allOf'] &&
    !holdsDefault(s['additionalProperties']) &&
    !holdsDefault(s['patternProperties']);
  if (plainObject) {
    const props = Object.entries((s['properties'] ?? {}) as Record<string, TSchema>)
      .map(([key, sub]) => ({
        key,
        required: (sub as Record<string, unknown>)['default'] !== undefined,
        test: defaultsPresent(sub),
      }))
      .filter((p) => p.required || p.test !== always);
    return (v) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return true;
      const o = v as Record<string, unknown>;
      for (const p of props) {
        const x = o[p.key];
        if (x === undefined ? p.required : !p.test(x)) return false;
      }
      return true;
    };
  }
  if (s['type'] === 'array' && s['items'] && !Array.isArray(s['items'])) {
    const item = defaultsPresent(s['items'] as TSchema);
    return (v) => !Array.isArray(v) || v.every(item);
  }
  return never;
}

function holdsDefault(s: unknown): boolean {
  return typeof s === 'object' && s !== null && JSON.stringify(s).includes('"default"');
}

function describeErrors<S extends TSchema>(check: TypeCheck<S>, value: unknown): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const error of check.Errors(value)) {
    const path = 'spec' + error.path.replace(/\//g, '.');
    if (seen.has(path)) continue;
    seen.add(path);
    parts.push(
      error.value === undefined
        ? `${path} is required`
        : `${path} is ${describeValue(error.value)}: ${lowerFirst(error.message)}`,
    );
    if (parts.length >= 5) break;
  }
  return parts.length ? parts.join('; ') : 'spec is invalid';
}

function describeValue(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function lowerFirst(s: string): string {
  return s.length ? s[0]!.toLowerCase() + s.slice(1) : s;
}
