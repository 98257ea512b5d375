from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from . import views

urlpatterns = [
    path("kinds/", views.KindsView.as_view(), name="api-kinds"),
    path("presets/", views.PresetsView.as_view(), name="api-presets"),
    path("policies/", views.PoliciesView.as_view(), name="api-policies"),
    path("scenarios/", views.ScenarioListCreate.as_view(), name="api-scenarios"),
    path("scenarios/<uuid:id>/", views.ScenarioDetail.as_view(), name="api-scenario"),
    path("uploads/", views.UploadList.as_view(), name="api-uploads"),
    re_path(r"^uploads/(?P<sha256>[0-9a-f]{64})/$", views.UploadDetail.as_view(),
            name="api-upload"),
    path("experiments/", views.ExperimentListCreate.as_view(), name="api-experiments"),
    path("experiments/<uuid:id>/", views.ExperimentDetail.as_view(), name="api-experiment"),
    path("experiments/<uuid:id>/cancel/", views.ExperimentCancel.as_view(),
         name="api-experiment-cancel"),
    path("experiments/<uuid:id>/trials/", views.ExperimentTrials.as_view(),
         name="api-experiment-trials"),
    path("experiments/<uuid:id>/progress/", views.ExperimentProgress.as_view(),
         name="api-experiment-progress"),
    path("experiments/<uuid:id>/runs/", views.ExperimentRuns.as_view(),
         name="api-experiment-runs"),
    path("experiments/<uuid:id>/figures/<slug:chart>/", views.ExperimentFigure.as_view(),
         name="api-experiment-figure"),
    path("figures/", views.FigureList.as_view(), name="api-figures"),
    path("figures/<str:name>/run/", views.FigureRun.as_view(), name="api-figure-run"),
    path("runs/<uuid:id>/", views.RunDetail.as_view(), name="api-run"),
    path("runs/<uuid:id>/result/", views.RunResult.as_view(), name="api-run-result"),
    path("runs/<uuid:id>/figures/<slug:chart>/", views.RunFigure.as_view(),
         name="api-run-figure"),
    path("runs/<uuid:id>/decisions/", views.RunDecisions.as_view(), name="api-run-decisions"),
    path("runs/<uuid:id>/decisions/tasks/", views.RunDecisionTasks.as_view(),
         name="api-run-decision-tasks"),
    path("runs/<uuid:id>/decisions/divergence/", views.RunDivergence.as_view(),
         name="api-run-divergence"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file: no inline script, so the
    # page works under the site's Content-Security-Policy.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]
