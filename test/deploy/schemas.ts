/**
 * Validates rendered manifests against the Kubernetes OpenAPI schemas (kubernetes-models) and the Prometheus
 * Operator CRD schemas (@kubernetes-models/prometheus-operator). cert-manager objects have no schema package here:
 * they get the structural checks cert-manager's webhook applies to the fields we use.
 */
import { ConfigMap, Namespace, ResourceQuota, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import type { KubeObject } from './kustomize.js';

type Validator = (object: KubeObject) => void;

function model(Model: new (data: never) => { validate(): void }): Validator {
  return (object) => new Model(object as never).validate();
}

const VALIDATORS: Record<string, Validator> = {
  'v1/Namespace': model(Namespace),
  'v1/ResourceQuota': model(ResourceQuota),
  'v1/ServiceAccount': model(ServiceAccount),
  'v1/ConfigMap': model(ConfigMap),
  'v1/Service': model(Service),
  'apps/v1/Deployment': model(Deployment),
  'policy/v1/PodDisruptionBudget': model(PodDisruptionBudget),
  'networking.k8s.io/v1/NetworkPolicy': model(NetworkPolicy),
  'rbac.authorization.k8s.io/v1/ClusterRole': model(ClusterRole),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': model(ClusterRoleBinding),
  'rbac.authorization.k8s.io/v1/Role': model(Role),
  'rbac.authorization.k8s.io/v1/RoleBinding': model(RoleBinding),
  'monitoring.coreos.com/v1/ServiceMonitor': model(ServiceMonitor),
  'monitoring.coreos.com/v1/PrometheusRule': model(PrometheusRule),
  'cert-manager.io/v1/Certificate': validateCertificate,
  'cert-manager.io/v1/ClusterIssuer': validateClusterIssuer,
};

/** Throws with the object's identity and the schema's message when the object is invalid or of an unknown kind. */
export function validateObject(object: KubeObject): void {
  const key = `${object.apiVersion}/${object.kind}`;
  const validator = VALIDATORS[key];
  if (!validator) throw new Error(`no schema for ${key} (${object.metadata?.name}); add one to test/deploy/schemas.ts`);
  try {
    validator(object);
  } catch (error) {
    throw new Error(`${key} ${object.metadata.namespace ?? ''}/${object.metadata.name}: ${(error as Error).message}`);
  }
}

const DURATION = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;
const CERTIFICATE_USAGES = new Set(['signing', 'digital signature', 'content commitment', 'key encipherment',
  'key agreement', 'data encipherment', 'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any',
  'server auth', 'client auth', 'code signing', 'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel',
  'ipsec user', 'timestamping', 'ocsp signing', 'microsoft sgc', 'netscape sgc']);

function validateCertificate(object: KubeObject): void {
  const spec = object.spec as Record<string, unknown> | undefined;
  if (!object.metadata.namespace) throw new Error('Certificate is namespaced: metadata.namespace missing');
  if (!spec || typeof spec.secretName !== 'string' || spec.secretName === '') throw new Error('spec.secretName required');
  const issuer = spec.issuerRef as Record<string, unknown> | undefined;
  if (!issuer || typeof issuer.name !== 'string') throw new Error('spec.issuerRef.name required');
  if (issuer.kind !== undefined && issuer.kind !== 'Issuer' && issuer.kind !== 'ClusterIssuer') {
    throw new Error(`spec.issuerRef.kind ${String(issuer.kind)} unknown`);
  }
  const names = [spec.commonName, ...((spec.dnsNames as unknown[]) ?? [])].filter((n) => n !== undefined);
  if (names.length === 0) throw new Error('at least one of commonName or dnsNames required');
  for (const field of ['duration', 'renewBefore'] as const) {
    if (spec[field] !== undefined && !DURATION.test(String(spec[field]))) throw new Error(`spec.${field} not a duration`);
  }
  for (const usage of (spec.usages as string[]) ?? []) {
    if (!CERTIFICATE_USAGES.has(usage)) throw new Error(`spec.usages: unknown usage ${usage}`);
  }
  const key = spec.privateKey as Record<string, unknown> | undefined;
  if (key?.algorithm === 'ECDSA' && ![undefined, 256, 384, 521].includes(key.size as number)) {
    throw new Error('spec.privateKey.size must be 256, 384 or 521 for ECDSA');
  }
}

function validateClusterIssuer(object: KubeObject): void {
  if (object.metadata.namespace) throw new Error('ClusterIssuer is cluster-scoped: no metadata.namespace');
  const spec = object.spec as Record<string, unknown> | undefined;
  const kinds = ['selfSigned', 'ca', 'acme', 'vault', 'venafi'].filter((k) => spec?.[k] !== undefined);
  if (kinds.length !== 1) throw new Error('exactly one issuer type (selfSigned, ca, ...) required');
  if (spec?.ca !== undefined && typeof (spec.ca as Record<string, unknown>).secretName !== 'string') {
    throw new Error('spec.ca.secretName required');
  }
}
