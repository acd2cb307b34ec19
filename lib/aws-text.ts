// AWS's error text, as a tenant may read it in a status or an Event: without the operator's account and IAM identity.
// Shared by every kind that copies what AWS said into a tenant-visible place (S3, EtcdBackup's Job results).

/**
 * AWS's words as a tenant may read them (a condition, an Event): without the operator's account ID and IAM identity,
 * which AWS puts in its errors ("User: arn:aws:iam::123456789012:user/metaops is not authorized to perform ...").
 * The name of every IAM principal in an ARN becomes `<name>`, every run of exactly 12 digits (in an ARN, after
 * "account", or bare: AWS names the account in many shapes, and a number of exactly that length is taken for one
 * wherever it stands, even inside a name) `<account>`, an access key ID (AKIA..., ASIA...) `<access key>`,
 * and an IAM unique ID (AIDA... a user, AROA... a role, AGPA..., AIPA..., ANPA..., ANVA..., APKA..., ASCA...,
 * ACCA..., ABIA...; what `aws:userid` and assumed-role sessions show) `<unique id>`. Keys and IDs go first, so
 * that no part of one is left around an `<account>`.
 */
export function scrubAwsText(text: string): string {
  return text
    .replace(/(:(?:user|role|assumed-role|federated-user|group)\/)[^\s"',;)]+/g, '$1<name>')
    .replace(/(?<![0-9A-Za-z])(?:AKIA|ASIA)[A-Z0-9]{12,}(?![0-9A-Za-z])/g, '<access key>')
    .replace(/(?<![0-9A-Za-z])A(?:IDA|ROA|GPA|IPA|NPA|NVA|PKA|SCA|CCA|BIA)[A-Z0-9]{12,}(?![0-9A-Za-z])/g, '<unique id>')
    .replace(/(?<![0-9])[0-9]{12}(?![0-9])/g, '<account>');
}
