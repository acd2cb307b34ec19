// PodBuggerTool, debug.metaops.dev/v1alpha1: pods whose labels match get an ephemeral debug container.
import { Type, type Static } from '@sinclair/typebox';
import {
  commonPrinterColumns,
  Conditions,
  LabelSelectorRequirement,
  MAX_IMAGE_LENGTH,
  type ResourceDefinition,
  stringMap,
} from '../../lib/index.js';

/** A label key (an optional DNS-subdomain prefix, a slash, a name) and a label value, at their Kubernetes maxima. */
const LABEL_KEY_LENGTH = 317;
const LABEL_VALUE_LENGTH = 63;
/**
 * What a debug container runs, and its selector, bounded so that the injector's request, which carries every tool of
 * the pod's namespace (Metacontroller v4 sends related objects whole), stays within the hook server's 8 MiB body
 * limit with TOOLS_PER_REQUEST tools at these bounds (test/podbuggertool/injector-request-bounded-by-tools.test.ts).
 * The limit counts bytes as Metacontroller writes them (Go's encoding/json, lib/go-json.ts), where one character of
 * the strings a tenant writes freely may take six (`<`, `>`, `&`, U+2028, U+2029 are written `\u003c`...), and the
 * CRD bounds characters: so the bounds are set for that worst case, each character counted six bytes. A spec is
 * then at most about 128 KB as sent, its command, args and env (15,360 characters) 92 KB of it; before, strings of
 * `<` within 32 strings of 1024 characters (and env values of 1024) made 680 KB, and 32 such tools a request of
 * 20 MiB (test/podbuggertool/injector-request-bounded-by-tools-as-metacontroller-encodes-them.test.ts).
 */
export const SPEC_BOUNDS = {
  /** command and args, each. */
  arguments: { maxItems: 16, maxLength: 384 },
  env: { maxItems: 16, nameLength: 64, valueLength: 128 },
  matchExpressions: { maxItems: 16, maxValues: 16 },
} as const;
/**
 * The tools of one namespace at SPEC_BOUNDS, each with the largest status the hook writes (MAX_LISTED_PODS), that one
 * injector request holds within the 8 MiB body limit with room to spare, beside the largest pod the API server stores
 * (1.5 MiB, however it grew: 15 containers of tools at these bounds make 1.34 MiB): 7.2 MiB as Metacontroller writes
 * it, every string a tenant or the kubelet writes of `<` (test/podbuggertool/injector-request-bounded-with-grown-pod.test.ts).
 * 50 once, before the statuses were counted; 40 before the pod was (8.05 MiB with that pod: 413).
 */
export const TOOLS_PER_REQUEST = 32;
const ARGUMENTS = SPEC_BOUNDS.arguments;

/** An environment variable name the API server takes in a container: printable ASCII (0x20-0x7E) but '='. */
export const ENV_NAME_PATTERN = '^[ -<>-~]+$';

/**
 * The pods a tool's status lists by name in `failures` and `skips` (and in `countProgress`'s): all are counted, these
 * are named. The status rides in every injector request of the namespace (a related object, sent whole), so its
 * lists are part of the request bound: 4 lists of 20 pod names of up to 253 characters, some 25 KB a tool.
 */
export const MAX_LISTED_PODS = 20;

/** The most characters of the kubelet's words a failure in the tool's status carries (its `message`). */
export const MAX_KUBELET_MESSAGE = 256;

export const PROFILES = ['general', 'baseline', 'restricted', 'netadmin', 'sysadmin'] as const;

