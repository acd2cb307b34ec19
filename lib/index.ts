// The framework's front door: what an operator (hooks/<kind>/) may use. Lint lets hooks/ import lib/ only through
// this file and lib/testing.ts (what an operator's tests may use); everything else in lib/ is the framework's own.
export * from './aws-text.js';
export * from './budget.js';
export * from './children.js';
export * from './conditions.js';
export * from './errors.js';
export * from './events.js';
export * from './go-json.js';
export * from './hook.js';
export * from './http.js';
export {
  asGiven,
  IMAGE_HOST,
  IMAGE_PATH_SEGMENT,
  imageAtTag,
  imageTag,
  imageText,
  type ImageRef,
  isRegistryHost,
  normalRegistry,
  parseImage,
  resolvedImage,
  sameImageTag,
} from './images.js';
export * from './kube.js';
export * from './labels.js';
export * from './network-policy.js';
export * from './policy-at-deletion.js';
export * from './policy-finalizer.js';
export * from './metacontroller.js';
export * from './names.js';
export * from './objects.js';
export {
  defineComposite,
  defineDecorator,
  type CompositeOperator,
  type DecorateHook,
  type DecoratorOperator,
  type FinalizeHook,
  type RefusedHook,
  type SyncHook,
} from './operator.js';
export * from './ownership.js';
export { ordinalPodNames, podHolderRules, podHolderWants } from './podholders.js';
export { holderJudge, holderRules, holderWants, namingsOf, type NameShape } from './holders.js';
export * from './replicas.js';
export { perReplica, replicasOf, REPLICAS_ENV } from './server-replicas.js';
export * from './schemas.js';
export * from './shares.js';
export * from './namespace-calls.js';
export * from './spec.js';
export * from './storage-class.js';
export * from './values.js';
export * from './pod-policy.js';
export * from './parent-label.js';
export * from './tls-inspect.js';
export {
  DEFAULT_BODY_LIMIT,
  MAX_BODY_LIMIT,
  STATIC_VOLUMES_ENV,
  ETCD_REFERENCES_ENV,
  etcdReferencesAllowed,
  etcdReferencesProblems,
  staticVolumeRefusal,
  staticVolumesAllowed,
  staticVolumesProblems,
  SERVER_NAMESPACE_ENV,
  SERVER_POD_LABELS,
  serverNamespaceOf,
  serverNamespaceProblems,
} from './config.js';
export { parseJson } from './parse-json.js';
