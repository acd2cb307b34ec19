import type { CompositeHookDefinition } from '../../lib/hook.js';
import { resource } from './schema.js';
import { customizeTool, syncTool } from './sync.js';

/**
 * The tools: a CompositeController (no children) whose customize hook asks for the pods each tool selects, and
 * whose sync hook adds the tool's ephemeral container to them and reports (`/hooks/podbuggertool/...`). No hook
 * is called about a pod no tool selects.
 */
export const podbuggertool: CompositeHookDefinition = {
  type: 'composite',
  name: 'podbuggertool',
  resource,
  childResources: [],
  // The sync hook adds ephemeral containers through the Kubernetes API: it serves only authenticated callers.
  effects: true,
  sync: (request, ctx) => syncTool(request, { kube: ctx.deps.kube(), policy: ctx.deps.debugPolicy, now: ctx.deps.now(), log: ctx.log }),
  customize: (request) => customizeTool(request),
};
