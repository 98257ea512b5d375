from django.urls import path

from . import views

app_name = "frontend"
urlpatterns = [
    path("", views.home, name="home"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("new/", views.new_index, name="new-index"),
    path("new/<slug:kind>/", views.new_experiment, name="new"),
    path("new/<slug:kind>/estimate/", views.estimate, name="estimate"),
    path("e/<uuid:public_id>/", views.experiment_page, name="experiment"),
    path("e/<uuid:public_id>/compare/", views.compare_policies, name="compare"),
    path("e/<uuid:public_id>/edit/", views.edit_experiment, name="edit"),
    path("e/<uuid:public_id>/cancel/", views.cancel_experiment, name="cancel"),
    path("e/<uuid:public_id>/delete/", views.delete_experiment, name="delete"),
    path("e/<uuid:public_id>/trials/", views.add_trials, name="add-trials"),
    path("e/<uuid:public_id>/runs.csv", views.export_runs, {"fmt": "csv"}, name="runs-csv"),
    path("e/<uuid:public_id>/runs.parquet", views.export_runs, {"fmt": "parquet"},
         name="runs-parquet"),
    path("e/<uuid:public_id>/summary.<str:fmt>", views.export_summary, name="summary"),
    path("r/<uuid:public_id>/tasks.csv", views.export_run_records,
         {"records": "tasks", "fmt": "csv"}, name="tasks-csv"),
    path("r/<uuid:public_id>/tasks.parquet", views.export_run_records,
         {"records": "tasks", "fmt": "parquet"}, name="tasks-parquet"),
    path("r/<uuid:public_id>/series.csv", views.export_run_records,
         {"records": "series", "fmt": "csv"}, name="series-csv"),
    path("r/<uuid:public_id>/series.parquet", views.export_run_records,
         {"records": "series", "fmt": "parquet"}, name="series-parquet"),
    path("r/<uuid:public_id>/result.json", views.run_result_json, name="run-json"),
    path("e/<uuid:public_id>/points.csv", views.export_points_csv, name="points-csv"),
    path("figures/", views.figures_index, name="figures"),
    path("figures/<str:name>/run/", views.run_figure, name="run-figure"),
    path("compare/", views.compare_runs, name="compare-runs"),
    path("compare/experiments/", views.compare_experiments, name="compare-experiments"),
]
