"""The command line. Imported first by the losslessd command (as the package of losslessd.cli.main, before typer
and the commands): a `losslessd daemon` holds SIGHUP from here, so one sent while the command line loads asks for a
reload instead of ending the daemon (losslessd.daemon.hup)."""

import sys

if "daemon" in sys.argv[1:]:  # (only then: every other command starts without the daemon's modules)
    from ..daemon.hup import hold_for_daemon_command

    hold_for_daemon_command(sys.argv)
