"""How the lab's forms show a kind's file inputs (``simcore.lab.FileInput``): a choice of the
kind's library beside an upload field; an upload is checked by the input's own check, staged,
and named in the scenario as ``upload:<sha256>``."""

from __future__ import annotations

from django import forms

from simcore.errors import ScenarioError
from simcore.lab import FileInput, FormHook, LabKind

from .kinds import PARAM_PREFIX
from .uploads import stage

# The form field attributes the lab's templates read, carried over to the replacing field.
_FIELD_ATTRS = ("unit", "advanced", "param", "json_type", "optional", "group")


class FileChoices:
    """The form hook of a kind's file inputs."""

    def __init__(self, inputs: list[FileInput]):
        self.inputs = inputs

    def customize(self, form) -> None:
        for spec in self.inputs:
            name = PARAM_PREFIX + spec.param
            old = form.fields[name]
            choices = list(spec.library())
            current = form.initial.get(name) or (form.data.get(name) if form.is_bound else None)
            if current and current.startswith("upload:"):
                choices.append((current, f"{spec.uploaded_label} {current[7:19]}…"))
            field = forms.ChoiceField(choices=choices, label=f"{old.label} (library)",
                                      help_text=spec.choice_help, required=False)
            for attr in _FIELD_ATTRS:
                setattr(field, attr, getattr(old, attr))
            form.fields[name] = field
            upload = forms.FileField(required=False, label=spec.upload_label,
                                     help_text=spec.upload_help)
            upload.json_type = "file"
            form.fields[spec.upload_field] = upload
            form.extra_names.append(spec.upload_field)

    def clean(self, form, data: dict) -> None:
        for spec in self.inputs:
            name = PARAM_PREFIX + spec.param
            upload = data.get(spec.upload_field)
            if not upload:
                if data.get(name):
                    continue
                if spec.default is not None:
                    data[name] = spec.default
                elif spec.required and spec.upload_field not in form.errors:
                    form.add_error(name, spec.required)
                continue
            try:
                staged = stage(upload, spec)
            except ScenarioError as err:
                form.add_error(spec.upload_field, err.message)
            else:
                form.staged.append(staged)
                data[name] = staged.ref
                for param, value in spec.on_upload:
                    data[PARAM_PREFIX + param] = value


def form_hook(kind_lab: LabKind) -> FormHook | None:
    """The kind's form behaviour: its file inputs', else its own hook."""
    return FileChoices(kind_lab.inputs) if kind_lab.inputs else kind_lab.form_hook
