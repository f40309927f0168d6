"""``python -m fastdyn``: the ``fastdyn`` command (fastdyn/cli/main.py)."""

from fastdyn.cli.main import main

if __name__ == "__main__":
    main()