export const PodBuggerToolSpec = Type.Object(
  {
    selector: Type.Optional(
      Type.Object(
        {
          matchLabels: Type.Optional(
            stringMap('Labels the pods carry.', {
              maxProperties: 32,
              maxValueLength: LABEL_VALUE_LENGTH,
              maxBytes: 16 * 1024,
            }),
          ),
          matchExpressions: Type.Optional(
            Type.Array(
              Type.Object({
                ...LabelSelectorRequirement.properties,
                key: Type.String({ maxLength: LABEL_KEY_LENGTH }),
                values: Type.Optional(
                  Type.Array(Type.String({ maxLength: LABEL_VALUE_LENGTH }), {
                    maxItems: SPEC_BOUNDS.matchExpressions.maxValues,
                  }),
                ),
              }),
              { maxItems: SPEC_BOUNDS.matchExpressions.maxItems },
            ),
          ),
        },
        { description: 'The pods to debug: a standard label selector.' },
      ),
    ),
    label: Type.Optional(
      Type.String({
        maxLength: LABEL_KEY_LENGTH + 1 + LABEL_VALUE_LENGTH,
        pattern: '^[A-Za-z0-9./_-]+(=[A-Za-z0-9._-]*)?$',
        description: 'Shorthand for a selector of one label: "key=value" (or "key": the label exists).',
      }),
    ),
    image: Type.String({ minLength: 1, maxLength: MAX_IMAGE_LENGTH, description: 'The debug container image.' }),
    command: Type.Optional(
      Type.Array(Type.String({ maxLength: ARGUMENTS.maxLength }), { maxItems: ARGUMENTS.maxItems }),
    ),
    args: Type.Optional(Type.Array(Type.String({ maxLength: ARGUMENTS.maxLength }), { maxItems: ARGUMENTS.maxItems })),
    targetContainerName: Type.Optional(
      Type.String({
        maxLength: LABEL_VALUE_LENGTH,
        description: 'Share the process namespace of this container of the pod (kubectl debug --target).',
      }),
    ),
    env: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.String({
            minLength: 1,
            maxLength: SPEC_BOUNDS.env.nameLength,
            // As the API server validates a container's env names (Kubernetes 1.34 and later): printable ASCII
            // (space to ~), without '='. Anything else would be refused on every pod, once an hour each.
            pattern: ENV_NAME_PATTERN,
            description: "The variable's name: printable ASCII characters, without '=' (as the API server takes them).",
          }),
          value: Type.Optional(Type.String({ maxLength: SPEC_BOUNDS.env.valueLength })),
        }),
        { maxItems: SPEC_BOUNDS.env.maxItems },
      ),
    ),
    securityProfile: Type.Union(
      PROFILES.map((p) => Type.Literal(p)),
      {
        default: 'baseline',
        description:
          "Security context of the container, as kubectl debug --profile: baseline (no capability added; the default), restricted (non-root, every capability dropped), general (SYS_PTRACE), netadmin (NET_ADMIN, NET_RAW), sysadmin (privileged). The server's METAOPS_DEBUG_PROFILES says which may be used (baseline and restricted unless the administrator adds others).",
      },
    ),
    runAsUser: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2147483647,
        description:
          "The user ID the debug container runs as (not root). The restricted profile needs a non-root user the hook can see: this, or the pod's securityContext.runAsUser.",
      }),
    ),
  },
  { description: 'PodBuggerToolSpec: which pods, and the debug container to add to them.' },
);
export type PodBuggerToolSpec = Static<typeof PodBuggerToolSpec>;

