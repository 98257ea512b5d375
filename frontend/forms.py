"""The new-experiment form, generated from the engine's parameter declarations.

Every scenario parameter becomes a field with its unit, allowed range and help; advanced ones
are folded away in the template. Validation runs the engine's own checks through the service,
so the form and the API accept and reject exactly the same input, and errors land beside the
field they name.
"""

from __future__ import annotations

import re

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator

from hetsite import inputs, kinds
from hetsite.kinds import PARAM_PREFIX as PREFIX
from hetsite.kinds import LabKind
from hetsite.models import Visibility
from hetsite.services import submission
from simcore.errors import ScenarioError
from simcore.params import describe, whole_number
from simcore.references import spell


def _nest(flat: dict) -> dict:
    out: dict = {}
    for dotted, value in flat.items():
        node = out
        parts = dotted.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return out


def _flatten(params: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in params.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, f"{name}."))
        out[name] = value
    return out


class WholeNumberField(forms.IntegerField):
    """A typed integer in ASCII digits, optionally signed (at most 19 digits, a seed's). Django's
    IntegerField reads text through ``int``, which also takes other scripts' digits ("٣" was 3
    trials), underscores ("1_000") and a trailing ".0"."""

    default_error_messages = {"invalid": "Enter a whole number in the digits 0-9."}

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, int) and not isinstance(value, bool):  # an initial value
            return value
        text = str(value).strip()
        sign = -1 if text.startswith("-") else 1
        number = whole_number(text[1:] if text[:1] in ("+", "-") else text, digits=19)
        if number is None:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return sign * number


# A decimal number as typed: digits 0-9, an optional point, fraction and exponent.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?", re.ASCII)


class DecimalNumberField(forms.FloatField):
    """A typed number in ASCII digits (``2.5``, ``-1e-3``). Django's FloatField reads text
    through ``float``, which also takes other scripts' digits ("٣.٥" was 3.5) and
    underscores; "inf" and "nan" it refuses, and so does this."""

    default_error_messages = {"invalid": "Enter a number in the digits 0-9, e.g. 2.5 or 1e-3."}

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):  # an initial value
            return super().to_python(value)
        text = str(value).strip()
        if len(text) > 64 or not _DECIMAL.fullmatch(text):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(text)


def param_field(d: dict) -> forms.Field:
    """One Django field from one ``describe()`` entry, under its declared label and group."""
    help_bits = [d["help"]] if d["help"] else []
    if d["range"]:
        help_bits.append(f"allowed: {d['range']}")
    common = {"label": d["label"], "help_text": "; ".join(help_bits),
              "required": not d["optional"] and d["type"] not in ("bool", "json")}
    kind = d["type"]
    if kind == "bool":
        field = forms.BooleanField(**common)
    elif kind == "int":
        field = WholeNumberField(min_value=_lower(d), max_value=d["max"], **common)
    elif kind == "float":
        field = DecimalNumberField(min_value=_lower(d), max_value=d["max"], **common)
    elif d["choices"] and kind != "json":  # a list's choices apply to its items: JSON below
        field = forms.ChoiceField(choices=[(c, c) for c in d["choices"]], **common)
    elif kind == "str":
        field = forms.CharField(max_length=500, **common)
    else:
        field = forms.JSONField(widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
                                **{**common, "required": False})
    field.widget.attrs.setdefault("data-unit", d["unit"] or "")
    field.unit = d["unit"]
    field.advanced = d["advanced"]
    field.param = d["name"]
    field.group = d["group"]
    field.json_type = kind
    field.optional = d["optional"]
    field.widget.attrs["title"] = d["name"]  # the dotted name, for API and CLI users
    return field


