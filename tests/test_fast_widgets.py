"""The table's form fields print what WTForms' own print, byte for byte
(scorer/web/fast_widgets.py: the same HTML, made faster)."""

from __future__ import annotations

from typing import Any

import pytest
from flask_wtf import FlaskForm
from markupsafe import Markup
from wtforms import fields as wt
from wtforms.validators import DataRequired, Length, Optional
from wtforms.widgets import html_params as wt_html_params

from scorer.web import fast_widgets as fast
from scorer.web.form_fields import choices

PARAMS: list[dict[str, Any]] = [
    {},
    {"id": "a", "name": "b", "type": "radio", "value": "x", "checked": True},
    {"value": 'say "hi" & <b>', "class_": "pill", "for_": "z", "readonly": False},
    {"value": Markup('<i title="q">x</i>'), "data_full_form": "k", "aria_label": "a_b", "data_x_y_z": 1},
    {"value": 0, "size": 4, "maxlength": 280, "disabled": None, "placeholder": "e.g. ‘x’ — «y»"},
    {"value": "", "dir": "auto", "autocomplete": "off", "required": True, "min": 1.5},
]


@pytest.mark.parametrize("params", PARAMS)
def test_html_params_is_wtforms(params: dict[str, Any]) -> None:
    assert fast.html_params(**params) == wt_html_params(**params)
    assert isinstance(fast.html_params(**params), Markup)


def _forms() -> tuple[type, type]:
    def make(radio: type, hidden: type, string: type, boolean: type) -> type:
        class Form(FlaskForm):
            pick = radio("Pick", default="a", validate_choice=False,
                         choices=choices([("", "none"), ("a", 'A "quoted"'), ("<b>", "<b>bold</b>"), ("3", "3")]))
            picked = radio("Picked", choices=choices([("1", "one"), ("2", "two")]), validators=[DataRequired()])
            secret = hidden(default='x"y<z')
            note = string("Note", [Optional(), Length(max=40)], default="it's <fine> & \"so\"")
            must = string("Must", [DataRequired(), Length(min=2, max=4)])
            flag = boolean("Flag", default=True)
            off = boolean("Off")
        return Form
    return make(wt.RadioField, wt.HiddenField, wt.StringField, wt.BooleanField), \
        make(fast.RadioField, fast.HiddenField, fast.StringField, fast.BooleanField)


def _printed(form: Any) -> list[str]:
    out = []
    for field in (form.pick, form.picked):
        out += ["|".join([sub(), sub(class_="x", data_n="1", checked=False), str(sub.label)]) for sub in field]
    for field in (form.secret, form.note, form.must, form.flag, form.off):
        out += [field(), field(size=4, maxlength=4, dir="auto", placeholder='a "b"'), field(disabled=True)]
    return out


def test_the_fields_print_what_wtforms_prints(app: Any) -> None:
    theirs, ours = _forms()
    with app.test_request_context():
        assert _printed(ours(meta={"csrf": False})) == _printed(theirs(meta={"csrf": False}))
    with app.test_request_context(method="POST", data={"pick": "<b>", "picked": "2", "secret": "s", "note": "n\"",
                                                       "must": "x", "flag": ""}):
        a, b = theirs(meta={"csrf": False}), ours(meta={"csrf": False})
        assert a.validate() == b.validate() and a.errors == b.errors and a.data == b.data
        assert _printed(b) == _printed(a)


def test_a_radio_fields_options_are_wtforms_options(app: Any) -> None:
    theirs, ours = _forms()

    def options(form: Any) -> list[Any]:
        return [(type(sub).__name__, sub.id, sub.name, sub.short_name, sub.label.field_id, sub.label.text, sub.data,
                 sub.object_data, sub.checked, sub.choice, sub.process_errors, [type(v) for v in sub.validators],
                 sub.render_kw, sub.filters, sub.default, sorted(vars(sub.flags).items()), sub._value(),
                 sub.meta is form.meta)
                for field in (form.pick, form.picked) for sub in field]

    with app.test_request_context():
        a, b = theirs(meta={"csrf": False}), ours(meta={"csrf": False})
        assert options(b) == options(a)
        assert len(options(a)) == 6 and options(a)[1][8] is True  # "a", the default, checked


