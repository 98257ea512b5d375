"""Policy plugins (docs/plugins.md): the examples under examples/, installed by pip into a
temporary folder (no network, no build isolation), show in the command line, the API, the form,
a finished lab experiment and a sweep, each run recording the plugin's name and version;
broken plugins (an import error, a policy of the wrong type) are named in the command line and
on the staff's plugins page while the rest keeps working; ``HETSITE_PLUGINS`` restricts."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core import checks
from django.core.management import call_command
from django.test import Client

from hetsite.kinds import check_kinds
from hetsite.models import Status
from hetsite.services import submission
from scheduling.engine import ENGINE
from simcore import plugins
from simcore.errors import RULES
from uav.engine import ENGINE as UAV_ENGINE

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SJF = {"name": "hetsite-replay-sjf", "version": "0.1.0"}
UPE = {"name": "hetsite-upe-weighted", "version": "0.2.0"}


def installed(dist: str, version: str, kind: str, module: str, source: str) -> dict:
    """A plugin's files as pip leaves them: its module, and metadata naming its entry point."""
    info = f"{module}-{version}.dist-info"
    return {f"{module}.py": source,
            f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n",
            f"{info}/entry_points.txt": f"[hetsite.policies]\n{kind} = {module}:register\n"}


# Two broken plugins: one does not import, one registers a function where the replay kind
# wants a subclass of its Replay.
BROKEN = {
    **installed("broken-import", "1.0", "swf-replay", "broken_import", '''
        import a_module_nobody_installed  # noqa: F401

        def register(policies):
            pass
        '''),
    **installed("wrong-protocol", "2.0", "swf-replay", "wrong_protocol", '''
        def first_come(jobs, clock=None, check=False):
            return jobs

        def register(policies):
            policies.policy("not-a-replay", label="Not a replay", description="a function",
                            spec="")(first_come)
        '''),
}
# A plugin that loads fine and then breaks an engine rule at run time: every arriving job
# starts at once, free nodes or not.
RULE_BREAKER = installed("eager-start", "0.9", "swf-replay", "eager_start", '''
    from scheduling.swf_replay.sim import Replay

    class EagerStart(Replay):
        def schedule(self, t, completed, first_new):
            for j in range(first_new, self.arrived):
                self.start(j, t)

    def register(policies):
        policies.policy("eager-start", label="Eager start", description="no waiting",
                        spec="")(EagerStart)
    ''')


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory):
    """The examples, installed as pip installs them, into one folder."""
    target = tmp_path_factory.mktemp("plugins") / "site"
    for example in ("replay-sjf", "upe-weighted"):
        copy = target.parent / example  # pip builds in the source folder: keep the tree clean
        shutil.copytree(EXAMPLES / example, copy, ignore=shutil.ignore_patterns("tests"))
        pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                              "--no-build-isolation", "--no-index", "--target", str(target),
                              str(copy)], capture_output=True, text=True)
        assert pip.returncode == 0, pip.stdout + pip.stderr
    return target


# A UAV policy from a plugin: the kind's own random-best-sensor class, on its UavPolicy base,
# registered under another name with the options it is built with.
UAV_PLUGIN = installed("uav-alias", "0.3", "uav", "uav_alias", '''
    from uav.engine.policies import policy_class

    def register(policies):
        cls, options = policy_class("rbs")
        policies.policy("best-sensor-too", label="Random best sensor (plugin)",
                        description="rbs, from a plugin", spec="", **options)(cls)
    ''')


def write_tree(path: Path, files: dict) -> Path:
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(textwrap.dedent(text).lstrip())
    return path


def test_the_uav_engine_loads_its_kind_s_plugins_too(tmp_path):
    plugin = write_tree(tmp_path / "uav-plugin", UAV_PLUGIN)
    out = cli("policies", path=[plugin], engine="uav.engine")
    assert out.returncode == 0 and out.stderr == ""
    assert "[plugin uav-alias 0.3]" in listed(out.stdout)["best-sensor-too"]
    for policy in ("best-sensor-too", "rbs"):
        run = cli("run", "--preset", "small-baseline", "--policy", policy, "--seed", "4",
                  "--out", str(tmp_path / f"{policy}.json"), path=[plugin], engine="uav.engine")
        assert run.returncode == 0, run.stderr
    mine, theirs = (json.loads((tmp_path / f"{p}.json").read_text())
                    for p in ("best-sensor-too", "rbs"))
    assert mine["meta"]["plugin"] == {"name": "uav-alias", "version": "0.3"}
    assert mine["summary"] == theirs["summary"]  # the same rule, the same seed


