/**
 * The requirement lists of the frameworks, as data: id, the benchmark's own assessment class (A = Automated,
 * M = Manual) and title, one requirement a line (`id|A|title`); section titles as `id|title`. Which checks decide a
 * requirement is NOT written here: it comes from the check catalogues' own references (server/compliance/catalogue.ts),
 * so a check that gains or loses a reference moves the mapping with it.
 *
 * CIS AWS v3.0.0 (62 recommendations) and v7.0.0 (70) are listed in full. CIS GCP v4.0.0 and CIS Azure v3.0.0 / v4.0.0
 * list their manual recommendations here; their automated ones are the controls the check catalogues implement, titled
 * after the check (TITLES below overrides where a control has several checks). AWS FSBP controls are those the AWS
 * catalogue references. `MANUAL_REASONS` says why no check decides a requirement.
 */

export const CIS_AWS_V3_SECTIONS = `
1|Identity and Access Management
2|Storage
2.1|Simple Storage Service (S3)
2.2|Elastic Compute Cloud (EC2)
2.3|Relational Database Service (RDS)
2.4|Elastic File System (EFS)
3|Logging
4|Monitoring
5|Networking`

export const CIS_AWS_V3 = `
1.1|M|Maintain current contact details
1.2|M|Ensure security contact information is registered
1.3|M|Ensure security questions are registered in the AWS account
1.4|A|Ensure no 'root' user account access key exists
1.5|A|Ensure MFA is enabled for the 'root' user account
1.6|A|Ensure hardware MFA is enabled for the 'root' user account
1.7|A|Eliminate use of the 'root' user for administrative and daily tasks
1.8|A|Ensure IAM password policy requires minimum length of 14 or greater
1.9|A|Ensure IAM password policy prevents password reuse
1.10|A|Ensure multi-factor authentication (MFA) is enabled for all IAM users that have a console password
1.11|A|Do not setup access keys during initial user setup for all IAM users that have a console password
1.12|A|Ensure credentials unused for 45 days or greater are disabled
1.13|A|Ensure there is only one active access key available for any single IAM user
1.14|A|Ensure access keys are rotated every 90 days or less
1.15|A|Ensure IAM Users Receive Permissions Only Through Groups
1.16|A|Ensure IAM policies that allow full "*:*" administrative privileges are not attached
1.17|A|Ensure a support role has been created to manage incidents with AWS Support
1.18|M|Ensure IAM instance roles are used for AWS resource access from instances
1.19|A|Ensure that all the expired SSL/TLS certificates stored in AWS IAM are removed
1.20|A|Ensure that IAM Access analyzer is enabled for all regions
1.21|M|Ensure IAM users are managed centrally via identity federation or AWS Organizations for multi-account environments
1.22|M|Ensure access to AWSCloudShellFullAccess is restricted
2.1.1|A|Ensure S3 Bucket Policy is set to deny HTTP requests
2.1.2|A|Ensure MFA Delete is enabled on S3 buckets
2.1.3|M|Ensure all data in Amazon S3 has been discovered, classified and secured when required
2.1.4|A|Ensure that S3 Buckets are configured with 'Block public access (bucket settings)'
2.2.1|A|Ensure EBS Volume Encryption is Enabled in all Regions
2.3.1|A|Ensure that encryption-at-rest is enabled for RDS Instances
2.3.2|A|Ensure Auto Minor Version Upgrade feature is Enabled for RDS Instances
2.3.3|A|Ensure that public access is not given to RDS Instance
2.4.1|A|Ensure that encryption is enabled for EFS file systems
3.1|A|Ensure CloudTrail is enabled in all regions
3.2|A|Ensure CloudTrail log file validation is enabled
3.3|A|Ensure AWS Config is enabled in all regions
3.4|A|Ensure that S3 Buckets access logging is enabled on the CloudTrail S3 bucket
3.5|A|Ensure CloudTrail logs are encrypted at rest using KMS CMKs
3.6|A|Ensure rotation for customer-created symmetric CMKs is enabled
3.7|A|Ensure VPC flow logging is enabled in all VPCs
3.8|A|Ensure that Object-level logging for write events is enabled for S3 bucket
3.9|A|Ensure that Object-level logging for read events is enabled for S3 bucket
4.1|A|Ensure unauthorized API calls are monitored
4.2|A|Ensure management console sign-in without MFA is monitored
4.3|A|Ensure usage of 'root' account is monitored
4.4|A|Ensure IAM policy changes are monitored
4.5|A|Ensure CloudTrail configuration changes are monitored
4.6|A|Ensure AWS Management Console authentication failures are monitored
4.7|A|Ensure disabling or scheduled deletion of customer created CMKs is monitored
4.8|A|Ensure S3 bucket policy changes are monitored
4.9|A|Ensure AWS Config configuration changes are monitored
4.10|A|Ensure security group changes are monitored
4.11|A|Ensure Network Access Control Lists (NACL) changes are monitored
4.12|A|Ensure changes to network gateways are monitored
4.13|A|Ensure route table changes are monitored
4.14|A|Ensure VPC changes are monitored
4.15|A|Ensure AWS Organizations changes are monitored
4.16|A|Ensure AWS Security Hub is enabled
5.1|A|Ensure no Network ACLs allow ingress from 0.0.0.0/0 to remote server administration ports
5.2|A|Ensure no security groups allow ingress from 0.0.0.0/0 to remote server administration ports
5.3|A|Ensure no security groups allow ingress from ::/0 to remote server administration ports
5.4|A|Ensure the default security group of every VPC restricts all traffic
5.5|M|Ensure routing tables for VPC peering are "least access"
5.6|A|Ensure that EC2 Metadata Service only allows IMDSv2`

