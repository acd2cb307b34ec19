// Validating a parent's spec against its TypeBox schema, with defaults applied.
//
// The same schema generates the CRD, so the API server already rejects most bad specs; the hook checks again
// because not everything can be said in a structural schema (a version format on a field that YAML may turn
// into a number), because the hooks are also called directly, and because a CRD may lag behind the hook.
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';

export type SpecResult<T> = { ok: true; spec: T } | { ok: false; message: string };

export interface SpecParser<S extends TSchema> {
  schema: S;
  parse(spec: unknown): SpecResult<Static<S>>;
}

/** Compiles the schema once; parse() clones, fills defaults, then checks. */
export function specParser<S extends TSchema>(schema: S, extra?: (spec: Static<S>) => string | undefined): SpecParser<S> {
  const check: TypeCheck<S> = TypeCompiler.Compile(schema);
  return {
    schema,
    parse(spec: unknown): SpecResult<Static<S>> {
      const value = Value.Default(schema, Value.Clone(spec ?? {}));
      if (!check.Check(value)) {
        return { ok: false, message: describeErrors(check, value) };
      }
      const problem = extra?.(value);
      if (problem) return { ok: false, message: problem };
      return { ok: true, spec: value };
    },
  };
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
