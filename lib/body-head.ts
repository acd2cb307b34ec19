// Who a request over the body limit is about. Such a request is refused (413) before its body is read, so its hook
// never runs, no status is written and, without this, nothing the user sees says why (a PodSet whose pods all crash
// with long termination messages, docs/podset.md Bounds). The start of the body names the object: Metacontroller
// writes the request's fields in order (`controller`, then `parent` or `object`) and the object's keys sorted
// (`apiVersion`, `kind`, `metadata`: `annotations`, ..., `name`, `namespace`, ..., `uid`), so its identity is within
// the first bytes unless its own metadata is as large as that. Read by hand, by type, never past HEAD_BYTES.
import type { ParentObject } from './metacontroller.js';
import { parseJson } from './parse-json.js';

/** The most of an oversized body read to find who it is about (the controller, and the object's metadata). */
export const HEAD_BYTES = 1024 * 1024;

/** The top-level keys that hold the object a hook request is about (composite and decorator requests). */
const SUBJECT_KEYS = new Set(['parent', 'object']);

/** The fields of the subject read, by their path below it. */
const WANTED = new Map<string, Field>([
  ['apiVersion', 'apiVersion'],
  ['kind', 'kind'],
  ['metadata/name', 'name'],
  ['metadata/namespace', 'namespace'],
  ['metadata/uid', 'uid'],
  ['metadata/deletionTimestamp', 'deletionTimestamp'],
]);

/** The string literal at `text[start]` (its opening quote): its end (after the closing quote), or -1 if cut. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return -1;
    let slashes = 0;
    for (let j = quote - 1; j > start && text[j] === '\\'; j--) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/** A string literal's value, or undefined when it is not one. */
function literal(text: string): string | undefined {
  try {
    const v = parseJson(text);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

type Field = 'apiVersion' | 'kind' | 'name' | 'namespace' | 'uid' | 'deletionTimestamp';

/** The walk over a body's start: the containers open from the top, and the subject's fields found so far. */
class HeadWalk {
  readonly found: Partial<Record<Field, string>> = {};
  /** The key of the value open at each depth (`path[d]`: at depth d+1; the top's is ''). */
  private readonly path: string[] = [];
  /** Whether each open container is an object (keys come next after `{` or `,`). */
  private readonly isObject: boolean[] = [];
  private expectKey = false;
  private pendingKey: string | undefined;
  private inSubject = false;
  /** The subject has closed (or, with `untilNamespace`, its namespace was found): nothing more to read. */
  done = false;
  /** Whether the subject has closed. */
  closed = false;

  constructor(private readonly untilNamespace = false) {}

  /** A whole string literal `text` (quotes included). */
  string(text: string): void {
    const depth = this.isObject.length;
    if (this.expectKey) {
      // Keys are decoded only where a wanted field may be: the top, the subject and its metadata.
      this.pendingKey = depth <= 3 ? (literal(text) ?? '') : '';
      this.expectKey = false;
      return;
    }
    const key = this.pendingKey;
    this.pendingKey = undefined;
    if (!this.inSubject || key === undefined) return;
    const field = WANTED.get([...this.path.slice(2, depth), key].join('/'));
    if (!field || this.found[field] !== undefined) return;
    const value = literal(text);
    if (value === undefined) return;
    this.found[field] = value;
    if (field === 'namespace' && this.untilNamespace) this.done = true;
  }

  open(object: boolean): void {
    this.path.push(this.pendingKey ?? '');
    this.isObject.push(object);
    if (this.isObject.length === 2) this.inSubject = object && SUBJECT_KEYS.has(this.path[1]!);
    this.pendingKey = undefined;
    this.expectKey = object;
  }

  close(): void {
    this.path.pop();
    this.isObject.pop();
    if (this.inSubject && this.isObject.length === 1) this.done = this.closed = true;
    this.pendingKey = undefined;
  }

  comma(): void {
    this.pendingKey = undefined;
    this.expectKey = this.isObject[this.isObject.length - 1] === true;
  }
}

/**
 * The object a hook request is about, as far as the start of its body names it (apiVersion, kind, name, namespace,
 * uid, and deletionTimestamp, which sorts before the name; strings only), or undefined when the start does not name it (a name and a kind at least). `head` may be cut
 * anywhere. Linear in its length; no value but those fields is decoded.
 */
export function subjectOfHead(head: string): ParentObject | undefined {
  const { found } = walked(head, new HeadWalk());
  if (!found.name || !found.kind) return undefined;
  const metadata: ParentObject['metadata'] = { name: found.name };
  if (found.namespace) metadata.namespace = found.namespace;
  if (found.uid) metadata.uid = found.uid;
  if (found.deletionTimestamp) metadata.deletionTimestamp = found.deletionTimestamp;
  return { apiVersion: found.apiVersion ?? '', kind: found.kind, metadata };
}

/**
 * The namespace of the object a hook request is about, as far as the start of its body tells it: the namespace once
 * read, '' when the object has closed without one (a cluster-scoped object, or a body that names none), undefined
 * when the start ends before either (`head` may be cut anywhere). The walk stops at the namespace: the object's
 * metadata keys are sorted, and the namespace comes after its annotations, labels and managedFields, which are the
 * tenant's to make large (lib/body-budget.ts reads at most NAMESPACE_HEAD_BYTES for it).
 */
export function namespaceOfHead(head: string): string | undefined {
  const walk = walked(head, new HeadWalk(true));
  return walk.found.namespace ?? (walk.closed ? '' : undefined);
}

/** `walk` over `head`, up to its end or until the walk is done. */
function walked(head: string, walk: HeadWalk): HeadWalk {
  for (let i = 0; i < head.length && !walk.done; i++) {
    const c = head[i];
    if (c === '"') {
      const end = stringEnd(head, i);
      if (end < 0) break;
      walk.string(head.slice(i, end));
      i = end - 1;
    } else if (c === '{' || c === '[') walk.open(c === '{');
    else if (c === '}' || c === ']') walk.close();
    else if (c === ',') walk.comma();
  }
  return walk;
}
