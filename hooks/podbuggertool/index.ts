import type { CompositeHookDefinition, DecoratorHookDefinition } from '../../lib/hook.js';
import { resource } from './schema.js';
import { customizePod, customizeTool, syncPod, syncTool } from './sync.js';

/** The pods: a DecoratorController whose hooks add the debug containers (`/hooks/podbuggertool/...`). */
export const podbuggertool: DecoratorHookDefinition = {
  type: 'decorator',
  name: 'podbuggertool',
  resources: [{ apiVersion: 'v1', resource: 'pods' }],
  attachments: [],
  effects: true,
  sync: (request, ctx) => syncPod(request, { kube: ctx.deps.kube(), policy: ctx.deps.debugPolicy, now: ctx.deps.now(), log: ctx.log }),
  customize: () => customizePod(),
};

/** The tools: a CompositeController (no children) that reports their status (`/hooks/podbuggertool-status/...`). */
export const podbuggertoolStatus: CompositeHookDefinition = {
  type: 'composite',
  name: 'podbuggertool-status',
  resource,
  childResources: [],
  sync: (request, ctx) => syncTool(request, ctx.deps.debugPolicy, ctx.deps.now()),
  customize: (request) => customizeTool(request),
};
