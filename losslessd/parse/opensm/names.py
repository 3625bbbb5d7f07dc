"""OpenSM's option names: what its sniff tells an opensm.conf by (losslessd.parse.opensm.sniff), and what the options
reader (options.py) reads as an option, apart from that reader: sniffing a file of another platform, which goes
through OpenSM's sniff, imports only these (the reader's import was 2.2 M instructions of a lint of an EOS, NX-OS or
Junos file: docs/lint-at-scale.md, "Session 44, part b")."""

from __future__ import annotations

# NVIDIA OpenSM's switch-to-switch set (osm_subnet.h qos_sw2sw_options): the switch external ports whose peer is a
# switch take it, and where it is unset what qos_swe_ gives them (`opensm --create-config` of 5.21 writes it below
# the qos_swe_ set as "Switch-to-switch external port options"; an InfiniBand course chapter's reading: "further
# overrides the switch-to-switch ports among" the switch external ports).
SW2SW = "sw2sw"

# Every option name of upstream OpenSM, in its table's order (opensm/osm_subnet.c opt_tbl, linux-rdma/opensm commit
# fa74b98c4b604ebb8b6bb348ca3ac065ba418df0, 3.3.24 + 2), perfmgr_* included (built with ENABLE_OSM_PERF_MGR): what
# an opensm.conf is told from other text by, and what is no misspelt QoS option.
KNOWN = frozenset("""
guid m_key sm_key sa_key subnet_prefix m_key_lease_period m_key_protection_level m_key_lookup sweep_interval
max_wire_smps max_wire_smps2 max_smps_timeout console console_port transaction_timeout transaction_retries
long_transaction_timeout max_msg_fifo_timeout sm_priority lmc lmc_esp0 max_op_vls force_link_speed
force_link_speed_ext force_link_width fdr10 reassign_lids ignore_other_sm single_thread disable_multicast
subnet_timeout packet_life_time vl_stall_count leaf_vl_stall_count head_of_queue_lifetime leaf_head_of_queue_lifetime
local_phy_errors_threshold overrun_errors_threshold use_mfttop sminfo_polling_timeout polling_retry_number
force_heavy_sweep port_prof_ignore_file hop_weights_file dimn_ports_file port_search_ordering_file
port_profile_switch_nodes sweep_on_trap routing_engine avoid_throttled_links connect_roots use_ucast_cache log_file
log_max_size log_flags force_log_flush accum_log_file partition_config_file no_partition_enforcement part_enforce
allow_both_pkeys keep_pkey_indexes sm_assigned_guid qos qos_policy_file suppress_sl2vl_mad_status_errors
dump_files_dir lid_matrix_dump_file lfts_file root_guid_file cn_guid_file io_guid_file port_shifting scatter_ports
max_reverse_hops ids_guid_file guid_routing_order_file guid_routing_order_no_scatter sa_db_file sa_db_dump
torus_config do_mesh_analysis exit_on_fatal honor_guid2lid_file daemon sm_inactive babbling_port_policy
drop_event_subscriptions ipoib_mcgroup_creation_validation mcgroup_join_validation use_original_extended_sa_rates_only
max_rate_enum use_optimized_slvl fsync_high_avail_files perfmgr perfmgr_redir perfmgr_sweep_time_s
perfmgr_max_outstanding_queries perfmgr_ignore_cas event_db_dump_file perfmgr_rm_nodes perfmgr_log_errors
perfmgr_query_cpi perfmgr_xmit_wait_log perfmgr_xmit_wait_threshold event_plugin_name event_plugin_options
node_name_map_name qos_max_vls qos_high_limit qos_vlarb_high qos_vlarb_low qos_sl2vl qos_ca_max_vls qos_ca_high_limit
qos_ca_vlarb_high qos_ca_vlarb_low qos_ca_sl2vl qos_sw0_max_vls qos_sw0_high_limit qos_sw0_vlarb_high
qos_sw0_vlarb_low qos_sw0_sl2vl qos_swe_max_vls qos_swe_high_limit qos_swe_vlarb_high qos_swe_vlarb_low qos_swe_sl2vl
qos_rtr_max_vls qos_rtr_high_limit qos_rtr_vlarb_high qos_rtr_vlarb_low qos_rtr_sl2vl congestion_control cc_key
cc_max_outstanding_mads cc_sw_cong_setting_control_map cc_sw_cong_setting_victim_mask cc_sw_cong_setting_credit_mask
cc_sw_cong_setting_threshold cc_sw_cong_setting_packet_size cc_sw_cong_setting_credit_starvation_threshold
cc_sw_cong_setting_credit_starvation_return_delay cc_sw_cong_setting_marking_rate cc_ca_cong_setting_port_control
cc_ca_cong_setting_control_map cc_ca_cong_setting_ccti_timer cc_ca_cong_setting_ccti_increase
cc_ca_cong_setting_trigger_threshold cc_ca_cong_setting_ccti_min cc_cct enable_quirks no_clients_rereg
prefix_routes_file consolidate_ipv6_snm_req lash_start_vl sm_sl nue_max_num_vls nue_include_switches log_prefix
per_module_logging_file quasi_ftree_indexing
""".split())
# Options NVIDIA's OpenSM (MLNX_OFED, UFM) reads beside upstream's: fields of its osm_subn_opt_t (NVIDIA OpenSM
# include/opensm/osm_subnet.h, 2021-2025) that UFM's own opensm.conf settings and the UFM Enterprise User Manual
# ("Appendix - UFM Subnet Manager Default Properties": m_key_per_port, master_sm_lid, key_mgr_seed, cc_key_*,
# vs_key_enable) write under that name. Upstream OpenSM ignores them (`Unrecognized token`); they tell an NVIDIA
# opensm.conf excerpt from other text, and are no misspelt QoS option.
NVIDIA_KNOWN = frozenset({
    "virt_enabled", "virt_max_ports_in_process", "virt_default_hop_limit", "enable_virt_rec_ext", "pgrp_policy_file",
    "routing_threads_num", "smp_threads", "gmp_threads", "max_wire_smps_per_device", "enable_inc_mc_routing",
    "max_alt_dr_path_retries", "mepi_cache_enabled", "osm_stats_interval", "reports", "ar_tree_asymmetric_flow",
    "m_key_per_port", "master_sm_lid", "key_mgr_seed", "cc_key_lease_period", "cc_key_protect_bit", "vs_key_enable",
    "enhanced_qos_policy_file",
    # Adaptive routing and SHArP: osm_subn_opt_t of NVIDIA OpenSM 5.18 (libopensm-devel 5.18.0.MLNX20240128,
    # include/infiniband/opensm/osm_subnet.h: ar_mode, shield_mode, pfrn_sl, ar_sl_mask, sharp_enabled,
    # sweep_every_hup_signal), which AI-fabric guides and UFM runbooks write in opensm.conf under these names (the
    # UFM-SDN command reference's `ib sm ar-sl-mask` sets ar_sl_mask). No `ar_enable` or `sharp_enable` field exists.
    "ar_mode", "shield_mode", "pfrn_sl", "ar_sl_mask", "sharp_enabled", "sweep_every_hup_signal",
    # The switch-to-switch ports' QoS set (SW2SW above): no misspelt qos_swe_ option; read into OpenSm.qos_sets.
    *(f"qos_{SW2SW}_{field}" for field in ("max_vls", "high_limit", "vlarb_high", "vlarb_low", "sl2vl")),
})
# The rest of NVIDIA OpenSM's osm_subn_opt_t (include/opensm/osm_subnet.h, the 2021-2025 header): its option table
# takes each field's name (a string field's `_s` left off: `hm_ca_reboot_action`); its internal fields (config_file,
# num_guids, part_enforce_enum, routing_engine_names: `routing_engine` in the file) are no option. Known, so never
# named as passed over; not what a guide's shortened name (`priority`) is read against (_unprefixed).
_NVIDIA_FIELD_NAMES = """
activity_report_subjects adaptive_timeout_sl_mask additional_gi_supporting_devices additional_mepi_force_devices
adv_routing_engine_name aguid_default_hop_limit aguid_inout_notice allow_sm_port_reset allowed_sm_guids
ar_transport_mask ar_tree_asymmetric_flow_threshold ar_tree_asymmetric_flow_threshold_limit auto_join_hca_wo_topo
ca_port_num_limit ca_port_soft_limit cache_ar_group_id cache_files_dir calc_missing_routes cc_key_enable
client_rereg_mode conf_template congestion_control_policy_file consolidate_ipv4_mask const_multicast dbg_lvl
default_mcg_mtu default_mcg_rate device_configuration_file dfp_down_up_turns_mode dfp_find_roots_color_algorithm
dfp_max_cas_on_spine disable_default_gi_support dor_hyper_cube_mode drop_subscr_on_report_fail
drop_unreachable_event_subscriptions drop_unreachable_ports_enabled dump_ar enable_ar_by_device_cap
enable_ar_group_copy enable_crashd enable_empty_arlft_optimization enable_performance_logging
enable_queries_during_routing enable_sa enable_sm_port_failover enable_subnet_lst enable_vl_packing
enhanced_missing_routes enhanced_qos_vport0_unlimit_default_rl fabric_mode_policy_file fabric_mode_profile
fast_recovery_conf_file fast_recovery_enabled find_roots_color_algorithm flid_compression force_heavy_sweep_window
force_link_speed_ext2 ftree_ca_order_dump_file get_mft_tables global_flid_end global_flid_start gmp_traps_threads_num
hbf_hash_fields hbf_hash_type hbf_seed hbf_seed_type hbf_sl_mask hbf_weights held_back_sw_file hm_ca_flapping_action
hm_ca_illegal_action hm_ca_manual_action hm_ca_noisy_action hm_ca_reboot_action hm_ca_seterr_action
hm_ca_unresponsive_action hm_num_flapping_sweeps hm_num_flapping_sweeps_window hm_num_illegal hm_num_no_resp_sweeps
hm_num_no_resp_sweeps_window hm_num_reboots hm_num_set_err_sweeps hm_num_set_err_sweeps_window hm_num_traps
hm_num_traps_period_secs hm_ports_health_policy_file hm_reboots_period_secs hm_sw_flapping_action hm_sw_illegal_action
hm_sw_manual_action hm_sw_noisy_action hm_sw_reboot_action hm_sw_seterr_action hm_sw_unresponsive_action
hm_unhealthy_ports_checks improved_lmc_path_distribution issu_mode issu_pre_upgrade_time issu_timeout lids_per_rtr
light_sweep_spst load_inform_info_from_sadb local_flid_end local_flid_start log_num_backlogs m_key_protect_bits
master_sm_priority max_cas_on_spine max_msg_fifo_len max_neighbor_mtu max_op_vls_ca max_op_vls_rtr max_op_vls_sw
max_sa_reports_on_wire max_sa_reports_queued max_seq_redisc max_threads_per_core max_topologies_per_sw
mc_primary_root_guid mc_roots_file mc_secondary_root_guid mepi_enabled_speeds mlnx_congestion_control
mlnx_enhanced_link_enable n2n_key_enable n2n_key_lease_period n2n_key_protect_bit n2n_max_outstanding_mads
nvl_cage_allocation_mode nvl_cnd_for_access_links_enabled nvl_cnd_for_init_trunks_enabled nvl_hbf_fields_enable
nvl_hbf_hash_type nvl_hbf_packet_hash_bitmask nvl_hbf_seed nvl_partition_reroute_wait nvl_reassign_rails nvlink_enable
offsweep_balancing_enabled offsweep_balancing_window osm_perflog_dump_limit osm_stats_dump_limit
osm_stats_dump_per_sm_port override_create_mcg_sl periodic_key_update pfrn_mask_clear_timeout
pfrn_mask_force_clear_timeout pfrn_over_router_enabled pid_file planarized_routing_enabled plugin_name plugin_options
port_ame_bit_change_action port_ext_speed2_change_action port_ext_speed_change_action port_mepi_speed_change_action
port_mtu_change_action port_recovery_policy_enabled port_speed_change_action port_vl_change_action ppcc_algo_dir
pqft_structure prism_an_lmc prp_override_allow_sm_port_reset qos_config_vl_enabled rch_policy_file
rediscovery_link_penalty_step rediscovery_max_link_penalty rediscovery_max_node_penalty rediscovery_node_penalty_step
reply_lid_smps_in_dr rereg_on_guid_migr respond_unknown_lid_traps router_policy_enabled router_policy_file
routing_flags rtr_aguid_enable rtr_lmc rtr_pr_flow_label rtr_pr_mtu rtr_pr_rate rtr_pr_sl rtr_pr_tclass
rtr_selection_algo_parameters rtr_selection_function rtr_selection_params_mask rtr_selection_seed run_once
sa_check_sgid_spoofing sa_db_dump_file sa_enhanced_trust_model sa_etm_allow_guidinfo_rec_by_vf
sa_etm_allow_untrusted_guidinfo_rec sa_etm_allow_untrusted_proxy_requests sa_etm_max_num_event_subs
sa_etm_max_num_mcgs sa_etm_max_num_srvcs sa_pr_full_world_queries_allowed sa_rate_threshold service_name2key_map_file
sm_assign_guid_func sm_db_dump stand_alone subnet_lst_file support_mepi_speeds support_mlnx_enhanced_link
suppress_mc_pkey_traps switch_name syslog_log_flags tenants_policy_enabled tenants_policy_file topo_config_enabled
topo_config_file topo_policy_file torus_conf_file updn_lid_tracking_converge_routes updn_lid_tracking_mode
updn_lid_tracking_prefer_total_routes use_optimized_port_mask_slvl use_scatter_for_switch_lid validate_conf_files
validate_smps verbose_bypass_policy_file virt_dump_file vs_key_ci_protect_bits vs_key_lease_period
vs_max_outstanding_mads
"""
NVIDIA_FIELDS = frozenset(_NVIDIA_FIELD_NAMES.split()) | NVIDIA_KNOWN
BANNER = "# DEVICE ATTRIBUTES OPTIONS"  # the first section `opensm -c` writes


def is_known(key: str) -> bool:
    """Whether ``key`` is an option of upstream or NVIDIA OpenSM (or of their qos_, cc_, perfmgr_ families)."""
    return key in KNOWN or key in NVIDIA_FIELDS or key.startswith(("qos_", "cc_", "perfmgr_"))
