"""The web app's Flask extensions, created unbound here and bound to the app in
:func:`scorer.web.app.register_extensions` (cookiecutter-flask style): CSRF protection
for the forms and Babel for the translations. Imports nothing else of the app.
"""

from __future__ import annotations

from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect

csrf = CSRFProtect()
babel = Babel()
