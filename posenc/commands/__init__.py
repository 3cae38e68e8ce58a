"""The ``posenc`` command, one module per command: :mod:`~posenc.commands.router` (``posenc ...``: which command,
``--version``, the exit statuses), :mod:`~posenc.commands.app` (``posenc app``), :mod:`~posenc.commands.export`,
:mod:`~posenc.commands.config`, :mod:`~posenc.commands.plan` and :mod:`~posenc.commands.lab`, and the reports they
print: :mod:`~posenc.commands.plan_report` (a plan as text and JSON) and :mod:`~posenc.commands.lab_progress` (the
training progress line). Each command is imported only when it runs."""
