"""Forms of the group (season) pages, through Flask-WTF so each carries a CSRF token.

The forms check shape (present, short enough); :mod:`scorer.storage.groups` checks the rest
(an evening exists, two names may be merged) and its messages go back on the page.
"""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import HiddenField, SelectField, StringField, SubmitField
from wtforms.validators import DataRequired, Length

from ..rules import clean_text
from .form_fields import one_time_token


def _clean(value: Any) -> Any:
    return clean_text(value) if isinstance(value, str) else value


class GroupForm(FlaskForm):
    """Start a group: its name."""

    name = StringField(_l("Name of the group"),
                       [DataRequired(_l("Give the group a name, such as “Thursday Nap club”.")),
                        Length(max=80, message=_l("At most 80 characters."))], filters=[_clean])
    submit = SubmitField(_l("Start the group"))
    #: one-time token: the same form posted twice starts one group, not two
    token = HiddenField(validators=[one_time_token])


class AddEveningForm(FlaskForm):
    """Add an existing evening: its link (or key), pasted."""

    link = StringField(_l("Link to the evening"),
                       [DataRequired(_l("Paste the link of the evening's scoresheet.")),
                        Length(max=400, message=_l("That is too long to be an evening's link."))],
                       filters=[lambda v: v.strip() if isinstance(v, str) else v])
    submit = SubmitField(_l("Add to the group"))


class MergeForm(FlaskForm):
    """Merge two spellings: ``alias`` counts as ``canonical``. The choices are the
    names used in the group; :func:`scorer.storage.groups.merge` refuses anything else."""

    alias = SelectField(_l("This spelling"), validate_choice=False)
    canonical = SelectField(_l("is the same player as"), validate_choice=False)
    submit = SubmitField(_l("Merge"))


class ItemForm(FlaskForm):
    """A button acting on one item: an evening's key (remove) or a merge's id (un-merge)."""

    item = HiddenField()
