"""The ``fastdyn`` command and its demos: ``fastdyn demo``, ``simulate``, ``montecarlo``,
``compile``, ``clear-cache``; and ``python -m fastdyn.cli.apidoc``, which writes the API
reference."""