def _js_value(v) -> str:
    """A parameter value as the form's input reports it (checkboxes: 'true'/'false')."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _lower(d):
    # Exclusive lower bounds cannot be expressed by Django's validators; the engine checks them.
    return None if d.get("min_exclusive") else d["min"]


class ExperimentForm(forms.Form):
    name = forms.CharField(max_length=200, required=False,
                           help_text="optional; a name is made from the preset and policies")
    preset = forms.CharField(required=False, widget=forms.HiddenInput)
    policies = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple,
                                         help_text="heuristics to compare",
                                         error_messages={"required": "choose at least one "
                                                                     "policy"})
    trials = WholeNumberField(min_value=1, initial=3,
                              help_text="random instances (seeds) per policy")
    base_seed = WholeNumberField(min_value=0, initial=0, label="First seed",
                                 help_text="trial k uses seed first seed + k")
    visibility = forms.ChoiceField(choices=Visibility.choices, initial=Visibility.UNLISTED,
                                   required=False,
                                   help_text="who can find it; you can change this later")
    explain = forms.BooleanField(
        required=False, label="Explain decisions",
        help_text="every run records each decision with its reason (why a task was held, "
                  "backfilled, dropped, ...), to read task by task on the result page; not "
                  "for sweeps, and it adds to each run's estimated time")
    explain_tasks = forms.CharField(
        required=False, max_length=2000, label="Keep these tasks' stories",
        help_text="with Explain decisions: ids of tasks (comma-separated) whose whole story "
                  "every run keeps, though a large run keeps only a sample of the others")

    def __init__(self, kind_lab: LabKind, *args, who=None, refused=None, **kwargs):
        """``who`` (a ``permissions.Viewer``) submits it: the uploads it names must be theirs
        to use. ``refused``: files dropped while the request was read (field -> why)."""
        super().__init__(*args, **kwargs)
        self.kind_lab = kind_lab
        self.who = who
        self.refused = refused or {}
        self.staged = []  # uploads checked by the kind's hook, stored only with the experiment
        self.fields["trials"] = WholeNumberField(
            min_value=1, max_value=submission.limits()["max_trials"],
            initial=self.default_trials(kind_lab), help_text=self.trials_help(kind_lab))
        policies = kind_lab.engine.list_policies(kind_lab.kind)
        self.policy_info = {p.name: p for p in policies}
        self.fields["policies"].choices = [(p.name, p.label) for p in policies]
        self.param_names = []
        described = describe(kind_lab.engine_kind.config_cls)
        for d in described:
            name = PREFIX + d["name"]
            # help texts cite the kind's spec by bare code; people read the title beside it
            self.fields[name] = param_field({**d, "help": spell(d["help"], kind_lab.kind)})
            cond = kind_lab.condition_for(d["name"])
            if cond is not None:
                self.fields[name].widget.attrs.update({
                    "data-show-when": PREFIX + cond.control,
                    "data-show-values": "|".join(_js_value(v) for v in cond.values)})
            self.param_names.append(name)
        self._bound_by_site_limits()
        scalar = {d["name"]: d["label"] for d in described
                  if d["type"] in ("int", "float", "bool", "str")}
        scalars = [("", "— none —")] + [(n, f"{label} ({n})") for n, label in scalar.items()]
        for k, what in ((1, "parameter to vary"), (2, "second parameter (product)")):
            # A linked axis ``a+b`` (a figure preset's, or a clone of one) keeps its choice.
            linked = self.initial.get(f"sweep_param{k}") or (
                self.data.get(f"sweep_param{k}") if self.is_bound else None)
            extra = [(linked, " = ".join(scalar[n] for n in linked.split("+")))] \
                if linked and "+" in linked and set(linked.split("+")) <= scalar.keys() else []
            self.fields[f"sweep_param{k}"] = forms.ChoiceField(
                choices=scalars + extra, required=False, label=f"Sweep: {what}",
                help_text="leave empty for a plain experiment" if k == 1 else
                "optional; every value pair is a point")
            self.fields[f"sweep_values{k}"] = forms.CharField(
                required=False, max_length=2000, label="values",
                help_text="comma-separated (8, 10, 12), a range start:stop:step (8:16:2) or "
                          "start:stop:*factor (1:1000:*10)")
        self.fields["explain"].json_type = "bool"  # drawn as a checkbox inside its label
        self.fields["explain_tasks"].widget.attrs.update({"data-show-when": "explain",
                                                          "data-show-values": "true"})
        self.extra_names: list[str] = []
        self.hook = inputs.form_hook(kind_lab)
        if self.hook is not None:
            self.hook.customize(self)
        self.submission = None

    def _bound_by_site_limits(self) -> None:
        """A parameter a site limit bounds alone gets that bound in the form too (the browser
        refuses a larger value before it is sent, and the help says so)."""
        for limit in self.kind_lab.limits:
            field = self.fields.get(PREFIX + limit.field)
            top = limit.field_max(kinds.limit_cap(limit))
            if field is None or top is None or not isinstance(
                    field, (forms.IntegerField, forms.FloatField)):
                continue
            top = int(top) if isinstance(field, forms.IntegerField) else top
            if field.max_value is not None and field.max_value <= top:
                continue
            field.max_value = top
            field.validators.append(MaxValueValidator(top))
            field.widget.attrs["max"] = top
            field.help_text += (f"; this site: at most {top:,} "
                                f"(HETSITE_LIMIT_{limit.name.upper()})")

    @staticmethod
    def default_trials(kind_lab: LabKind) -> int:
        return 1 if kind_lab.deterministic else kind_lab.default_trials

    @staticmethod
    def trials_help(kind_lab: LabKind) -> str:
        if kind_lab.deterministic:
            return ("this kind is deterministic: every trial of a policy gives the same result, "
                    "so one trial is enough")
        return "random instances (seeds) per policy"

    # -- prefill ---------------------------------------------------------------------------------
    @classmethod
    def initial_for(cls, kind_lab: LabKind, params: dict, preset: str = "", policies=None,
                    trials=None, base_seed=None, name="", visibility=None,
                    axes=None, explain=False, explain_tasks=()) -> dict:
        """The form's initial values; ``axes`` (a sweep's) fill the sweep fields, so a clone
        submitted unchanged runs the same sweep on the same base scenario."""
        initial = {"preset": preset, "name": name,
                   "policies": policies or kind_lab.default_policies,
                   "trials": trials or cls.default_trials(kind_lab), "base_seed": base_seed or 0,
                   "visibility": visibility or Visibility.UNLISTED, "explain": explain,
                   "explain_tasks": ", ".join(str(t) for t in explain_tasks)}
        for dotted, value in _flatten(params).items():
            initial[PREFIX + dotted] = value
        for k, axis in enumerate((axes or [])[:2], start=1):
            initial[f"sweep_param{k}"] = axis["param"]
            initial[f"sweep_values{k}"] = ", ".join(_axis_text(v) for v in axis["values"])
        return initial

    # -- grouping for the template ---------------------------------------------------------
    def basic_params(self):
        return [self[n] for n in self.param_names if not self.fields[n].advanced]

    def advanced_params(self):
        return [self[n] for n in self.param_names if self.fields[n].advanced]

    @staticmethod
    def _grouped(bound) -> list[tuple[str, list]]:
        groups: dict[str, list] = {}
        for b in bound:
            groups.setdefault(getattr(b.field, "group", ""), []).append(b)
        return list(groups.items())

    def basic_groups(self):
        return self._grouped(self.basic_params())

    def advanced_groups(self):
        return self._grouped(self.advanced_params())

    def error_summary(self) -> list[dict]:
        """Every error in form order, with the id of the input it belongs to."""
        out = [{"id": "", "label": "", "message": e} for e in self.non_field_errors()]
        for name in self.fields:
            for message in self.errors.get(name, []):
                bound = self[name]
                target = bound.id_for_label or f"id_{name}"
                if name == "policies":
                    target = "policies"
                out.append({"id": target, "label": bound.label, "message": message})
        return out

    def extra_fields(self):
        return [self[n] for n in self.extra_names]

    # -- validation ------------------------------------------------------------------------------
    def clean(self):
        data = super().clean()
        for name, denied in self.refused.items():
            if name in self.fields:
                self.add_error(name, denied.message)
        if self.hook is not None and not any(n in self.errors for n in self.param_names):
            self.hook.clean(self, data)
        params_valid = not any(n in self.errors for n in (*self.param_names, *self.extra_names))
        params = self._params(data) if params_valid else None
        if params is not None:
            # The scenario is checked even when other fields failed, so every error shows in
            # one round (the engine's cross-field rules included).
            try:
                submission.validate_scenario(kind=self.kind_lab.kind, params=params,
                                             preset=data.get("preset") or "")
            except ScenarioError as err:
                self._attach(err)
        axes = self._axes(data)
        if self.errors:
            return data
        try:
            self.submission = submission.validate_submission(
                kind=self.kind_lab.kind, params=params, preset=data.get("preset") or "",
                policies=list(data.get("policies") or []), trials=data.get("trials"),
                base_seed=data.get("base_seed") or 0, name=data.get("name") or "",
                visibility=data.get("visibility") or Visibility.UNLISTED, axes=axes,
                who=self.who, staged=tuple(self.staged), explain=bool(data.get("explain")),
                # (hidden while Explain decisions is off: what is typed there then is not sent)
                explain_tasks=(data.get("explain_tasks") or "") if data.get("explain") else "")
        except ScenarioError as err:
            self._attach(err)
        return data

    def sweep_fields(self):
        return [self[n] for n in ("sweep_param1", "sweep_values1", "sweep_param2",
                                  "sweep_values2")]

    def _axes(self, data) -> list[dict]:
        """The swept parameters as typed (validated with the rest by the submission)."""
        axes = []
        for k in (1, 2):
            param, text = data.get(f"sweep_param{k}"), (data.get(f"sweep_values{k}") or "")
            if not param:
                if text.strip():
                    self.add_error(f"sweep_param{k}", "choose the parameter these values are for")
                continue
            try:
                axes.append(submission.parse_axis_text(param, text))
            except ScenarioError as err:
                self.add_error(f"sweep_values{k}", err.message)
        return axes

    def _params(self, data) -> dict:
        flat = {}
        for name in self.param_names:
            field = self.fields[name]
            value = data.get(name)
            if field.json_type == "json" and value in (None, ""):
                continue  # leave the default
            if field.json_type in ("int", "float", "str") and value in (None, ""):
                if field.optional:
                    flat[field.param] = None
                continue
            flat[field.param] = value
        return _nest(flat)

    def _attach(self, err: ScenarioError) -> None:
        field = err.field
        if field in ("policies", "trials", "base_seed", "name", "visibility", "explain",
                     "explain_tasks", *self.extra_names):
            self.add_error(field, err.message)
            return
        if field == "axes":  # "axis 2: ..." belongs to the second sweep field
            second = err.message.startswith("axis 2")
            self.add_error("sweep_values2" if second else "sweep_values1", err.message)
            return
        # The longest declared parameter that prefixes the error's field (json groups).
        candidates = [n for n in self.param_names
                      if field == n[len(PREFIX):] or field.startswith(n[len(PREFIX):] + ".")]
        if candidates:
            target = max(candidates, key=len)
            prefix = target[len(PREFIX):]
            detail = field[len(prefix) + 1:] if field != prefix else ""
            self.add_error(target, f"{detail}: {err.message}" if detail else err.message)
        else:
            self.add_error(None, str(err))


def _axis_text(value) -> str:
    """A swept value as the sweep field reads it back (submission.parse_axis_text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)
