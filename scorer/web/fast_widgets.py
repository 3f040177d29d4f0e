"""The form fields the table's forms are built from, printing their HTML faster than WTForms'
own widgets and byte for byte the same (issue 23 item 2: the two hand forms the service
worker keeps have about a hundred inputs each, and WTForms' attribute maker —
``Markup.format`` per attribute, ``dir()`` of the field's flags per input — was a third of
such a page's CPU).

The fields are WTForms' (same processing, validation and data); only their widgets differ:
:func:`html_params` is WTForms' ``html_params`` (sorted attributes, ``True`` alone, ``False``
left out, values escaped, ``"`` as ``&quot;``) with plain string formatting, and an input's
validation attributes are read from the field's flags as set (what ``dir(flags)`` finds).
tests/test_fast_widgets.py holds them to WTForms' output.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any

from babel import support
from flask import current_app, has_request_context
from flask_babel import get_locale
from flask_wtf import FlaskForm
from flask_wtf.csrf import _FlaskFormCSRF
from markupsafe import Markup, escape
from wtforms import fields, widgets
from wtforms.csrf import core as csrf_core
from wtforms.i18n import messages_path
from wtforms.widgets.core import clean_key

from ..reports.words import finalize

#: attribute names as printed (clean_key, escaped), by keyword: the templates' own few
_NAMES: dict[str, str] = {}


def html_params(**kwargs: Any) -> Markup:
    """``wtforms.widgets.html_params``, the same string, made with str formatting."""
    parts = []
    for key, value in sorted(kwargs.items()):
        name = _NAMES.get(key)
        if name is None:
            name = str(escape(clean_key(key)))
            if len(_NAMES) < 512:
                _NAMES[key] = name
        if value is True:
            parts.append(name)
        elif value is not False:
            parts.append(f'{name}="{_value(value)}"')
    return Markup(" ".join(parts))


def _input(widget: Any, field: Any, kwargs: dict[str, Any]) -> Markup:
    """``wtforms.widgets.Input.__call__`` with :func:`html_params`."""
    kwargs.setdefault("id", field.id)
    kwargs.setdefault("type", widget.input_type)
    if "value" not in kwargs:
        kwargs["value"] = field._value()
    datalist = getattr(field, "_datalist", None)
    if datalist is not None and "list" not in kwargs:
        kwargs["list"] = datalist if isinstance(datalist, str) else datalist.id
    flags = getattr(field, "flags", None)
    # dir(flags) finds the flags set on it (Flags has no public attribute of its own)
    set_flags = vars(flags) if isinstance(flags, fields.Flags) else dict.fromkeys(dir(flags or {}))
    for key in widget.validation_attrs:
        if key in set_flags and key not in kwargs:
            value = getattr(flags, key)
            kwargs[key] = value() if callable(value) else value
    return Markup(f"<input {html_params(name=field.name, **kwargs)}>")


class HiddenInput(widgets.HiddenInput):
    html_params = staticmethod(html_params)

    def __call__(self, field: Any, **kwargs: Any) -> Markup:
        return _input(self, field, kwargs)


class TextInput(widgets.TextInput):
    html_params = staticmethod(html_params)

    def __call__(self, field: Any, **kwargs: Any) -> Markup:
        return _input(self, field, kwargs)


class RadioInput(widgets.RadioInput):
    html_params = staticmethod(html_params)

    def __call__(self, field: Any, **kwargs: Any) -> Markup:
        if field.checked:
            kwargs.setdefault("checked", True)
        return _input(self, field, kwargs)


class CheckboxInput(widgets.CheckboxInput):
    html_params = staticmethod(html_params)

    def __call__(self, field: Any, **kwargs: Any) -> Markup:
        if getattr(field, "checked", field.data):
            kwargs.setdefault("checked", True)
        return _input(self, field, kwargs)


class NumberInput(widgets.NumberInput):
    html_params = staticmethod(html_params)

    def __call__(self, field: Any, **kwargs: Any) -> Markup:
        for key in ("step", "min", "max"):
            if getattr(self, key) is not None:
                kwargs.setdefault(key, getattr(self, key))
        return _input(self, field, kwargs)


class HiddenField(fields.HiddenField):
    widget = HiddenInput()


class StringField(fields.StringField):
    widget = TextInput()


class RadioField(fields.RadioField):
    option_widget = RadioInput()

    def __iter__(self) -> Iterator[Any]:
        """WTForms' options (``RadioField.__iter__``), the second on a copy of the first with
        its own id, label, choice and data: all else an option's ``Field.__init__`` sets (its
        name, validators, flags, widget) is the field's, the same for each, and making it
        again for each of a hand form's ~300 options was a tenth of the form's CPU."""
        first = None
        for i, choice in enumerate(self._iter_choices_normalized()):
            if first is None:
                opt = first = self._Option(id=f"{self.id}-{i}", label=choice.label or choice.value,
                                           widget=self.option_widget, validators=self.validators, name=self.name,
                                           render_kw=self.render_kw, _form=self._form, _meta=self.meta)
                kept = dict(first.__dict__)
            else:
                opt = object.__new__(type(first))
                opt.__dict__.update(kept)
                opt.id = f"{self.id}-{i}"
                opt.label = fields.Label(opt.id, choice.label or choice.value)
            opt.choice = choice
            opt.checked = choice.selected
            opt.process(None, choice.value)
            yield opt

    def pills(self, cls: str = "pill", *, suit: bool = False, attr: str = "",
              of: Callable[[Any], Any] | Mapping[Any, Any] | None = None) -> Markup:
        """The options as the table's templates print them, each input in its label, joined:
        ``{% for sub in field %}<label class="pill">{{ sub() }}<span>{{ sub.label.text }}</span></label>{% endfor %}``
        (``suit``: the class ``pill suit-{{ sub.data or 'none' }}``; ``attr``: the label's
        attribute ``attr="{{ of(sub.data) }}"``, or ``of.get(sub.data, '')`` of a mapping), the
        same bytes without Jinja's steps for each option (a call, an escape and the finalizer
        per value printed): a hand form prints ~100."""
        first = next(iter(self), None)
        shared = None if first is None else _shared(first)
        options: Iterator[tuple[Any, Any, str]]
        if shared is None:  # each option printed by its widget
            options = ((sub.data, sub.label.text, _printed(sub())) for sub in self)
        else:  # what an option of __iter__ is made of (its data, label, id, checked), without making it
            layout = _layout(shared)
            options = ((c.value, c.label or c.value, _radio(f"{self.id}-{i}", c.value, c.selected, layout))
                       for i, c in enumerate(self._iter_choices_normalized()))
        out = []
        for data, label, field in options:
            head = f"{cls} suit-{_printed(data or 'none')}" if suit else cls
            extra = f' {attr}="{_printed(_attr(of, data))}"' if attr else ""
            out.append(f'<label class="{head}"{extra}>{field}<span>{_printed(label)}</span></label>')
        return Markup("".join(out))


def _shared(option: Any) -> dict[str, str] | None:
    """The attributes a radio field's options print alike (its name, type and the validation
    attributes its flags set: :func:`_input`), each printed as :func:`html_params` prints it;
    ``None`` when its options are printed otherwise (``render_kw``, another widget: ``sub()``)."""
    widget = option.widget
    if option.render_kw or type(widget) is not RadioInput or not isinstance(option.flags, fields.Flags):
        return None
    alike: dict[str, Any] = {"name": option.name, "type": widget.input_type}
    set_flags = vars(option.flags)
    for key in widget.validation_attrs:
        if key in set_flags and key not in ("checked", "id", "value"):
            value = getattr(option.flags, key)
            alike[key] = value() if callable(value) else value
    return {key: str(html_params(**{key: value})) for key, value in alike.items()}


def _layout(shared: dict[str, str]) -> tuple[str, str, str, str, str]:
    """Where an option's own attributes (``checked``, ``id``, ``value``) fall among those its
    field's options share (:func:`_shared`), in :func:`html_params`' sorted order: the shared
    ones printed before ``checked``, then (with a space each side as needed) between ``checked``
    and ``id``, between ``id`` and ``value``, after ``value``; and between ``checked`` and ``id``
    when the option is not checked."""
    groups: list[list[str]] = [[], [], [], []]
    for key, part in sorted(shared.items()):
        if part:
            groups[(key > "checked") + (key > "id") + (key > "value")].append(part)
    before, between, middle, after = (" ".join(g) for g in groups)
    return (f"<input {before} " if before else "<input ", f" {between} " if between else " ",
            f" {middle} " if middle else " ", f" {after}>" if after else ">",
            f"{between} " if between else "")


def _radio(option_id: str, data: Any, checked: Any, layout: tuple[str, str, str, str, str]) -> str:
    """``option()`` (:class:`RadioInput`) of the option ``option_id`` whose data is ``data``,
    printed: the attributes its field's options share placed once for all (:func:`_layout`) around
    its own, its id, value (``str(data)``, the option's ``_value()``) and whether it is checked."""
    start, between, middle, end, unchecked = layout
    own = f'id="{_value(option_id)}"{middle}value="{_value(str(data))}"{end}'
    return f"{start}checked{between}{own}" if checked else f"{start}{unchecked}{own}"


def _value(value: Any) -> str:
    """An attribute's value as :func:`html_params` prints it."""
    return str(escape(value)).replace(chr(34), "&quot;")


def _attr(of: Any, data: Any) -> Any:
    return of.get(data, "") if isinstance(of, Mapping) else of(data)


def _printed(value: Any) -> str:
    """What Jinja prints for ``{{ value }}`` in the app's templates (autoescaped, through the
    app's finalizer: engine text translated)."""
    return str(escape(finalize(value)))


class BooleanField(fields.BooleanField):
    widget = CheckboxInput()


#: WTForms' own messages by language, read once per process (:class:`Catalog`)
_CATALOGS: dict[str, Any] = {}


class Catalog:
    """``flask_wtf.i18n.translations`` — WTForms' own messages (a hidden field's label, a
    validator's error) in the request's language — with each language's catalog read from
    its file once per process: Flask-WTF reads it again for every request that makes a
    form, each page of the warm-up among them."""

    @staticmethod
    def _catalog() -> Any:
        if not has_request_context() or "babel" not in current_app.extensions:
            return None
        locale = get_locale()
        key = str(locale)
        if key not in _CATALOGS:
            _CATALOGS[key] = support.Translations.load(messages_path(), [locale], domain="wtforms")
        return _CATALOGS[key]

    def gettext(self, string: str) -> str:
        catalog = self._catalog()
        return string if catalog is None else catalog.ugettext(string)  # type: ignore[no-any-return]

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        catalog = self._catalog()
        if catalog is None:
            return singular if n == 1 else plural
        return catalog.ungettext(singular, plural, n)  # type: ignore[no-any-return]


CATALOG = Catalog()


class CSRFTokenField(csrf_core.CSRFTokenField):
    """The form's secret token (Flask-WTF's), printed by :class:`HiddenInput`."""

    widget = HiddenInput()


class FormCSRF(_FlaskFormCSRF):
    """Flask-WTF's form token, whose field is :class:`CSRFTokenField`."""

    field_class = CSRFTokenField


class TableForm(FlaskForm):
    """A Flask-WTF form whose WTForms messages come from :data:`CATALOG`, its token field
    printed by :class:`HiddenInput`."""

    class Meta:
        csrf_class = FormCSRF

        def get_translations(self, form: Any) -> Any:
            if not current_app.config.get("WTF_I18N_ENABLED", True):
                return super().get_translations(form)  # type: ignore[misc]
            return CATALOG


def field_state(field: Any) -> Hashable:
    """What a WTForms field prints from, as a hashable tuple: its class, name, id, label
    (in the request's language), data, the raw data a post gave it (an input shows what was
    typed, even when it is not valid), choices, ``render_kw`` and flags (the validation
    attributes an input prints)."""
    flags = getattr(field, "flags", None)
    return (type(field).__qualname__, field.name, field.id, str(field.label.text), repr(field.data),
            tuple(str(v) for v in (field.raw_data or ())), repr(getattr(field, "choices", None)),
            repr(field.render_kw), repr(sorted(getattr(flags, "__dict__", {}).items())))


def fields_state(fields: Iterable[Any]) -> Hashable:
    """:func:`field_state` of each of ``fields``, in order."""
    return tuple(field_state(f) for f in fields)
