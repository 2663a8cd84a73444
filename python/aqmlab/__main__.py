"""``python -m aqmlab`` is the ``aqmlab`` command."""

from aqmlab.cli import main

raise SystemExit(main())
