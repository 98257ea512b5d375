"""The new-experiment form, generated from the engine's parameter declarations.

Every scenario parameter becomes a field with its unit, allowed range and help; advanced ones
are folded away in the template. Validation runs the engine's own checks through the service,
so the form and the API accept and reject exactly the same input, and errors land beside the
field they name.
"""

from __future__ import annotations

from django import forms

from hetsite.kinds import PARAM_PREFIX as PREFIX
from hetsite.kinds import LabKind
from hetsite.services import submission
from simcore.errors import ScenarioError
from simcore.params import describe


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


def param_field(d: dict) -> forms.Field:
    """One Django field from one ``describe()`` entry."""
    help_bits = [d["help"]] if d["help"] else []
    if d["range"]:
        help_bits.append(f"allowed: {d['range']}")
    common = {"label": d["label"], "help_text": "; ".join(help_bits),
              "required": not d["optional"] and d["type"] not in ("bool", "json")}
    kind = d["type"]
    if kind == "bool":
        field = forms.BooleanField(**common)
    elif kind == "int":
        field = forms.IntegerField(min_value=_lower(d), max_value=d["max"], **common)
    elif kind == "float":
        field = forms.FloatField(min_value=_lower(d), max_value=d["max"], **common)
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
    field.json_type = kind
    field.optional = d["optional"]
    return field


def _lower(d):
    # Exclusive lower bounds cannot be expressed by Django's validators; the engine checks them.
    return None if d.get("min_exclusive") else d["min"]


class ExperimentForm(forms.Form):
    name = forms.CharField(max_length=200, required=False,
                           help_text="optional; a name is made from the preset and policies")
    preset = forms.CharField(required=False, widget=forms.HiddenInput)
    policies = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple,
                                         help_text="heuristics to compare")
    trials = forms.IntegerField(min_value=1, initial=3,
                                help_text="random instances (seeds) per policy")
    base_seed = forms.IntegerField(min_value=0, initial=0, label="first seed",
                                   help_text="trial k uses seed first seed + k")

    def __init__(self, ui: LabKind, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ui = ui
        self.fields["trials"] = forms.IntegerField(
            min_value=1, max_value=submission.limits()["max_trials"], initial=3,
            help_text="random instances (seeds) per policy")
        policies = ui.engine.list_policies(ui.kind)
        self.policy_info = {p.name: p for p in policies}
        self.fields["policies"].choices = [(p.name, p.label) for p in policies]
        self.param_names = []
        for d in describe(ui.environment.config_cls):
            name = PREFIX + d["name"]
            self.fields[name] = param_field(d)
            self.param_names.append(name)
        self.extra_names: list[str] = []
        self.hook = ui.form_hook
        if self.hook is not None:
            self.hook.customize(self)
        self.submission = None

    # -- prefill ---------------------------------------------------------------------------------
    @classmethod
    def initial_for(cls, ui: LabKind, params: dict, preset: str = "", policies=None,
                    trials=None, base_seed=None, name="") -> dict:
        initial = {"preset": preset, "name": name,
                   "policies": policies or ui.default_policies,
                   "trials": trials or 3, "base_seed": base_seed or 0}
        for dotted, value in _flatten(params).items():
            initial[PREFIX + dotted] = value
        return initial

    # -- grouping for the template ---------------------------------------------------------
    def basic_params(self):
        return [self[n] for n in self.param_names if not self.fields[n].advanced]

    def advanced_params(self):
        return [self[n] for n in self.param_names if self.fields[n].advanced]

    def extra_fields(self):
        return [self[n] for n in self.extra_names]

    # -- validation ------------------------------------------------------------------------------
    def clean(self):
        data = super().clean()
        if self.hook is not None and not self.errors:
            self.hook.clean(self, data)
        if self.errors:
            return data
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
        try:
            self.submission = submission.validate_submission(
                kind=self.ui.kind, params=_nest(flat), preset=data.get("preset") or "",
                policies=list(data.get("policies") or []), trials=data.get("trials"),
                base_seed=data.get("base_seed") or 0, name=data.get("name") or "")
        except ScenarioError as err:
            self._attach(err)
        return data

    def _attach(self, err: ScenarioError) -> None:
        field = err.field
        if field in ("policies", "trials", "base_seed", "name", *self.extra_names):
            self.add_error(field, err.message)
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