export const CIS_AWS_V7_SECTIONS = `
2|Identity and Access Management
2.1|AWS Organizations
3|Storage
3.1|Simple Storage Service (S3)
3.2|Relational Database Service (RDS)
3.3|Elastic File System (EFS)
4|Logging
5|Monitoring
6|Networking
6.1|Elastic Compute Cloud (EC2)`

export const CIS_AWS_V7 = `
2.1.1|M|Ensure centralized root access in AWS Organizations is enabled
2.1.2|M|Ensure preventive guardrails (service and resource control policies) are applied across the organization
2.1.3|M|Ensure the management account is not used for workloads
2.1.4|M|Ensure an organizational unit structure separates workloads by environment and sensitivity
2.1.5|M|Ensure security services use a delegated administrator account
2.1.6|M|Ensure logging and audit services use a delegated administrator account
2.2|M|Maintain current contact details
2.3|M|Ensure security contact information is registered
2.4|A|Ensure no 'root' user account access key exists
2.5|A|Ensure MFA is enabled for the 'root' user account
2.6|M|Ensure hardware MFA is enabled for the 'root' user account
2.7|M|Eliminate use of the 'root' user for administrative and daily tasks
2.8|A|Ensure IAM password policy requires minimum length of 14 or greater
2.9|A|Ensure IAM password policy prevents password reuse
2.10|A|Ensure MFA is enabled for all IAM users that have a console password
2.11|A|Ensure credentials unused for 45 days or more are disabled
2.12|A|Ensure access keys are rotated every 90 days or less
2.13|A|Ensure IAM users receive permissions only through groups
2.14|A|Ensure IAM policies that allow full "*:*" administrative privileges are not attached
2.15|A|Ensure a support role has been created to manage incidents with AWS Support
2.16|A|Ensure IAM instance roles are used for AWS resource access from instances
2.17|A|Ensure that all expired SSL/TLS certificates stored in AWS IAM are removed
2.18|A|Ensure that IAM External Access Analyzer is enabled for all regions
2.19|M|Ensure IAM users are managed centrally via identity federation or AWS Organizations
2.20|M|Ensure access to AWSCloudShellFullAccess is restricted
2.21|M|Ensure resource policies do not grant access to Principal '*' without conditions
3.1.1|A|Ensure S3 Bucket Policy is set to deny HTTP requests
3.1.2|M|Ensure MFA Delete is enabled on S3 buckets
3.1.3|M|Ensure all data in Amazon S3 has been discovered, classified, and secured when necessary
3.1.4|A|Ensure that S3 is configured with 'Block Public Access' enabled
3.2.1|A|Ensure that encryption-at-rest is enabled for RDS instances
3.2.2|A|Ensure the Auto Minor Version Upgrade feature is enabled for RDS instances
3.2.3|A|Ensure that RDS instances are not publicly accessible
3.2.4|M|Ensure Multi-AZ deployments are used for enhanced availability in Amazon RDS
3.3.1|A|Ensure that encryption is enabled for EFS file systems
4.1|M|Ensure CloudTrail is enabled in all regions
4.2|A|Ensure CloudTrail log file validation is enabled
4.3|A|Ensure AWS Config is enabled in all regions
4.4|M|Ensure server access logging is enabled on the CloudTrail S3 bucket
4.5|A|Ensure CloudTrail logs are encrypted at rest using KMS CMKs
4.6|A|Ensure rotation for customer-created symmetric CMKs is enabled
4.7|A|Ensure VPC flow logging is enabled in all VPCs
4.8|A|Ensure that object-level logging for write events is enabled for S3 buckets
4.9|A|Ensure that object-level logging for read events is enabled for S3 buckets
4.10|M|Ensure access logging is enabled for web front-ends (CloudFront, load balancers, API Gateway)
5.1|M|Ensure unauthorized API calls are monitored
5.2|M|Ensure management console sign-in without MFA is monitored
5.3|M|Ensure usage of the 'root' account is monitored
5.4|M|Ensure IAM policy changes are monitored
5.5|M|Ensure CloudTrail configuration changes are monitored
5.6|M|Ensure AWS Management Console authentication failures are monitored
5.7|M|Ensure disabling or scheduled deletion of customer created CMKs is monitored
5.8|M|Ensure S3 bucket policy changes are monitored
5.9|M|Ensure AWS Config configuration changes are monitored
5.10|M|Ensure security group changes are monitored
5.11|M|Ensure Network Access Control List (NACL) changes are monitored
5.12|M|Ensure changes to network gateways are monitored
5.13|M|Ensure route table changes are monitored
5.14|M|Ensure VPC changes are monitored
5.15|M|Ensure AWS Organizations changes are monitored
5.16|A|Ensure AWS Security Hub is enabled
6.1.1|A|Ensure EBS volume encryption is enabled in all regions
6.1.2|A|Ensure CIFS access is restricted to trusted networks to prevent unauthorized access
6.2|A|Ensure no Network ACLs allow ingress from 0.0.0.0/0 to remote server administration ports
6.3|A|Ensure no security groups allow ingress from 0.0.0.0/0 to remote server administration ports
6.4|A|Ensure no security groups allow ingress from ::/0 to remote server administration ports
6.5|A|Ensure the default security group of every VPC restricts all traffic
6.6|M|Ensure routing tables for VPC peering are "least access"
6.7|A|Ensure that the EC2 Metadata Service only allows IMDSv2
6.8|M|Ensure VPC endpoints are used for access to AWS services`