@pytest.fixture(scope="module")
def broken_dir(tmp_path_factory):
    return write_tree(tmp_path_factory.mktemp("broken"), BROKEN)


def cli(*args, path, allow=None, engine="scheduling.engine"):
    env = {"PYTHONPATH": os.pathsep.join([*map(str, path), str(ROOT)]), "PATH": "/usr/bin:/bin"}
    if allow is not None:
        env[plugins.ENV] = allow
    return subprocess.run([sys.executable, "-m", engine, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True)


def listed(out: str) -> dict[str, str]:
    return {line.split()[0]: line for line in out.splitlines() if line.strip()}


def test_the_command_line_lists_and_runs_the_installed_plugins_policy(site_dir, tmp_path):
    before = listed(cli("policies", path=[]).stdout)
    out = cli("policies", path=[site_dir])
    assert out.returncode == 0 and out.stderr == ""
    policies = listed(out.stdout)
    assert set(policies) - set(before) == {"shortest-first", "max-upe2-ph", "max-upe-half-ph"}
    assert "swf-replay" in policies["shortest-first"]
    assert "[plugin hetsite-replay-sjf 0.1.0]" in policies["shortest-first"]
    assert "parallel-energy" in policies["max-upe2-ph"]
    assert "[plugin hetsite-upe-weighted 0.2.0]" in policies["max-upe-half-ph"]

    run = cli("run", "--preset", "swf-example", "--policy", "shortest-first",
              "--out", str(tmp_path / "r.json"), path=[site_dir])
    assert run.returncode == 0, run.stderr
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["meta"]["plugin"] == SJF and result["meta"]["policy"] == "shortest-first"
    # The project's own policies record no plugin: their results are as before.
    own = cli("run", "--preset", "swf-example", "--policy", "easy",
              "--out", str(tmp_path / "own.json"), path=[site_dir])
    assert own.returncode == 0
    assert "plugin" not in json.loads((tmp_path / "own.json").read_text())["meta"]


def test_the_tutorial_s_example_is_the_example_plugin_word_for_word():
    doc = (ROOT / "docs" / "plugins.md").read_text()
    section = doc[doc.index("## A 30-line example"):]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert block == (EXAMPLES / "replay-sjf" / "replay_sjf" / "__init__.py").read_text()
    assert len(block.splitlines()) <= 40
    # Every rule the engine enforces is described.
    enforced = doc[doc.index("## What the engine enforces"):doc.index("## A 30-line example")]
    assert [rule for rule in RULES if f"`{rule}`" not in enforced] == []


def test_a_sweep_on_a_figure_s_seeds_puts_the_plugin_beside_the_published_policies(site_dir):
    # docs/plugins.md, "On a figure": ch3-quick's preset and seeds, the plugin policy added.
    figure = ENGINE.get_figure("ch3-quick")
    out = cli("sweep", "--preset", figure.preset, "--policies",
              ",".join([*figure.policies, "max-upe2-ph"]), "--trials", "2", "--first-seed",
              str(figure.first_seed), "--baseline", "max-upe-ph", path=[site_dir])
    assert out.returncode == 0, out.stderr
    rows = {line.split()[1]: line for line in out.stdout.splitlines()
            if line.startswith("-")}
    assert set(rows) == {"easy", "max-upe-ph", "max-upe2-ph"}
    assert rows["max-upe2-ph"].split()[2] == "2"  # two paired seeds


@pytest.mark.parametrize("example", ["replay-sjf", "upe-weighted"])
def test_each_example_s_own_tests_pass_where_it_is_installed(site_dir, example):
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:django"],
                         cwd=EXAMPLES / example, capture_output=True, text=True,
                         env={"PYTHONPATH": f"{site_dir}{os.pathsep}{ROOT}",
                              "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "skipped" not in out.stdout


def test_broken_plugins_are_named_and_the_rest_still_works(site_dir, broken_dir, tmp_path):
    out = cli("policies", path=[site_dir, broken_dir])
    assert out.returncode == 0
    assert "shortest-first" in listed(out.stdout) and "easy" in listed(out.stdout)
    errors = out.stderr.splitlines()
    assert ("error: plugin broken-import (entry point swf-replay = broken_import:register): "
            "ModuleNotFoundError: No module named 'a_module_nobody_installed'") in errors
    wrong = next(line for line in errors if "wrong-protocol" in line)
    assert ("policy 'not-a-replay' of kind 'swf-replay' must be a subclass of "
            "scheduling.swf_replay.sim.Replay") in wrong

    # Asking for the policy the broken plugin would have added: the error, and why.
    run = cli("run", "--preset", "swf-example", "--policy", "not-a-replay", path=[broken_dir])
    assert run.returncode == 2
    assert "unknown policy 'not-a-replay'" in run.stderr
    assert "wrong-protocol" in run.stderr and "must be a subclass" in run.stderr
    # Another kind of the engine, and the other engine, are untouched.
    ok = cli("run", "--preset", "swf-example", "--policy", "shortest-first",
             "--out", str(tmp_path / "r.json"), path=[site_dir, broken_dir])
    assert ok.returncode == 0, ok.stderr
    assert cli("policies", path=[broken_dir], engine="uav.engine").returncode == 0


def test_hetsite_plugins_restricts_which_plugins_load(site_dir, broken_dir):
    only = cli("policies", path=[site_dir, broken_dir], allow="hetsite-replay-sjf")
    assert "shortest-first" in listed(only.stdout) and only.stderr == ""
    none_of_them = cli("policies", path=[site_dir, broken_dir], allow="broken_import, nope")
    assert "shortest-first" not in listed(none_of_them.stdout)
    errors = none_of_them.stderr.splitlines()
    assert any("broken-import" in e and "ModuleNotFoundError" in e for e in errors)
    assert "error: plugin nope: HETSITE_PLUGINS names it, but it is not installed" in errors
    assert not any("wrong-protocol" in e for e in errors)


@pytest.fixture(scope="module")
def rule_breaker_dir(tmp_path_factory):
    return write_tree(tmp_path_factory.mktemp("rule-breaker"), RULE_BREAKER)


def test_a_plugin_policy_that_breaks_a_rule_fails_its_run_by_the_rule_s_name(rule_breaker_dir):
    out = cli("run", "--preset", "swf-example", "--policy", "eager-start",
              path=[rule_breaker_dir])
    assert out.returncode == 3
    assert "error: policy 'eager-start' broke the rule 'capacity'" in out.stderr


@pytest.fixture
def on_site(site_dir, broken_dir, monkeypatch):
    """This process as a site that has the examples and the broken plugins installed: both
    engines load their kinds' plugins afresh, as a new process would."""
    for engine in (ENGINE, UAV_ENGINE):
        engine.load()  # the project's own, registered for good before the copies below
    monkeypatch.syspath_prepend(str(broken_dir))
    monkeypatch.syspath_prepend(str(site_dir))
    monkeypatch.setattr(plugins, "_allowed", (None,))
    for engine in (ENGINE, UAV_ENGINE):
        monkeypatch.setattr(engine, "_loaded", set())
        monkeypatch.setattr(engine, "policies", dict(engine.policies))
        monkeypatch.setattr(engine, "plugin_failures", [])
    yield
    for name in [m for m in sys.modules if m.split(".")[0] in (
            "replay_sjf", "upe_weighted", "wrong_protocol", "eager_start")]:
        del sys.modules[name]


def test_the_site_offers_the_plugin_policy_and_records_its_plugin_in_every_run(on_site):
    api = Client().get("/api/policies/?kind=swf-replay").json()
    mine = next(p for p in api if p["name"] == "shortest-first")
    assert mine["plugin"] == SJF and mine["label"] == "Shortest estimate first"
    assert next(p for p in api if p["name"] == "easy")["plugin"] is None
    kinds = {k["kind"]: k for k in Client().get("/api/kinds/").json()}
    assert "shortest-first" in [p["name"] for p in kinds["swf-replay"]["policies"]]
    form = Client().get("/new/swf-replay/").content.decode()
    assert 'value="shortest-first"' in form and "not-a-replay" not in form

    experiment = submission.create_experiment(submission.validate_submission(
        kind="swf-replay", preset="swf-example", policies=["easy", "shortest-first"],
        trials=1))
    experiment.refresh_from_db()
    assert experiment.status == Status.DONE, [r.error for r in experiment.runs.all()]
    runs = {run.policy: run for run in experiment.runs.all()}
    assert runs["shortest-first"].plugin == SJF and runs["easy"].plugin is None
    direct = ENGINE.simulate(ENGINE.preset_scenario("swf-example"), "shortest-first")
    assert runs["shortest-first"].summary == direct.summary
    assert direct.summary != ENGINE.simulate(ENGINE.preset_scenario("swf-example"),
                                             "easy").summary
    run_api = Client().get(f"/api/runs/{runs['shortest-first'].public_id}/").json()
    assert run_api["plugin"] == SJF
    page = Client().get(f"/e/{experiment.public_id}/").content.decode()
    assert "shortest-first: hetsite-replay-sjf 0.1.0" in page


def test_a_sweep_runs_the_ch3_plugin_policy_beside_max_upe_at_every_point(on_site):
    policies = ["max-upe-ph", "max-upe2-ph"]
    experiment = submission.create_experiment(submission.validate_submission(
        kind="parallel-energy", preset="small", policies=policies, trials=1,
        axes=[{"param": "energy.budget_gj", "values": [0.6, 0.9]}]))
    experiment.refresh_from_db()
    assert experiment.status == Status.DONE, [r.error for r in experiment.runs.all()]
    cells = {(row["point"], row["policy"]): row["runs"] for row in experiment.summary}
    assert cells == {(p, pol): 1 for p in (0, 1) for pol in policies}
    for run in experiment.runs.all():
        assert run.plugin == (UPE if run.policy == "max-upe2-ph" else None)
        direct = ENGINE.simulate(ENGINE.preset_scenario("small", run.overrides), run.policy,
                                 seed=run.seed)
        assert run.summary == direct.summary


def test_the_staff_page_names_each_failed_plugin_and_strangers_do_not_see_it(on_site):
    anonymous = Client().get("/admin/plugins/")
    assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
    staff = Client()
    staff.force_login(User.objects.create_user("ops", is_staff=True))
    page = staff.get("/admin/plugins/")
    assert page.status_code == 200
    html = page.content.decode()
    failed = html[html.index('id="failed-plugins"'):html.index('id="installed-title"')]
    assert "broken-import" in failed and "No module named" in failed
    assert "wrong-protocol" in failed and "scheduling.swf_replay.sim.Replay" in failed
    loaded = html[html.index('id="loaded-plugins"'):]
    assert "hetsite-replay-sjf" in loaded and "swf-replay/shortest-first" in loaded
    # manage.py check (and runserver, migrate) warns about each, and the site still starts.
    warnings = [w for w in check_kinds() if w.id == "hetsite.W003"]
    assert sorted(w.msg.split(" (")[0] for w in warnings) == ["plugin broken-import",
                                                             "plugin wrong-protocol"]
    assert all(w.level == checks.WARNING for w in warnings)
    # The site keeps serving, the kinds and their own policies with it.
    assert Client().get("/api/kinds/").status_code == 200
    assert 'value="easy"' in Client().get("/new/swf-replay/").content.decode()


@pytest.mark.browser
def test_in_chromium_staff_read_each_failure_and_a_result_page_names_the_plugin(
        on_site, live_server, page, admin_user):
    experiment = submission.create_experiment(submission.validate_submission(
        kind="swf-replay", preset="swf-example", policies=["shortest-first"], trials=1))
    page.goto(f"{live_server.url}/e/{experiment.public_id}/")
    assert page.inner_text("#plugins") == "shortest-first: hetsite-replay-sjf 0.1.0"

    page.goto(f"{live_server.url}/admin/login/?next=/admin/plugins/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", "password")
    page.click("input[type=submit]")
    page.wait_for_selector("#failed-plugins")
    rows = [[cell.inner_text() for cell in row.locator("td").all()]
            for row in page.locator("#failed-plugins tbody tr").all()]
    assert sorted(r[:2] for r in rows) == [
        ["broken-import", "swf-replay = broken_import:register"],
        ["wrong-protocol", "swf-replay = wrong_protocol:register"]]
    errors = dict((r[0], r[2]) for r in rows)
    assert errors["broken-import"] == ("ModuleNotFoundError: No module named "
                                       "'a_module_nobody_installed'")
    assert errors["wrong-protocol"].startswith(
        "TypeError: policy 'not-a-replay' of kind 'swf-replay' must be a subclass of "
        "scheduling.swf_replay.sim.Replay")
    loaded = [[cell.inner_text() for cell in row.locator("td").all()]
              for row in page.locator("#loaded-plugins tbody tr").all()]
    assert ["hetsite-replay-sjf", "0.1.0", "swf-replay/shortest-first"] in loaded
    assert ["hetsite-upe-weighted", "0.2.0",
            "parallel-energy/max-upe2-ph, parallel-energy/max-upe-half-ph"] in loaded


@pytest.mark.realstack
def test_a_real_worker_loads_the_plugin_itself_and_records_it_on_the_run(
        on_site, site_dir, database, live_celery, start_worker, wait_for):
    start_worker(PYTHONPATH=os.pathsep.join([str(site_dir), str(ROOT)]))
    experiment = submission.create_experiment(submission.validate_submission(
        kind="swf-replay", preset="swf-example", policies=["easy", "shortest-first"],
        trials=1))
    wait_for(lambda: experiment.runs.exclude(status__in=(Status.DONE, Status.FAILED)).count()
             == 0, 240, "the runs to finish")
    runs = {run.policy: run for run in experiment.runs.all()}
    assert all(r.status == Status.DONE and r.worker for r in runs.values()), [
        r.error for r in runs.values()]
    assert runs["shortest-first"].plugin == SJF and runs["easy"].plugin is None


def test_the_site_s_setting_restricts_its_plugins_and_check_names_the_missing_one(
        site_dir, broken_dir):
    env = {"PYTHONPATH": os.pathsep.join([str(site_dir), str(broken_dir), str(ROOT)]),
           "PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "hetsite.settings_test",
           plugins.ENV: "hetsite-upe-weighted,not-installed-here"}
    out = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr  # warnings only: the site starts
    warnings = [line for line in (out.stdout + out.stderr).splitlines() if "hetsite.W003" in line]
    assert len(warnings) == 1 and "plugin not-installed-here" in warnings[0], warnings
    assert "not installed" in warnings[0]


def test_in_the_lab_the_rule_breaking_plugin_s_run_fails_by_name_and_the_others_finish(
        on_site, rule_breaker_dir, monkeypatch):
    monkeypatch.syspath_prepend(str(rule_breaker_dir))  # before the engines load (on_site)
    experiment = submission.create_experiment(submission.validate_submission(
        kind="swf-replay", preset="swf-example", policies=["easy", "eager-start"], trials=1))
    runs = {run.policy: run for run in experiment.runs.all()}
    assert runs["easy"].status == Status.DONE
    failed = runs["eager-start"]
    assert failed.status == Status.FAILED and failed.result_bytes == 0
    assert failed.error.startswith("policy 'eager-start' broke the rule 'capacity'")


def test_a_figure_runs_with_the_plugin_policy_added_on_its_seeds(on_site, tmp_path, capsys):
    # manage.py reproduce --with-policy: where the plugin stands against each published policy.
    call_command("reproduce", "ch3-quick", "--with-policy", "max-upe2-ph", "--trials", "2",
                 "--in-process", "--jobs", "1", "--no-png", "--out", str(tmp_path))
    data = json.loads((tmp_path / "ch3-quick.json").read_text())
    assert {(c["better"], c["worse"], c["n"]) for c in data["standing"]} == {
        ("max-upe2-ph", "easy", 2), ("max-upe2-ph", "max-upe-ph", 2)}
    assert "max-upe2-ph vs max-upe-ph on pct_max_utility" in capsys.readouterr().out
    # The figures page offers it beside every ch. 3 figure; the lab's figure experiment with
    # it added records the plugin on its runs.
    page = Client().get("/figures/").content.decode()
    assert 'name="with_policies" value="max-upe2-ph"' in page
    experiment = submission.create_experiment(submission.figure_submission(
        "ch3-quick", 2, with_policies=["max-upe2-ph"]))
    experiment.refresh_from_db()
    assert experiment.status == Status.DONE and experiment.figure == "ch3-quick"
    assert experiment.policies == ["easy", "max-upe-ph", "max-upe2-ph"]
    seeds = {run.seed for run in experiment.runs.all()}
    assert seeds == set(data["seeds"]) == {1000, 1001}
    assert {run.policy: run.plugin for run in experiment.runs.all()} == {
        "easy": None, "max-upe-ph": None, "max-upe2-ph": UPE}
    page = Client().get(f"/e/{experiment.public_id}/").content.decode()
    assert 'id="standing"' in page and "max-upe2-ph: hetsite-upe-weighted 0.2.0" in page