const PodReasons = (description: string) =>
  Type.Array(
    Type.Object(
      {
        pod: Type.String({
          description: "The pod's name; empty when the tool's author may not list pods in the namespace.",
        }),
        reason: Type.String({
          description: 'A stable reason (Forbidden, RunsAsRoot, PodCompleted, ...): no raw error text.',
        }),
        message: Type.Optional(
          Type.String({
            maxLength: MAX_KUBELET_MESSAGE,
            description:
              "ContainerNotCreated: the kubelet's reason and words (CreateContainerError: ...), the runtime's IDs written <id>, cut to 256 characters; absent when the pod is not named.",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    { maxItems: MAX_LISTED_PODS, description },
  );

/** Why a pod cannot take a tool's container (match.ts podState): a fixed set, so counts by reason stay bounded. */
export const SKIP_REASONS = [
  'PodCompleted',
  'MirrorPod',
  'WindowsPod',
  'TargetContainerMissing',
  'ContainerNameTaken',
  'RunsAsRoot',
  'TooLargeToRead',
  'TooLargeToSend',
  'ToolsTooLargeToSend',
] as const;

/** The skipped pods counted by reason: every one of them (`skips` names only the first MAX_LISTED_PODS). */
const SkippedBy = (description: string) =>
  Type.Object(Object.fromEntries(SKIP_REASONS.map((r) => [r, Type.Optional(Type.Integer({ minimum: 1 }))])), {
    additionalProperties: false,
    description,
  });

export const PodBuggerToolStatus = Type.Object(
  {
    matched: Type.Optional(Type.Integer({ description: 'Pods of the namespace the tool selects (not terminating).' })),
    injected: Type.Optional(
      Type.Integer({
        description: "Matching pods that carry the debug container as the tool's current spec makes it.",
      }),
    ),
    outdated: Type.Optional(
      Type.Integer({
        description:
          'Matching pods that carry the debug container as an earlier spec made it: another image, command, args, env, security profile or target container (ephemeral containers cannot be changed).',
      }),
    ),
    pending: Type.Optional(
      Type.Integer({
        description: 'Matching pods that do not carry it yet, and have neither failed nor been skipped.',
      }),
    ),
    skipped: Type.Optional(
      Type.Integer({
        description:
          'Matching pods that cannot take the container: completed (Succeeded or Failed), without the target container, or running it as root under the restricted profile (see skips).',
      }),
    ),
    failed: Type.Optional(
      Type.Integer({
        description:
          'Matching pods the debug container could not be added to, or where it does not run: the kubelet refused it as root, cannot pull its image, cannot create or start it, or it exited (see failures and the Ready condition).',
      }),
    ),
    notRunning: Type.Optional(
      Type.Integer({
        description:
          "Of the failed pods, those that carry the container where it does not run (RunsAsRoot, ImagePullFailed, ContainerNotCreated, ContainerExited: the kubelet's), every one of them: never retried.",
      }),
    ),
    failures: Type.Optional(
      PodReasons(
        'The failed pods, by name (up to 20): a PATCH that failed is retried; a container the kubelet does not run (RunsAsRoot, ImagePullFailed, ContainerNotCreated, ContainerExited) stays as it is until the pod is deleted.',
      ),
    ),
    skips: Type.Optional(PodReasons('The skipped pods, by name (up to 20).')),
    skippedBy: Type.Optional(
      SkippedBy(
        'The skipped pods counted by reason, every one of them (skips names the first 20): what Ready says is of these counts.',
      ),
    ),
    containerName: Type.Optional(Type.String({ description: 'The ephemeral container name this tool adds.' })),
    countedAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'When the counts last changed. They are recounted every 10 s while pods are pending or failing, and at every resync (60 s) otherwise.',
      }),
    ),
    countProgress: Type.Optional(
      Type.Object(
        {
          generation: Type.Integer({ description: 'The generation of the spec the count is of.' }),
          continue: Type.String({
            maxLength: 4096,
            description:
              "The API server's continue token of the next page, sealed by the hook server (encrypted and bound to the tool: the API server's token names the next pod).",
          }),
          read: Type.Integer({ description: 'Pods read so far.' }),
          matched: Type.Integer(),
          injected: Type.Integer(),
          outdated: Type.Integer(),
          pending: Type.Integer(),
          skipped: Type.Integer(),
          failed: Type.Integer(),
          notRunning: Type.Integer(),
          failures: PodReasons('The failed pods of the pages read so far, by name (up to 20).'),
          skips: PodReasons('The skipped pods of the pages read so far, by name (up to 20).'),
          skippedBy: SkippedBy('The skipped pods of the pages read so far, counted by reason.'),
        },
        {
          description:
            'A count of a spec not yet counted, cut short by its time budget, resumed at the next sync from the next page (absent once complete). A spec changed since, or a token the API server has expired (410), starts the count again. A spec already counted keeps its last complete status while it is counted again (the hook server remembers that count).',
        },
      ),
    ),
    observedGeneration: Type.Optional(Type.Integer()),
    conditions: Type.Optional(Conditions),
  },
  { additionalProperties: false },
);

export const resource: ResourceDefinition = {
  group: 'debug.metaops.dev',
  version: 'v1alpha1',
  kind: 'PodBuggerTool',
  plural: 'podbuggertools',
  singular: 'podbuggertool',
  shortNames: ['pbt'],
  scope: 'Namespaced',
  categories: ['metaops'],
  description: 'PodBuggerTool adds an ephemeral debug container to the pods of its namespace whose labels match.',
  spec: PodBuggerToolSpec,
  status: PodBuggerToolStatus,
  printerColumns: [
    { name: 'IMAGE', type: 'string', jsonPath: '.spec.image' },
    { name: 'MATCHED', type: 'integer', jsonPath: '.status.matched' },
    { name: 'INJECTED', type: 'integer', jsonPath: '.status.injected' },
    { name: 'PENDING', type: 'integer', jsonPath: '.status.pending' },
    { name: 'READY', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', priority: 1 },
    commonPrinterColumns.age,
  ],
};
