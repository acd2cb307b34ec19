import { defineComposite } from '../../lib/operator.js';
import { parser, policyProblems } from './match.js';
import { resource } from './schema.js';
import { customizeTool, syncTool, toolSettings } from './sync.js';

/**
 * The tools: a CompositeController (no children) whose customize hook asks for the pods each tool selects, and
 * whose sync hook adds the tool's ephemeral container to them and reports (`/hooks/podbuggertool/...`). No hook
 * is called about a pod no tool selects.
 */
export const podbuggertool = defineComposite({
  name: 'podbuggertool',
  resource,
  spec: parser,
  settings: toolSettings,
  // No children: the debug containers are added to pods through the API (the status lists at most 100 failures).
  answerBudget: { estimate: () => ({ bytes: 0, what: 'no children' }), advice: '' },
  // METAOPS_DEBUG_*: a wrong setting stops the server at start, naming it.
  configProblems: policyProblems,
  childResources: [],
  // The sync hook adds ephemeral containers through the Kubernetes API: it serves only authenticated callers.
  effects: true,
  sync: syncTool,
  customize: customizeTool,
});
