from django import template

from simcore.references import spell

register = template.Library()


@register.filter
def ci(cell, digits=2):
    """'mean ± half-width' of a mean_ci dict ('–' when there is no value)."""
    if not cell or cell.get("mean") is None:
        return "–"
    digits = int(digits)
    mean = f"{cell['mean']:.{digits}f}"
    if cell.get("half_width") is None:
        return mean
    return f"{mean} ± {cell['half_width']:.{digits}f}"


@register.filter
def param_title(name, kind_lab):
    """A (dotted) parameter of a kind in words with its unit (presenters.param_title)."""
    from hetsite.presenters import param_title as title

    return title(kind_lab, name)


@register.filter
def spelled(text, kind):
    """A text of scenario kind ``kind`` with its bare spec codes spelled out (title and
    document, the code kept; simcore.references.spell)."""
    return spell(text, kind)


@register.filter
def duration(seconds):
    """Seconds as "1 h 05 min", "3 min 20 s" or "12 s"."""
    from hetsite.presenters import duration as words

    return words(seconds)


@register.filter
def pct(value):
    return f"{float(value or 0):.0f}"


@register.filter
def get(mapping, key):
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def described(field):
    """The field's widget tied to its help and errors (aria-describedby, aria-invalid)."""
    ids = []
    if field.help_text:
        ids.append(f"{field.auto_id}_help")
    for k, _ in enumerate(field.errors):
        ids.append(f"{field.auto_id}_error{k + 1 if k else ''}")
    attrs = {}
    if ids:
        attrs["aria-describedby"] = " ".join(ids)
    if field.errors:
        attrs["aria-invalid"] = "true"
    return field.as_widget(attrs=attrs)


@register.simple_tag
def plotly_js():
    """The URL of the versioned, compressed, long-cached plotly.js that pages load (the
    cartesian bundle; hetsite.staticfinders)."""
    from django.templatetags.static import static

    from hetsite.staticfinders import URL

    return static(URL)


@register.simple_tag
def plotly_full_js():
    """The full plotly.js, which app.js loads for a figure of another trace type."""
    from django.templatetags.static import static

    from hetsite.staticfinders import FULL_URL

    return static(FULL_URL)
