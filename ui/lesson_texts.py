"""The words of presenter mode (:mod:`ui.presenter`), marked here so they sit in the "lessons" catalogues with the
Lessons page they belong to (ui/presenter.py itself is shared code, in the "common" area)."""

from i18n import N_

PRESENTER_MODE = N_("Presenter mode")
PRESENTER_HELP = N_("Large text, no sidebar, figures in the slide style; ← and → go to the previous and next step.")
LEAVE_PRESENTER = N_("Leave presenter mode")