@pytest.mark.parametrize("lang", ["en", "ru", "nb", "pt-BR"])
def test_wtforms_own_messages_are_flask_wtfs_in_each_language(app: Any, lang: str) -> None:
    from wtforms.validators import NumberRange

    def make(base: type) -> type:
        class Form(base):  # type: ignore[valid-type, misc]
            must = wt.StringField(validators=[DataRequired()])
            short = wt.StringField(validators=[Length(max=2)])
            number = wt.IntegerField(validators=[NumberRange(min=1, max=3)])
            hidden = fast.HiddenField()
        return Form

    data = {"must": "", "short": "abc", "number": "x"}
    with app.test_request_context("/", method="POST", data=data, headers={"Accept-Language": lang}):
        theirs, ours = make(FlaskForm)(meta={"csrf": False}), make(fast.TableForm)(meta={"csrf": False})
        assert not theirs.validate() and not ours.validate()
        assert ours.errors == theirs.errors and ours.hidden.label.text == theirs.hidden.label.text
    if lang == "ru":
        assert "Обязательное поле." in ours.errors["must"]


LOOPS = {
    "plain": ("{% for sub in f %}<label class=\"pill\">{{ sub() }}<span>{{ sub.label.text }}</span></label>"
              "{% endfor %}", "{{ f.pills() }}"),
    "suit": ("{% for sub in f %}<label class=\"pill suit-{{ sub.data or 'none' }}\">{{ sub() }}<span>"
             "{{ sub.label.text }}</span></label>{% endfor %}", "{{ f.pills(suit=True) }}"),
    "call": ("{% for sub in f %}<label class=\"pill\" data-name=\"{{ name(sub.data) }}\">{{ sub() }}<span>"
             "{{ sub.label.text }}</span></label>{% endfor %}", "{{ f.pills(attr='data-name', of=name) }}"),
    "needs": ("{% for sub in f %}<label class=\"pill\" data-needs=\"{{ needs.get(sub.data, '') }}\">{{ sub() }}<span>"
              "{{ sub.label.text }}</span></label>{% endfor %}", "{{ f.pills(attr='data-needs', of=needs) }}"),
}


@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_pills_print_what_the_templates_loop_printed(app: Any, loop: str) -> None:
    """hand_form.html prints a radio field's options with ``pills()``: the bytes its loop printed,
    with WTForms' own fields and ours, the field required or not, an option checked or none."""
    theirs, ours = _forms()
    before, after = LOOPS[loop]
    context = {"name": lambda data: f'<{data}> "n"', "needs": {"a": 'x "y"', "<b>": "<z>"}}
    checked = []
    for form_data in ({}, {"pick": "<b>", "picked": "2"}, {"pick": "nothing", "picked": ""}):
        with app.test_request_context(method="POST" if form_data else "GET", data=form_data):
            for field in ("pick", "picked"):
                a, b = theirs(meta={"csrf": False}), ours(meta={"csrf": False})
                looped = app.jinja_env.from_string(before).render(f=a[field], **context)
                assert app.jinja_env.from_string(before).render(f=b[field], **context) == looped
                assert app.jinja_env.from_string(after).render(f=b[field], **context) == looped
                assert "<input " in looped
                checked.append("checked" in looped)
    assert checked == [True, False, True, True, False, False]  # the default, none; posted; nothing that fits


def test_number_inputs_and_the_form_token_print_what_wtforms_prints(app: Any) -> None:
    """A whole number (the override form's, the start form's) and the form's token field."""
    from flask_wtf import FlaskForm as Theirs

    from scorer.web.form_fields import WholeNumberField

    def make(base: type, widget: Any) -> type:
        class Form(base):  # type: ignore[valid-type, misc]
            units = wt.IntegerField("Units", [Optional()], default=0, widget=widget)
            must = wt.IntegerField("Must", [DataRequired()], widget=widget)
            whole = WholeNumberField("Whole", [Optional()], default=-3)
        return Form

    theirs = make(Theirs, wt.IntegerField.widget)
    ours = make(fast.TableForm, fast.NumberInput())
    limited = (wt.IntegerField("L", widget=type(wt.IntegerField.widget)(step=2, min=0, max=9)),
               wt.IntegerField("L", widget=fast.NumberInput(step=2, min=0, max=9)))
    with app.test_request_context():
        a, b = theirs(meta={"csrf": True}), ours(meta={"csrf": True})
        for name in ("units", "must", "whole", "csrf_token"):
            assert str(b[name]()) == str(a[name]())
            assert str(b[name](size=3, disabled=True)) == str(a[name](size=3, disabled=True))
        assert 'type="hidden"' in str(b.csrf_token()) and type(b.csrf_token.widget) is fast.HiddenInput
        assert type(b.whole.widget) is fast.NumberInput and str(b.whole()) == str(wt.IntegerField.widget(b.whole))

        class Limited(Theirs):
            x = limited[0]

        class LimitedOurs(fast.TableForm):
            x = limited[1]
        assert str(LimitedOurs(meta={"csrf": False}).x(size=2)) == str(Limited(meta={"csrf": False}).x(size=2))
