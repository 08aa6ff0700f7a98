/**
 * The field's GCP check ids in the services we scan (Prowler check ids, CloudSploit plugin names, with the
 * severity each gives), and how we answer each (server/scanner/coverage.ts). Rendered into COVERAGE.md.
 */
import { COMMON_REASONS, type CoverageMap, type Reason } from "../coverage.ts"

/** `peer service id severity`; the service is ours (the peer's service or folder mapped to it). */
const PEERS = `
prowler apikeys apikeys_api_restricted_with_gemini_api high
prowler apikeys apikeys_api_restrictions_configured high
prowler apikeys apikeys_key_exists medium
prowler apikeys apikeys_key_rotated_in_90_days medium
prowler bigquery bigquery_dataset_cmk_encryption high
prowler bigquery bigquery_dataset_public_access high
prowler bigquery bigquery_table_cmk_encryption high
prowler cloudsql cloudsql_instance_automated_backups high
prowler cloudsql cloudsql_instance_cmek_encryption_enabled medium
prowler cloudsql cloudsql_instance_high_availability_enabled medium
prowler cloudsql cloudsql_instance_mysql_local_infile_flag high
prowler cloudsql cloudsql_instance_mysql_skip_show_database_flag low
prowler cloudsql cloudsql_instance_postgres_enable_pgaudit_flag high
prowler cloudsql cloudsql_instance_postgres_log_connections_flag medium
prowler cloudsql cloudsql_instance_postgres_log_disconnections_flag medium
prowler cloudsql cloudsql_instance_postgres_log_error_verbosity_flag medium
prowler cloudsql cloudsql_instance_postgres_log_min_duration_statement_flag medium
prowler cloudsql cloudsql_instance_postgres_log_min_error_statement_flag medium
prowler cloudsql cloudsql_instance_postgres_log_min_messages_flag medium
prowler cloudsql cloudsql_instance_postgres_log_statement_flag medium
prowler cloudsql cloudsql_instance_private_ip_assignment high
prowler cloudsql cloudsql_instance_public_access critical
prowler cloudsql cloudsql_instance_public_ip high
prowler cloudsql cloudsql_instance_sqlserver_contained_database_authentication_flag medium
prowler cloudsql cloudsql_instance_sqlserver_cross_db_ownership_chaining_flag high
prowler cloudsql cloudsql_instance_sqlserver_external_scripts_enabled_flag high
prowler cloudsql cloudsql_instance_sqlserver_remote_access_flag medium
prowler cloudsql cloudsql_instance_sqlserver_trace_flag medium
prowler cloudsql cloudsql_instance_sqlserver_user_connections_flag medium
prowler cloudsql cloudsql_instance_sqlserver_user_options_flag medium
prowler cloudsql cloudsql_instance_ssl_connections high
prowler storage cloudstorage_audit_logs_enabled medium
prowler storage cloudstorage_bucket_lifecycle_management_enabled low
prowler storage cloudstorage_bucket_log_retention_policy_lock high
prowler storage cloudstorage_bucket_logging_enabled medium
prowler storage cloudstorage_bucket_public_access critical
prowler storage cloudstorage_bucket_soft_delete_enabled medium
prowler storage cloudstorage_bucket_sufficient_retention_period medium
prowler storage cloudstorage_bucket_uniform_bucket_level_access medium
prowler storage cloudstorage_bucket_versioning_enabled medium
prowler storage cloudstorage_uses_vpc_service_controls medium
prowler compute compute_firewall_rdp_access_from_the_internet_allowed critical
prowler compute compute_firewall_ssh_access_from_the_internet_allowed critical
prowler compute compute_image_not_publicly_shared medium
prowler compute compute_instance_automatic_restart_enabled medium
prowler compute compute_instance_block_project_wide_ssh_keys_disabled medium
prowler compute compute_instance_confidential_computing_enabled medium
prowler compute compute_instance_default_service_account_in_use medium
prowler compute compute_instance_default_service_account_in_use_with_full_api_access medium
prowler compute compute_instance_deletion_protection_enabled medium
prowler compute compute_instance_disk_auto_delete_disabled medium
prowler compute compute_instance_encryption_with_csek_enabled high
prowler compute compute_instance_group_autohealing_enabled high
prowler compute compute_instance_group_load_balancer_attached low
prowler compute compute_instance_group_multiple_zones low
prowler compute compute_instance_ip_forwarding_is_enabled medium
prowler compute compute_instance_on_host_maintenance_migrate medium
prowler compute compute_instance_preemptible_vm_disabled medium
prowler compute compute_instance_public_ip high
prowler compute compute_instance_serial_ports_in_use medium
prowler compute compute_instance_shielded_vm_enabled medium
prowler compute compute_instance_single_network_interface medium
prowler compute compute_instance_suspended_without_persistent_disks medium
prowler compute compute_loadbalancer_logging_enabled high
prowler compute compute_network_default_in_use medium
prowler compute compute_network_dns_logging_enabled medium
prowler compute compute_network_not_legacy medium
prowler compute compute_project_os_login_2fa_enabled high
prowler compute compute_project_os_login_enabled low
prowler compute compute_public_address_shodan medium
prowler compute compute_snapshot_not_outdated low
prowler compute compute_subnet_flow_logs_enabled medium
prowler dataproc dataproc_encrypted_with_cmks_disabled medium
prowler dns dns_dnssec_disabled medium
prowler dns dns_rsasha1_in_use_to_key_sign_in_dnssec medium
prowler dns dns_rsasha1_in_use_to_zone_sign_in_dnssec medium
prowler gke gke_cluster_no_default_service_account medium
prowler iam iam_account_access_approval_enabled high
prowler iam iam_audit_logs_enabled medium
prowler iam iam_cloud_asset_inventory_enabled high
prowler iam iam_no_service_roles_at_project_level medium
prowler iam iam_organization_essential_contacts_configured medium
prowler iam iam_role_kms_enforce_separation_of_duties medium
prowler iam iam_role_sa_enforce_separation_of_duties medium
prowler iam iam_sa_no_administrative_privileges high
prowler iam iam_sa_no_user_managed_keys medium
prowler iam iam_sa_user_managed_key_rotate_90_days low
prowler iam iam_sa_user_managed_key_unused medium
prowler iam iam_service_account_unused medium
prowler iam iam_workload_identity_pool_provider_attribute_condition high
prowler kms kms_key_not_publicly_accessible high
prowler kms kms_key_rotation_enabled low
prowler kms kms_key_rotation_max_90_days low
prowler logging logging_log_metric_filter_and_alert_for_audit_configuration_changes_enabled medium
prowler logging logging_log_metric_filter_and_alert_for_bucket_permission_changes_enabled medium
prowler logging logging_log_metric_filter_and_alert_for_compute_configuration_changes_enabled medium
prowler logging logging_log_metric_filter_and_alert_for_custom_role_changes_enabled medium
prowler logging logging_log_metric_filter_and_alert_for_project_ownership_changes_enabled medium
prowler logging logging_log_metric_filter_and_alert_for_sql_instance_configuration_changes_enabled medium
prowler logging logging_log_metric_filter_and_alert_for_vpc_firewall_rule_changes_enabled medium
prowler logging logging_log_metric_filter_and_alert_for_vpc_network_changes_enabled medium
prowler logging logging_log_metric_filter_and_alert_for_vpc_network_route_changes_enabled medium
prowler logging logging_sink_created medium
cloudsploit apikeys apiKeyAPIRestriction medium
cloudsploit apikeys apiKeyActiveServices low
cloudsploit apikeys apiKeyApplicationRestriction medium
cloudsploit apikeys apiKeyRotation medium
cloudsploit apikeys projectAPIKeys low
cloudsploit bigquery datasetAllUsersPolicy medium
cloudsploit bigquery datasetLabelsAdded low
cloudsploit bigquery datasetsCMKEncrypted high
cloudsploit bigquery tablesCMKEncrypted high
cloudsploit vpc clbCDNEnabled medium
cloudsploit vpc clbHttpsOnly high
cloudsploit vpc clbLoggingEnabled high
cloudsploit vpc clbNoInstances medium
cloudsploit vpc clbSecurityPolicyEnabled medium
cloudsploit iam computeAllowedExternalIPs medium
cloudsploit iam detailedAuditLoggingMode medium
cloudsploit iam disableAutomaticIAMGrants medium
cloudsploit iam disableDefaultEncryption medium
cloudsploit iam disableGuestAttributes medium
cloudsploit iam disableIdentityClusterCreation medium
cloudsploit iam disableKeyCreation medium
cloudsploit iam disableKeyUpload medium
cloudsploit iam disableSerialPortAccess medium
cloudsploit iam disableServiceAccountCreation medium
cloudsploit iam disableVMIPForwarding medium
cloudsploit iam essentialContactsConfigured medium
cloudsploit iam locationBasedRestriction medium
cloudsploit iam requireOsLogin medium
cloudsploit iam restrictAuthorizedNetworks medium
cloudsploit iam restrictLoadBalancerCreation medium
cloudsploit iam restrictSharedVPCSubnetworks medium
cloudsploit iam restrictVPCPeering medium
cloudsploit iam restrictVPNPeerIPs medium
cloudsploit iam skipDefaultNetworkCreation medium
cloudsploit iam trustedImageProjects medium
cloudsploit iam uniformBucketLevelAccess medium
cloudsploit compute VMDisksCMKEncrypted high
cloudsploit compute applicationConsistentSnapshots medium
cloudsploit compute automaticRestartEnabled medium
cloudsploit compute autoscaleEnabled high
cloudsploit compute autoscaleMinCpuUtilization high
cloudsploit compute computePrivilegeAnalysis info
cloudsploit compute confidentialComputingEnabled medium
cloudsploit compute connectSerialPortsDisabled medium
cloudsploit compute csekEncryptionEnabled high
cloudsploit compute deprecatedImages medium
cloudsploit compute diskAutomaticBackupEnabled medium
cloudsploit compute diskInUse medium
cloudsploit compute diskLabelsAdded low
cloudsploit compute diskMultiAz low
cloudsploit compute diskOldSnapshots low
cloudsploit compute enableUsageExport medium
cloudsploit compute frequentlyUsedSnapshots low
cloudsploit compute imageLabelsAdded low
cloudsploit compute imagesCMKEncrypted high
cloudsploit compute instanceDefaultServiceAccount medium
cloudsploit compute instanceDeletionProtection medium
cloudsploit compute instanceDesiredMachineTypes high
cloudsploit compute instanceGroupAutoHealing high
cloudsploit compute instanceLabelsAdded low
cloudsploit compute instanceLeastPrivilege medium
cloudsploit compute instanceLevelSSHOnly medium
cloudsploit compute instanceMaintenanceBehavior medium
cloudsploit compute instanceMaxCount medium
cloudsploit compute instanceNetworkExposure info
cloudsploit compute instancePreemptibility medium
cloudsploit compute instancePublicAccess high
cloudsploit compute instanceTemplateMachineTypes medium
cloudsploit compute instancesMultiAz medium
cloudsploit compute ipForwardingDisabled medium
cloudsploit compute osLogin2FAEnabled high
cloudsploit compute osLoginEnabled low
cloudsploit compute persistentDisksAutoDelete medium
cloudsploit compute publicDiskImages medium
cloudsploit compute shieldedVmEnabled medium
cloudsploit compute snapshotEncryption high
cloudsploit compute snapshotLabelsAdded low
cloudsploit kms keyProtectionLevel high
cloudsploit kms keyRotation low
cloudsploit kms kmsPublicAccess high
cloudsploit dataproc dataprocClusterEncryption high
cloudsploit dataproc dataprocClusterLabelsAdded low
cloudsploit dataproc hadoopSecureModeEnabled medium
cloudsploit dns dnsSecEnabled medium
cloudsploit dns dnsSecSigningAlgorithm medium
cloudsploit dns dnsZoneLabelsAdded low
cloudsploit iam bigqueryAdmin medium
cloudsploit iam bigtableAdmin medium
cloudsploit iam corporateEmailsOnly medium
cloudsploit iam kmsUserSeparation medium
cloudsploit iam memberAdmin medium
cloudsploit iam pubsubAdmin medium
cloudsploit iam serviceAccountAdmin medium
cloudsploit iam serviceAccountKeyRotation medium
cloudsploit iam serviceAccountManagedKeys medium
cloudsploit iam serviceAccountRole medium
cloudsploit iam serviceAccountSeparation medium
cloudsploit iam serviceAccountTokenCreator medium
cloudsploit iam serviceAccountUser high
cloudsploit iam serviceLimits medium
cloudsploit gke aliasIpRangesEnabled medium
cloudsploit gke autoNodeRepairEnabled medium
cloudsploit gke autoNodeUpgradesEnabled medium
cloudsploit gke basicAuthenticationDisabled medium
cloudsploit gke binaryAuthorizationEnabled medium
cloudsploit gke clientCertificateDisabled high
cloudsploit gke clusterEncryption high
cloudsploit gke clusterLabelsAdded low
cloudsploit gke clusterLeastPrivilege medium
cloudsploit gke clusterNetworkExposure info
cloudsploit gke cosImageEnabled high
cloudsploit gke defaultServiceAccount high
cloudsploit gke integrityMonitoringEnabled medium
cloudsploit gke kubernetesAlphaDisabled medium
cloudsploit gke kubernetesPrivilegeAnalysis info
cloudsploit gke legacyAuthorizationDisabled high
cloudsploit gke loggingEnabled medium
cloudsploit gke masterAuthorizedNetwork medium
cloudsploit gke monitoringEnabled medium
cloudsploit gke networkPolicyEnabled medium
cloudsploit gke nodeEncryption high
cloudsploit gke podSecurityPolicyEnabled medium
cloudsploit gke privateClusterEnabled high
cloudsploit gke privateEndpoint medium
cloudsploit gke secureBootEnabled medium
cloudsploit gke shieldedNodes medium
cloudsploit gke webDashboardDisabled high
cloudsploit logging auditConfigurationLogging medium
cloudsploit logging auditLoggingEnabled medium
cloudsploit logging customRoleLogging medium
cloudsploit logging logSinksEnabled medium
cloudsploit logging projectOwnershipLogging medium
cloudsploit logging sqlConfigurationLogging medium
cloudsploit logging storagePermissionsLogging medium
cloudsploit logging vpcFirewallRuleLogging medium
cloudsploit logging vpcNetworkLogging medium
cloudsploit logging vpcNetworkRouteLogging medium
cloudsploit cloudsql anyHostRootAccess high
cloudsploit cloudsql dbAutomatedBackups medium
cloudsploit cloudsql dbMultiAz medium
cloudsploit cloudsql dbPubliclyAccessible medium
cloudsploit cloudsql dbRestorable medium
cloudsploit cloudsql dbSSLEnabled medium
cloudsploit cloudsql mysqlLatestVersion low
cloudsploit cloudsql mysqlLocalInfile medium
cloudsploit cloudsql mysqlSkipShowDatabase medium
cloudsploit cloudsql mysqlSlowQueryLog medium
cloudsploit cloudsql postgresqlLatestVersion low
cloudsploit cloudsql postgresqlLogCheckpoints medium
cloudsploit cloudsql postgresqlLogConnections medium
cloudsploit cloudsql postgresqlLogDisconnections medium
cloudsploit cloudsql postgresqlLogErrorVerbosity medium
cloudsploit cloudsql postgresqlLogExecutorStats medium
cloudsploit cloudsql postgresqlLogHostname medium
cloudsploit cloudsql postgresqlLogLockWaits medium
cloudsploit cloudsql postgresqlLogMinDuration medium
cloudsploit cloudsql postgresqlLogMinError medium
cloudsploit cloudsql postgresqlLogMinMessages medium
cloudsploit cloudsql postgresqlLogParserStats medium
cloudsploit cloudsql postgresqlLogPlannerStats medium
cloudsploit cloudsql postgresqlLogStatement medium
cloudsploit cloudsql postgresqlLogTempFiles medium
cloudsploit cloudsql postgresqlMaxConnections medium
cloudsploit cloudsql postgresqlPgAuditEnabled medium
cloudsploit cloudsql serverCertificateRotation medium
cloudsploit cloudsql sqlCMKEncryption high
cloudsploit cloudsql sqlContainedDatabaseAuth medium
cloudsploit cloudsql sqlCrossDbOwnership medium
cloudsploit cloudsql sqlInstanceLabelsAdded low
cloudsploit cloudsql sqlNoPublicIps medium
cloudsploit cloudsql sqlServerContainedDBAuth medium
cloudsploit cloudsql sqlServerExternalScripts medium
cloudsploit cloudsql sqlServerRemoteAccessDisabled medium
cloudsploit cloudsql sqlServerTraceFlagDisabled medium
cloudsploit cloudsql sqlServerUserConnections medium
cloudsploit cloudsql sqlServerUserOptionsDisabled medium
cloudsploit cloudsql storageAutoIncreaseEnabled medium
cloudsploit storage bucketAllUsersPolicy high
cloudsploit storage bucketEncryption high
cloudsploit storage bucketLabelsAdded low
cloudsploit storage bucketLifecycleConfigured medium
cloudsploit storage bucketLogging medium
cloudsploit storage bucketRetentionPolicy medium
cloudsploit storage bucketUniformAccess medium
cloudsploit storage bucketVersioning low
cloudsploit vpc defaultVPCExists low
cloudsploit vpc defaultVpcInUse high
cloudsploit vpc dnsLoggingEnabled medium
cloudsploit vpc excessiveFirewallRules medium
cloudsploit vpc firewallLoggingMetadata medium
cloudsploit vpc flowLogsEnabled medium
cloudsploit vpc instanceDefaultNetwork medium
cloudsploit vpc legacyNetworksExist medium
cloudsploit vpc multipleSubnets medium
cloudsploit vpc openAllPorts high
cloudsploit vpc openAllPortsEgress high
cloudsploit vpc openCIFS high
cloudsploit vpc openCassandra high
cloudsploit vpc openCassandraClient high
cloudsploit vpc openCassandraInternode high
cloudsploit vpc openCassandraMonitoring high
cloudsploit vpc openCassandraThrift high
cloudsploit vpc openCustomPorts high
cloudsploit vpc openDNS high
cloudsploit vpc openDocker high
cloudsploit vpc openElasticsearch high
cloudsploit vpc openFTP high
cloudsploit vpc openHTTP high
cloudsploit vpc openHadoopNameNode high
cloudsploit vpc openHadoopNameNodeWebUI high
cloudsploit vpc openInternalWeb high
cloudsploit vpc openKibana high
cloudsploit vpc openLDAP high
cloudsploit vpc openLDAPS high
cloudsploit vpc openMemcached high
cloudsploit vpc openMongo high
cloudsploit vpc openMsSQL high
cloudsploit vpc openMySQL high
cloudsploit vpc openNetBIOS high
cloudsploit vpc openOracle high
cloudsploit vpc openOracleAutoDataWarehouse high
cloudsploit vpc openPostgreSQL high
cloudsploit vpc openRDP high
cloudsploit vpc openRPC high
cloudsploit vpc openRedis high
cloudsploit vpc openSMBoTCP high
cloudsploit vpc openSMTP high
cloudsploit vpc openSNMP high
cloudsploit vpc openSQLServer high
cloudsploit vpc openSSH high
cloudsploit vpc openSalt high
cloudsploit vpc openTelnet high
cloudsploit vpc openVNCClient high
cloudsploit vpc openVNCServer high
cloudsploit vpc privateAccessEnabled medium
prowler artifactregistry artifacts_container_analysis_enabled medium
cloudsploit cloudfunctions cloudFunctionLabelsAdded
cloudsploit cloudfunctions cloudFunctionNetworkExposure info
cloudsploit cloudfunctions cloudFunctionOldRuntime medium
cloudsploit cloudfunctions cloudFunctionsPrivilegeAnalysis info
cloudsploit cloudfunctions functionAllUsersPolicy high
cloudsploit cloudfunctions functionDefaultServiceAccount low
cloudsploit cloudfunctions httpTriggerRequireHttps
cloudsploit cloudfunctions ingressAllTrafficDisabled low
cloudsploit cloudfunctions serverlessVPCAccess high
cloudsploit cloudfunctions cloudFunctionV2HttpsOnly medium
cloudsploit cloudfunctions cloudFunctionV2IngressSettings medium
cloudsploit cloudfunctions cloudFunctionV2LabelsAdded low
cloudsploit cloudfunctions cloudFunctionV2OldRuntime medium
cloudsploit cloudfunctions cloudFunctionV2VPCConnector high
cloudsploit cloudfunctions functionV2DefaultServiceAccount medium
`

