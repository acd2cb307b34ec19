// The one route list: which hooks a definition has, where each is served and whether it may act. The server's routes
// (lib/hook-routes.ts, which also says what each request is about: its body's parent or object), GET /hooks, and
// every webhook of the generated controllers (lib/manifests.ts, and through it `npm run manifests` and the Helm chart)
// read it; nothing else says which hooks exist.
import type { HookDefinition } from './hook.js';
import type { HookName } from './metacontroller.js';

/** One hook of one definition, as served and as Metacontroller is told to call it. */
export interface HookRoute {
  /** The definition's name: the route segment, /hooks/<name>/... */
  name: string;
  /** The kind the operator serves (a decorator's: its name). */
  kind: string;
  type: HookDefinition['type'];
  hook: HookName;
  method: 'POST';
  path: string;
  /** The hook acts outside Metacontroller's apply: it serves only an authenticated caller. Customize never does. */
  effects: boolean;
}

/** Where a definition's hook is served. */
export function hookPath(name: string, hook: HookName): string {
  return `/hooks/${name}/${hook}`;
}

/** The routes a definition has, in this order: sync, and finalize and customize when it defines them. */
export function routesOf(def: HookDefinition): HookRoute[] {
  const effects = def.effects === true;
  const kind = def.type === 'composite' ? def.resource.kind : def.name;
  const route = (hook: HookName, acts: boolean): HookRoute => ({
    name: def.name,
    kind,
    type: def.type,
    hook,
    method: 'POST',
    path: hookPath(def.name, hook),
    effects: acts,
  });
  const routes = [route('sync', effects)];
  if (def.finalize) routes.push(route('finalize', effects));
  // Customize answers only name related objects: pure, whatever the definition does in sync.
  if (def.customize) routes.push(route('customize', false));
  return routes;
}
