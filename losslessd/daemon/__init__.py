"""The monitoring daemon (`losslessd daemon`, docs/daemon.md).

settings.py reads and checks the settings file; scheduler.py decides when each device is polled;
service.py wires SNMP and SSH polls -> monitor.counters -> monitor.detect -> history, /metrics and
alert sinks; drift.py re-pulls and re-lints configs; notify.py speaks systemd's sd_notify protocol.
"""
