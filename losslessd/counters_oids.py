"""The SNMP objects losslessd polls: one table shared by the poller and the simulator.

Columns are walked; the instance index after the column OID is given for each.
"""

from __future__ import annotations

# SNMPv2-MIB (RFC 3418): TimeTicks, hundredths of a second since the agent (re)started.
SYS_UPTIME = "1.3.6.1.2.1.1.3.0"
# SNMPv2-MIB (RFC 3418) sysName, DisplayString: the node's administratively-assigned name (by convention its FQDN).
SYS_NAME = "1.3.6.1.2.1.1.5.0"

# IF-MIB (RFC 2863). Index: ifIndex.
IF_NAME = "1.3.6.1.2.1.31.1.1.1.1"  # ifXTable ifName, DisplayString
IF_HC_IN_OCTETS = "1.3.6.1.2.1.31.1.1.1.6"  # Counter64
IF_HC_OUT_OCTETS = "1.3.6.1.2.1.31.1.1.1.10"  # Counter64
IF_HIGH_SPEED = "1.3.6.1.2.1.31.1.1.1.15"  # ifXTable ifHighSpeed, Gauge32: the port's speed in Mb/s (0: not known)
IF_TYPE = "1.3.6.1.2.1.2.2.1.3"  # ifTable ifType, IANAifType
# IANAifType-MIB ieee8023adLag: a link aggregate (sonic-snmpagent rfc1213.py serves it for PortChannels).
IF_TYPE_LAG = 161
IF_IN_DISCARDS = "1.3.6.1.2.1.2.2.1.13"  # ifTable, Counter32
IF_OUT_DISCARDS = "1.3.6.1.2.1.2.2.1.19"  # ifTable, Counter32
# ifXEntry 19, TimeStamp: sysUpTime when any Counter32/Counter64 of the interface's ifTable/ifXTable rows last had a
# discontinuity (0: none since the agent started). sonic-snmpagent rfc2863.py serves 0 always (a placeholder).
IF_COUNTER_DISCONTINUITY_TIME = "1.3.6.1.2.1.31.1.1.1.19"

# CISCO-PFC-EXT-MIB, as SONiC's SNMP agent serves it (sonic-snmpagent
# src/sonic_ax_impl/mibs/vendor/cisco/ciscoPfcExtMIB.py): all Counter64.
# Requests = PFC frames the port sent (SAI_PORT_STAT_PFC_<p>_TX_PKTS), indications = PFC frames it
# received (SAI_PORT_STAT_PFC_<p>_RX_PKTS). SONiC fills the per-port columns from priority 3 only.
CPFC_IF_REQUESTS = "1.3.6.1.4.1.9.9.813.1.1.1.1"  # cpfcIfRequests.<ifIndex>
CPFC_IF_INDICATIONS = "1.3.6.1.4.1.9.9.813.1.1.1.2"  # cpfcIfIndications.<ifIndex>
CPFC_PRIO_REQUESTS = "1.3.6.1.4.1.9.9.813.1.2.1.2"  # cpfcIfPriorityRequests.<ifIndex>.<priority 0-7>
CPFC_PRIO_INDICATIONS = "1.3.6.1.4.1.9.9.813.1.2.1.3"  # cpfcIfPriorityIndications.<ifIndex>.<priority 0-7>

# ARISTA-PFC-MIB aristaPfcPriorityTable (revision 2017-01-17; pysmi build in lextudio/mibs.pysnmp.com
# ARISTA-PFC-MIB.py), what Arista EOS serves in place of the Cisco table above: Counter64, the same
# IEEE 802.1Qbb sense (requests sent, indications received). Index: <ifIndex>.<priority 0-7>.
ARISTA_PFC_PRIO_REQUESTS = "1.3.6.1.4.1.30065.3.11.1.1.1.3"  # aristaPfcPriorityRequests
ARISTA_PFC_PRIO_INDICATIONS = "1.3.6.1.4.1.30065.3.11.1.1.1.4"  # aristaPfcPriorityIndications

# CISCO-SWITCH-QOS-MIB csqIfQosGroupStatsValue (Counter64) as SONiC serves it (sonic-snmpagent
# .../vendor/cisco/ciscoSwitchQosMIB.py). Index: <ifIndex>.<direction>.<queue, 1-based>.<stat type>;
# SONiC serves egress (2) only, stat types from its CounterMap below.
CSQ_QOS_GROUP_STATS = "1.3.6.1.4.1.9.9.580.1.5.5.1.4"
CSQ_EGRESS = 2
CSQ_UCAST_PACKETS = 1  # SAI_QUEUE_STAT_PACKETS of the unicast queue
CSQ_UCAST_DROPPED_PACKETS = 5  # SAI_QUEUE_STAT_DROPPED_PACKETS of the unicast queue

# CISCO-PFC-EXT-MIB cpfcWatchdogIfQueueInfoTable (revision 2016-04-28; pysmi build of the MIB in
# lextudio/mibs.pysnmp.com pysnmp/CISCO-PFC-EXT-MIB.py): the on-box PFC watchdog per no-drop queue,
# Counter64. Index: <ifIndex>.<cpfcWatchdogIfQueueNumber> (CISCO-QOS-TC-MIB QosQueueNumber, an Unsigned32
# with no range). Cisco NX-OS serves it from the watchdog's qos-group rows, 0-based: Nexus 9000 NX-OS Show
# Commands 9.3(x), "Q Show Commands": `show queuing pfc-queue interface snmp watchdogIfQueueTable ifIndex N`
# keys TABLE_qosgrp_stats by eq-qosgrp with its shutdowns and restores, the same eq-qosgrp that
# `show queuing pfc-queue` numbers qosgrp_0 to qosgrp_7 (qos-group n is egress queue n, c-out-8q-qn), so
# unlike csqIfQosGroupStats' 1-based queues it is read as is. SONiC's agent does not serve it (its
# ciscoPfcExtMIB.py has the If and IfPriority tables only), so SONiC's counts come from
# `show pfcwd stats` over SSH (losslessd.monitor.sources).
CPFC_WD_QUEUE_SHUTDOWNS = "1.3.6.1.4.1.9.9.813.1.3.1.3"  # cpfcWatchdogIfQueueShutdowns: storms detected
CPFC_WD_QUEUE_RESTORES = "1.3.6.1.4.1.9.9.813.1.3.1.4"  # cpfcWatchdogIfQueueRestores: storms restored
