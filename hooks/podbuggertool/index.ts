import { defineComposite, defineDecorator } from '../../lib/index.js';
import { authorPolicyObjects, PER_POD } from './author.js';
import { customizeInjector, injectPod, toolClients, toolSettings } from './inject.js';
import { parser, policyProblems, policyWarnings } from './match.js';
import { resource } from './schema.js';
import { syncTool } from './sync.js';

/**
 * The injector: a DecoratorController on pods (`/hooks/podbuggertool-injector/...`), one pod per request, with the
 * PodBuggerTools of its namespace as related objects. It adds the containers of the tools that select the pod.
 */
export const podbuggertoolInjector = defineDecorator({
  name: 'podbuggertool-injector',
  // A pod's status alone (the kubelet's reports) is nothing the injector decides on: no hook call for it (v4.x).
  resources: [{ apiVersion: 'v1', resource: 'pods', ignoreStatusChanges: true }],
  attachments: [],
  settings: toolSettings,
  clients: toolClients,
  // METAOPS_DEBUG_*: a wrong setting stops the server at start, naming it; the author check off is said.
  configProblems: policyProblems,
  configWarnings: policyWarnings,
  // It adds ephemeral containers through the Kubernetes API: it serves only authenticated callers.
  effects: true,
  // No attachments: the answer is the pod's failure record (one annotation, a reason per tool of its namespace).
  answerBudget: { estimate: () => ({ bytes: 0, what: 'no attachments' }), advice: '' },
  // Its request is the pod and every PodBuggerTool of the pod's namespace: too large, it is the tools.
  tooLarge:
    "the pod's request carries every PodBuggerTool of its namespace, and together they are larger than the hook server's body limit: no tool's container is added to a pod of that namespace until some are deleted or shortened (docs/podbuggertool.md, Bounds)",
  sync: injectPod,
  customize: customizeInjector,
});

/**
 * The tools: a CompositeController without children or related objects (`/hooks/podbuggertool/...`), whose sync
 * counts, from the API server, the pods each tool selects and where they stand, and reports.
 */
export const podbuggertool = defineComposite({
  name: 'podbuggertool',
  resource,
  spec: parser,
  settings: toolSettings,
  clients: toolClients,
  // No children: the debug containers are added to pods through the API (the status lists at most MAX_LISTED_PODS failures).
  answerBudget: { estimate: () => ({ bytes: 0, what: 'no children' }), advice: '' },
  childResources: [],
  // Counted again at every resync: a pod added at rest is in the status within a minute.
  resyncPeriodSeconds: 60,
  // It reads pods and asks the API server about the tool's author: only for authenticated callers.
  effects: true,
  events: {
    action: 'Inject',
    warnings: new Set([
      'AuthorUnverified',
      'AuthorNotAllowed',
      // Allowed on some pods by name only: no refusal, but the tool acts nowhere else, which `kubectl describe` tells.
      PER_POD,
      'ImageNotAllowed',
      'ProfileNotAllowed',
      'NamespaceExcluded',
      'RunsAsRoot',
      'TargetContainerMissing',
      'ContainerNameTaken',
      'TooLargeToRead',
      'TooLargeToSend',
      'ToolsTooLargeToSend',
      'ContainerNotRunning',
      'CountIncomplete',
      'CountStale',
    ]),
  },
  // The admission policies that stamp every tool with its author and refuse any other stamp (author.ts):
  // manifests/admission/.
  manifests: () => [
    {
      file: 'admission/podbuggertool-author.yaml',
      comment:
        'Who wrote each PodBuggerTool, stamped by the API server (Kubernetes 1.36+: admissionregistration.k8s.io/v1\nMutatingAdmissionPolicy), and a ValidatingAdmissionPolicy that refuses a tool stored with any other stamp (a\nmutating webhook after the policy may rewrite it). The hook server acts for a tool only if all four objects are\nin place as shipped and its author may patch pods/ephemeralcontainers in the tool\'s namespace\n(docs/podbuggertool.md, "Who may debug").',
      objects: authorPolicyObjects(),
    },
  ],
  sync: syncTool,
});
