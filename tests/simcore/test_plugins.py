"""The core's plugin loader: a kind's plugins register with it, all of a plugin's policies or
none, and every way a plugin can fail becomes a named failure instead of an exception."""

import importlib
import sys
import textwrap

import pytest

from simcore import plugins
from simcore.registry import Engine

KIND = "plugin-test-kind"
# The kind's policy type, in a module the plugins import as a kind's base is imported.
BASE = """
class Base:
    def order(self, jobs):
        raise NotImplementedError


class Own(Base):
    def order(self, jobs):
        return jobs
"""


@pytest.fixture
def install(tmp_path, monkeypatch):
    """install(dist, module_source) -> a distribution ``dist`` 1.2 whose entry point, named
    after the test kind, names ``register`` in a module of its own."""
    (tmp_path / "plugin_test_base.py").write_text(BASE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(plugins, "_allowed", (None,))
    modules = ["plugin_test_base"]

    def install(dist, source, kind=KIND):
        module = dist.replace("-", "_")
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
        info = tmp_path / f"{module}-1.2.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.2\n")
        (info / "entry_points.txt").write_text(
            f"[{plugins.GROUP}]\n{kind} = {module}:register\n")
        modules.append(module)

    yield install
    for module in modules:
        sys.modules.pop(module, None)


def engine():
    base = importlib.import_module("plugin_test_base")
    engine = Engine("t", "t", kinds={KIND: "nowhere"})
    engine.kind(KIND, title="k", description="k", config_cls=object, policy_type=base.Base)(
        lambda *a: None)
    engine.policy(KIND, "own", label="Own", description="", spec="")(base.Own)
    base.ENGINE = engine  # within reach of a plugin that bypasses its register(policies)
    return engine


GOOD = '''
    from plugin_test_base import Base

    class Reverse(Base):
        def order(self, jobs):
            return jobs[::-1]

    def register(policies):
        assert policies.policy_type is Base
        policies.policy("reverse", label="Reverse", description="last first")(Reverse)
    '''


def test_a_plugin_s_policies_register_with_their_plugin_and_the_kind_s_own_stay(install):
    install("good-plugin", GOOD)
    e = engine()
    assert [p.name for p in e.list_policies(KIND)] == ["own", "reverse"]
    info = e.get_policy(KIND, "reverse")
    assert info.plugin == plugins.Plugin("good-plugin", "1.2")
    assert info.public()["plugin"] == {"name": "good-plugin", "version": "1.2"}
    assert info.spec == "plugin good-plugin 1.2" and e.get_policy(KIND, "own").plugin is None
    assert e.plugin_failures == []
    assert plugins.installed([e]) == [(info.plugin, [f"{KIND}/reverse"])]


def test_one_wrong_policy_keeps_out_every_policy_of_its_plugin(install):
    install("half-wrong", '''
        from plugin_test_base import Base

        class Fine(Base):
            pass

        def register(policies):
            policies.policy("fine", label="Fine", description="")(Fine)
            policies.policy("plain", label="Plain", description="")(lambda jobs: jobs)
        ''')
    e = engine()
    assert [p.name for p in e.list_policies(KIND)] == ["own"]
    [failure] = e.plugin_failures
    assert failure.plugin == "half-wrong"
    assert failure.entry_point == f"{KIND} = half_wrong:register"
    assert failure.error.startswith("TypeError: policy 'plain' of kind 'plugin-test-kind' must "
                                    "be a subclass of plugin_test_base.Base")


@pytest.mark.parametrize("source, error", [
    ('''
     from plugin_test_base import Own

     def register(policies):
         policies.policy("own", label="Mine", description="")(Own)
     ''', "RuntimeError: policy 'own' registered twice for 'plugin-test-kind'"),
    ('''
     def register(policies):
         pass
     ''', "RuntimeError: its register function added no policy to 'plugin-test-kind'"),
    ('''
     def register(policies):
         raise ValueError("no licence file")
     ''', "ValueError: no licence file"),
    ('''
     register = None
     ''', "TypeError: 'NoneType' object is not callable"),
    ('''
     import plugin_test_base

     def register(policies):
         plugin_test_base.ENGINE.policy("plugin-test-kind", "sneaky", label="S",
                                        description="", spec="")(plugin_test_base.Own)
     ''', "RuntimeError: it registered sneaky on the engine itself; a plugin registers "
          "through register(policies)"),
])
def test_every_way_a_plugin_fails_is_a_named_failure_never_an_exception(install, source, error):
    install("failing-plugin", source)
    e = engine()
    assert [p.name for p in e.list_policies(KIND)] == ["own"]
    assert [(f.plugin, f.error) for f in e.plugin_failures] == [("failing-plugin", error)]


def test_the_allowed_names_compare_as_pip_compares_them(install, monkeypatch):
    install("good-plugin", GOOD)
    plugins.allow(["Good_Plugin"])
    assert "reverse" in [p.name for p in engine().list_policies(KIND)]
    monkeypatch.setenv(plugins.ENV, "")  # an empty setting loads none, unlike an unset one
    monkeypatch.setattr(plugins, "_allowed", None)
    assert [p.name for p in engine().list_policies(KIND)] == ["own"]
    monkeypatch.delenv(plugins.ENV)
    assert "reverse" in [p.name for p in engine().list_policies(KIND)]


def test_an_entry_point_named_after_no_kind_and_an_absent_allowed_name_are_reported(install):
    install("typo-plugin", GOOD, kind="plugin-test-knid")
    plugins.allow(["typo-plugin", "not-installed-anywhere"])
    e = engine()
    assert [p.name for p in e.list_policies(KIND)] == ["own"]
    found = {f.plugin: f.error for f in plugins.problems([e], [KIND])}
    assert found["typo-plugin"].startswith("no scenario kind is called 'plugin-test-knid'")
    assert found["not-installed-anywhere"] == ("HETSITE_PLUGINS names it, but it is not "
                                                "installed")


def test_a_plugin_that_loads_another_kind_on_import_leaves_that_kind_s_policies_alone(
        install, tmp_path):
    (tmp_path / "plugin_test_other.py").write_text(textwrap.dedent('''
        import plugin_test_base

        ENGINE = plugin_test_base.ENGINE
        ENGINE.kind("other-kind", title="o", description="o", config_cls=object,
                    policy_type=plugin_test_base.Base)(
            lambda *a: None)
        ENGINE.policy("other-kind", "theirs", label="T", description="", spec="")(
            plugin_test_base.Own)
        '''))
    install("importing-plugin", "import plugin_test_other  # noqa: F401\n" + textwrap.dedent(
        GOOD))
    e = engine()
    e.modules["other-kind"] = "plugin_test_other"
    try:
        assert "reverse" in [p.name for p in e.list_policies(KIND)]
        assert e.plugin_failures == []
        assert [p.name for p in e.list_policies("other-kind")] == ["theirs"]
    finally:
        sys.modules.pop("plugin_test_other", None)