export const CIS_GCP_V4_SECTIONS = `
1|Identity and Access Management
2|Logging and Monitoring
3|Networking
4|Virtual Machines
5|Storage
6|Cloud SQL Database Services
6.1|MySQL Database
6.2|PostgreSQL Database
6.3|SQL Server
7|BigQuery
8|Dataproc`

/** Manual recommendations of CIS GCP v4.0.0 (the automated ones come from the GCP catalogue). */
export const CIS_GCP_V4_MANUAL = `
1.1|M|Ensure that corporate login credentials are used
1.2|M|Ensure that multi-factor authentication is enabled for all non-service accounts
1.3|M|Ensure that Security Key Enforcement is enabled for all admin accounts
1.13|M|Ensure API keys are restricted to use by only specified hosts and apps
1.17|M|Ensure secrets are not stored in Cloud Functions environment variables by using Secret Manager
2.14|M|Ensure 'Access Transparency' is 'Enabled'
3.9|M|Ensure no HTTPS or SSL proxy load balancers permit SSL policies with weak cipher suites
3.10|M|Use Identity Aware Proxy (IAP) to ensure only traffic from Google IP addresses are allowed
4.10|M|Ensure that App Engine applications enforce HTTPS connections
4.12|M|Ensure the latest operating system updates are installed on your virtual machines
6.1.1|M|Ensure that a MySQL database instance does not allow anyone to connect with administrative privileges`