/** Peer ids answered by a check of ours with another id. */
const COVERED_BY: Readonly<Record<string, string>> = {
  apikeys_key_rotated_in_90_days: "apikeys_key_rotated_90_days",
  apikeys_key_exists: "apikeys_no_keys_exist",
  bigquery_dataset_cmk_encryption: "bigquery_dataset_default_cmek",
  bigquery_dataset_public_access: "bigquery_dataset_not_public",
  bigquery_table_cmk_encryption: "bigquery_table_cmek",
  cloudsql_instance_automated_backups: "cloudsql_automated_backups",
  cloudsql_instance_cmek_encryption_enabled: "cloudsql_instance_cmek",
  cloudsql_instance_high_availability_enabled: "cloudsql_instance_high_availability",
  cloudsql_instance_mysql_local_infile_flag: "cloudsql_mysql_local_infile_off",
  cloudsql_instance_mysql_skip_show_database_flag: "cloudsql_mysql_skip_show_database_on",
  cloudsql_instance_postgres_enable_pgaudit_flag: "cloudsql_postgres_pgaudit_on",
  cloudsql_instance_postgres_log_connections_flag: "cloudsql_postgres_log_connections_on",
  cloudsql_instance_postgres_log_disconnections_flag: "cloudsql_postgres_log_disconnections_on",
  cloudsql_instance_postgres_log_error_verbosity_flag: "cloudsql_postgres_log_error_verbosity",
  cloudsql_instance_postgres_log_min_duration_statement_flag: "cloudsql_postgres_log_min_duration_statement_disabled",
  cloudsql_instance_postgres_log_min_error_statement_flag: "cloudsql_postgres_log_min_error_statement",
  cloudsql_instance_postgres_log_min_messages_flag: "cloudsql_postgres_log_min_messages",
  cloudsql_instance_postgres_log_statement_flag: "cloudsql_postgres_log_statement_ddl",
  cloudsql_instance_private_ip_assignment: "cloudsql_no_public_ip",
  cloudsql_instance_public_access: "cloudsql_no_public_authorized_networks",
  cloudsql_instance_public_ip: "cloudsql_no_public_ip",
  cloudsql_instance_sqlserver_contained_database_authentication_flag: "cloudsql_sqlserver_contained_db_auth_off",
  cloudsql_instance_sqlserver_cross_db_ownership_chaining_flag: "cloudsql_sqlserver_cross_db_ownership_chaining_off",
  cloudsql_instance_sqlserver_external_scripts_enabled_flag: "cloudsql_sqlserver_external_scripts_off",
  cloudsql_instance_sqlserver_remote_access_flag: "cloudsql_sqlserver_remote_access_off",
  cloudsql_instance_sqlserver_trace_flag: "cloudsql_sqlserver_trace_flag_3625_on",
  cloudsql_instance_sqlserver_user_connections_flag: "cloudsql_sqlserver_user_connections_unlimited",
  cloudsql_instance_sqlserver_user_options_flag: "cloudsql_sqlserver_user_options_unset",
  cloudsql_instance_ssl_connections: "cloudsql_instance_ssl_required",
  cloudstorage_audit_logs_enabled: "logging_audit_logs_all_services",
  cloudstorage_bucket_log_retention_policy_lock: "logging_sink_bucket_retention_locked",
  cloudstorage_bucket_logging_enabled: "storage_bucket_logging_enabled",
  cloudstorage_bucket_public_access: "storage_bucket_not_public",
  cloudstorage_bucket_soft_delete_enabled: "storage_bucket_soft_delete_enabled",
  cloudstorage_bucket_uniform_bucket_level_access: "storage_bucket_uniform_access",
  cloudstorage_bucket_versioning_enabled: "storage_bucket_versioning_enabled",
  compute_firewall_rdp_access_from_the_internet_allowed: "vpc_firewall_rdp_not_open",
  compute_firewall_ssh_access_from_the_internet_allowed: "vpc_firewall_ssh_not_open",
  compute_instance_block_project_wide_ssh_keys_disabled: "compute_instance_block_project_ssh_keys",
  compute_instance_confidential_computing_enabled: "compute_instance_confidential_computing",
  compute_instance_default_service_account_in_use: "compute_instance_not_default_sa",
  compute_instance_default_service_account_in_use_with_full_api_access: "compute_instance_default_sa_no_full_access",
  compute_instance_encryption_with_csek_enabled: "compute_disk_csek_encryption",
  compute_instance_ip_forwarding_is_enabled: "compute_instance_ip_forwarding_disabled",
  compute_instance_public_ip: "compute_instance_no_public_ip",
  compute_instance_serial_ports_in_use: "compute_instance_serial_port_disabled",
  compute_loadbalancer_logging_enabled: "vpc_lb_logging_enabled",
  compute_network_default_in_use: "vpc_default_network_absent",
  compute_network_dns_logging_enabled: "vpc_dns_logging_enabled",
  compute_network_not_legacy: "vpc_no_legacy_networks",
  compute_project_os_login_2fa_enabled: "compute_project_os_login_2fa_enabled",
  gke_cluster_no_default_service_account: "gke_nodepool_not_default_sa",
  osLogin2FAEnabled: "compute_project_os_login_2fa_enabled",
  functionAllUsersPolicy: "cloudfunctions_function_not_public",
  functionDefaultServiceAccount: "cloudfunctions_function_not_default_sa",
  functionV2DefaultServiceAccount: "cloudfunctions_function_not_default_sa",
  compute_subnet_flow_logs_enabled: "vpc_subnet_flow_logs_enabled",
  compute_instance_shielded_vm_enabled: "compute_instance_shielded_vm_enabled",
  compute_project_os_login_enabled: "compute_project_os_login_enabled",
  dataproc_encrypted_with_cmks_disabled: "dataproc_cluster_cmek",
  dns_dnssec_disabled: "dns_dnssec_enabled",
  dns_rsasha1_in_use_to_key_sign_in_dnssec: "dns_no_rsasha1_key_signing",
  dns_rsasha1_in_use_to_zone_sign_in_dnssec: "dns_no_rsasha1_zone_signing",
  iam_account_access_approval_enabled: "logging_access_approval_enabled",
  iam_audit_logs_enabled: "logging_audit_logs_all_services",
  iam_cloud_asset_inventory_enabled: "logging_cloud_asset_inventory_enabled",
  iam_no_service_roles_at_project_level: "iam_no_project_level_sa_user_roles",
  iam_organization_essential_contacts_configured: "iam_essential_contacts_configured",
  iam_role_kms_enforce_separation_of_duties: "iam_kms_role_separation_of_duties",
  iam_role_sa_enforce_separation_of_duties: "iam_sa_role_separation_of_duties",
  iam_sa_no_administrative_privileges: "iam_sa_no_admin_privileges",
  iam_sa_user_managed_key_rotate_90_days: "iam_sa_key_rotated_90_days",
  kms_key_rotation_enabled: "kms_key_rotation_90_days",
  kms_key_rotation_max_90_days: "kms_key_rotation_90_days",
  logging_log_metric_filter_and_alert_for_audit_configuration_changes_enabled: "logging_metric_alert_audit_config_changes",
  logging_log_metric_filter_and_alert_for_bucket_permission_changes_enabled: "logging_metric_alert_bucket_iam_changes",
  logging_log_metric_filter_and_alert_for_custom_role_changes_enabled: "logging_metric_alert_custom_role_changes",
  logging_log_metric_filter_and_alert_for_project_ownership_changes_enabled: "logging_metric_alert_project_ownership_changes",
  logging_log_metric_filter_and_alert_for_sql_instance_configuration_changes_enabled: "logging_metric_alert_sql_instance_changes",
  logging_log_metric_filter_and_alert_for_vpc_firewall_rule_changes_enabled: "logging_metric_alert_firewall_changes",
  logging_log_metric_filter_and_alert_for_vpc_network_changes_enabled: "logging_metric_alert_network_changes",
  logging_log_metric_filter_and_alert_for_vpc_network_route_changes_enabled: "logging_metric_alert_route_changes",
  logging_sink_created: "logging_sink_all_entries",
  apiKeyAPIRestriction: "apikeys_api_restrictions_configured",
  apiKeyRotation: "apikeys_key_rotated_90_days",
  projectAPIKeys: "apikeys_no_keys_exist",
  datasetAllUsersPolicy: "bigquery_dataset_not_public",
  datasetsCMKEncrypted: "bigquery_dataset_default_cmek",
  tablesCMKEncrypted: "bigquery_table_cmek",
  clbLoggingEnabled: "vpc_lb_logging_enabled",
  detailedAuditLoggingMode: "logging_audit_logs_all_services",
  essentialContactsConfigured: "iam_essential_contacts_configured",
  requireOsLogin: "compute_project_os_login_enabled",
  connectSerialPortsDisabled: "compute_instance_serial_port_disabled",
  confidentialComputingEnabled: "compute_instance_confidential_computing",
  csekEncryptionEnabled: "compute_disk_csek_encryption",
  instanceDefaultServiceAccount: "compute_instance_not_default_sa",
  instanceLevelSSHOnly: "compute_instance_block_project_ssh_keys",
  instancePublicAccess: "compute_instance_no_public_ip",
  ipForwardingDisabled: "compute_instance_ip_forwarding_disabled",
  osLoginEnabled: "compute_project_os_login_enabled",
  shieldedVmEnabled: "compute_instance_shielded_vm_enabled",
  keyRotation: "kms_key_rotation_90_days",
  kmsPublicAccess: "kms_key_not_publicly_accessible",
  dataprocClusterEncryption: "dataproc_cluster_cmek",
  dnsSecEnabled: "dns_dnssec_enabled",
  dnsSecSigningAlgorithm: "dns_no_rsasha1_zone_signing",
  kmsUserSeparation: "iam_kms_role_separation_of_duties",
  serviceAccountKeyRotation: "iam_sa_key_rotated_90_days",
  serviceAccountManagedKeys: "iam_sa_no_user_managed_keys",
  serviceAccountSeparation: "iam_sa_role_separation_of_duties",
  serviceAccountUser: "iam_no_project_level_sa_user_roles",
  serviceAccountAdmin: "iam_sa_no_admin_privileges",
  auditConfigurationLogging: "logging_metric_alert_audit_config_changes",
  auditLoggingEnabled: "logging_audit_logs_all_services",
  customRoleLogging: "logging_metric_alert_custom_role_changes",
  logSinksEnabled: "logging_sink_all_entries",
  projectOwnershipLogging: "logging_metric_alert_project_ownership_changes",
  sqlConfigurationLogging: "logging_metric_alert_sql_instance_changes",
  storagePermissionsLogging: "logging_metric_alert_bucket_iam_changes",
  vpcFirewallRuleLogging: "logging_metric_alert_firewall_changes",
  vpcNetworkLogging: "logging_metric_alert_network_changes",
  vpcNetworkRouteLogging: "logging_metric_alert_route_changes",
  dbAutomatedBackups: "cloudsql_automated_backups",
  dbMultiAz: "cloudsql_instance_high_availability",
  dbPubliclyAccessible: "cloudsql_no_public_authorized_networks",
  dbRestorable: "cloudsql_instance_point_in_time_recovery",
  dbSSLEnabled: "cloudsql_instance_ssl_required",
  mysqlLocalInfile: "cloudsql_mysql_local_infile_off",
  mysqlSkipShowDatabase: "cloudsql_mysql_skip_show_database_on",
  postgresqlLogConnections: "cloudsql_postgres_log_connections_on",
  postgresqlLogDisconnections: "cloudsql_postgres_log_disconnections_on",
  postgresqlLogErrorVerbosity: "cloudsql_postgres_log_error_verbosity",
  postgresqlLogMinDuration: "cloudsql_postgres_log_min_duration_statement_disabled",
  postgresqlLogMinError: "cloudsql_postgres_log_min_error_statement",
  postgresqlLogMinMessages: "cloudsql_postgres_log_min_messages",
  postgresqlLogStatement: "cloudsql_postgres_log_statement_ddl",
  postgresqlPgAuditEnabled: "cloudsql_postgres_pgaudit_on",
  sqlCMKEncryption: "cloudsql_instance_cmek",
  sqlContainedDatabaseAuth: "cloudsql_sqlserver_contained_db_auth_off",
  sqlServerContainedDBAuth: "cloudsql_sqlserver_contained_db_auth_off",
  sqlCrossDbOwnership: "cloudsql_sqlserver_cross_db_ownership_chaining_off",
  sqlNoPublicIps: "cloudsql_no_public_ip",
  sqlServerExternalScripts: "cloudsql_sqlserver_external_scripts_off",
  sqlServerRemoteAccessDisabled: "cloudsql_sqlserver_remote_access_off",
  sqlServerTraceFlagDisabled: "cloudsql_sqlserver_trace_flag_3625_on",
  sqlServerUserConnections: "cloudsql_sqlserver_user_connections_unlimited",
  sqlServerUserOptionsDisabled: "cloudsql_sqlserver_user_options_unset",
  bucketAllUsersPolicy: "storage_bucket_not_public",
  bucketLogging: "storage_bucket_logging_enabled",
  bucketRetentionPolicy: "logging_sink_bucket_retention_locked",
  bucketUniformAccess: "storage_bucket_uniform_access",
  bucketVersioning: "storage_bucket_versioning_enabled",
  defaultVPCExists: "vpc_default_network_absent",
  defaultVpcInUse: "vpc_default_network_absent",
  dnsLoggingEnabled: "vpc_dns_logging_enabled",
  flowLogsEnabled: "vpc_subnet_flow_logs_enabled",
  instanceDefaultNetwork: "vpc_default_network_absent",
  legacyNetworksExist: "vpc_no_legacy_networks",
  openAllPorts: "vpc_firewall_all_ports_not_open",
  openCIFS: "vpc_firewall_cifs_not_open",
  openSMBoTCP: "vpc_firewall_cifs_not_open",
  openCassandra: "vpc_firewall_cassandra_not_open",
  openCassandraClient: "vpc_firewall_cassandra_not_open",
  openCassandraInternode: "vpc_firewall_cassandra_not_open",
  openCassandraMonitoring: "vpc_firewall_cassandra_not_open",
  openCassandraThrift: "vpc_firewall_cassandra_not_open",
  openDNS: "vpc_firewall_dns_not_open",
  openDocker: "vpc_firewall_docker_not_open",
  openElasticsearch: "vpc_firewall_elasticsearch_not_open",
  openKibana: "vpc_firewall_elasticsearch_not_open",
  openFTP: "vpc_firewall_ftp_not_open",
  openHadoopNameNode: "vpc_firewall_hadoop_not_open",
  openHadoopNameNodeWebUI: "vpc_firewall_hadoop_not_open",
  openLDAP: "vpc_firewall_ldap_not_open",
  openLDAPS: "vpc_firewall_ldaps_not_open",
  openMemcached: "vpc_firewall_memcached_not_open",
  openMongo: "vpc_firewall_mongodb_not_open",
  openMsSQL: "vpc_firewall_sqlserver_not_open",
  openSQLServer: "vpc_firewall_sqlserver_not_open",
  openMySQL: "vpc_firewall_mysql_not_open",
  openNetBIOS: "vpc_firewall_netbios_not_open",
  openOracle: "vpc_firewall_oracle_not_open",
  openOracleAutoDataWarehouse: "vpc_firewall_oracle_not_open",
  openPostgreSQL: "vpc_firewall_postgresql_not_open",
  openRDP: "vpc_firewall_rdp_not_open",
  openRPC: "vpc_firewall_rpc_not_open",
  openRedis: "vpc_firewall_redis_not_open",
  openSMTP: "vpc_firewall_smtp_not_open",
  openSNMP: "vpc_firewall_snmp_not_open",
  openSSH: "vpc_firewall_ssh_not_open",
  openSalt: "vpc_firewall_salt_not_open",
  openTelnet: "vpc_firewall_telnet_not_open",
  openVNCClient: "vpc_firewall_vnc_not_open",
  openVNCServer: "vpc_firewall_vnc_not_open",
  openCustomPorts: "vpc_firewall_all_ports_not_open",
  autoNodeUpgradesEnabled: "gke_nodepool_auto_upgrade_enabled",
  defaultServiceAccount: "gke_nodepool_not_default_sa",
  clusterEncryption: "gke_cluster_secrets_encrypted_with_cmek",
  legacyAuthorizationDisabled: "gke_cluster_legacy_abac_disabled",
  loggingEnabled: "gke_cluster_logging_monitoring_enabled",
  monitoringEnabled: "gke_cluster_logging_monitoring_enabled",
  masterAuthorizedNetwork: "gke_cluster_control_plane_restricted",
  privateEndpoint: "gke_cluster_control_plane_restricted",
  privateClusterEnabled: "gke_cluster_private_nodes",
  networkPolicyEnabled: "gke_cluster_network_policy_enabled",
  shieldedNodes: "gke_cluster_shielded_nodes_enabled",
  corporateEmailsOnly: "iam_members_corporate_identities_only",
}

/** GCP-only reasons, after the common ones. */
const REASONS: ReadonlyArray<Reason> = [
  ...COMMON_REASONS,
  {
    code: "orgpolicy",
    text: "Organization policy constraint, set at the organization or folder: the scan reads a constraint only where it decides a setting a check judges (serial port access, OS Login, public access prevention), not whether the constraint is set for its own sake.",
    match: /^(computeAllowedExternalIPs|disable[A-Z]|restrict[A-Z]|skipDefaultNetworkCreation|trustedImageProjects|locationBasedRestriction|uniformBucketLevelAccess)/,
  },
]

export const GCP_COVERAGE: CoverageMap = { provider: "gcp", peers: PEERS, coveredBy: COVERED_BY, whyNot: {}, reasons: REASONS }