export const CIS_AZURE_V3_SECTIONS = `
2|Identity
3|Security
3.1|Microsoft Defender for Cloud
3.3|Key Vault
4|Storage Accounts
5|Database Services
5.1|Azure SQL Database
5.2|PostgreSQL Database Server
5.3|MySQL Database
5.4|Cosmos DB
6|Logging and Monitoring
6.1|Diagnostic Settings
6.2|Monitoring using Activity Log Alerts
6.3|Application Insights
7|Networking
8|Virtual Machines
9|App Service`

export const CIS_AZURE_V3_MANUAL = `
6.1.6|M|Ensure that logging for Azure AppService 'HTTP logs' is enabled
9.6|M|Ensure basic authentication is disabled on Azure App Service`

export const CIS_AZURE_V4_SECTIONS = `
3|Analytics Services
3.1|Azure Databricks
6|Identity Services
7|Management and Governance Services
7.1|Logging and Monitoring
8|Networking Services
9|Security Services
9.1|Microsoft Defender for Cloud
9.3|Key Vault
9.4|Azure Bastion
10|Storage Services
10.1|Azure Files
10.2|Azure Blob Storage
10.3|Storage Accounts`

export const CIS_AZURE_V4_MANUAL = ``

export const FSBP_SECTIONS_NOTE = "AWS Foundational Security Best Practices controls are grouped by the service prefix of their id."

/**
 * Titles of automated GCP / Azure controls whose checks' titles would not name the whole control (several checks
 * share the control). Keyed by framework id, then control id.
 */
export const TITLES: Readonly<Record<string, Readonly<Record<string, string>>>> = {}

/** Why no check decides a manual requirement (framework id → requirement id → reason); a default covers the rest. */
export const MANUAL_REASONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "cis-aws-3.0.0": {
    "1.3": "AWS offers no API to read the account's security questions.",
    "1.21": "Whether identities are federated is an organisational decision that needs review.",
    "2.1.3": "Data discovery and classification results need human review.",
    "5.5": "Least-access peering routes depend on the intended network design.",
  },
  "cis-aws-7.0.0": {
    "2.1.1": "Needs the organisation's management account, which a member account scan cannot read.",
    "2.1.2": "Guardrail policies are judged against the organisation's own intent.",
    "2.1.3": "Needs the organisation's management account, which a member account scan cannot read.",
    "2.1.4": "The OU structure is judged against the organisation's own design.",
    "2.1.5": "Needs the organisation's management account, which a member account scan cannot read.",
    "2.1.6": "Needs the organisation's management account, which a member account scan cannot read.",
    "2.19": "Whether identities are federated is an organisational decision that needs review.",
    "2.21": "Conditions on resource policies need review against each resource's purpose.",
    "3.1.3": "Data discovery and classification results need human review.",
    "4.10": "Which front-ends are web-facing needs review.",
    "6.6": "Least-access peering routes depend on the intended network design.",
    "6.8": "Which services must be reached through endpoints depends on the workload.",
  },
}

export const DEFAULT_MANUAL_REASON = "No automated check decides this requirement: assess it manually."

export interface ParsedRequirement {
  readonly id: string
  readonly assessment: "automated" | "manual"
  readonly title: string
}

/** `id|A|title` lines → requirements (blank lines skipped). */
export const parseRequirements = (text: string): ReadonlyArray<ParsedRequirement> =>
  text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((line) => {
      const [id, kind, ...title] = line.split("|")
      return { id: id!.trim(), assessment: kind === "A" ? "automated" : "manual", title: title.join("|").trim() }
    })

/** `id|title` lines → section titles. */
export const parseSections = (text: string): ReadonlyMap<string, string> =>
  new Map(
    text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((line) => {
        const [id, ...title] = line.split("|")
        return [id!.trim(), title.join("|").trim()] as const
      }),
  )
