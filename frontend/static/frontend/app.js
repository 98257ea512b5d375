// hetsite pages: draw the embedded figures, poll progress, load run charts on demand.
(function () {
  "use strict";
  var config = {responsive: true, displaylogo: false};

  function draw(el, figure) {
    if (!window.Plotly || !el) return;
    var layout = Object.assign({autosize: true}, figure.layout || {});
    if (!layout.height) layout.height = 360;
    Plotly.newPlot(el, figure.data || [], layout, config);
  }

  // Behaviour hooks declared in the markup (no inline handlers: the CSP forbids them).
  document.querySelectorAll("[data-autosubmit]").forEach(function (el) {
    el.addEventListener("change", function () { el.form.submit(); });
  });
  document.querySelectorAll("[data-select-on-click]").forEach(function (el) {
    el.addEventListener("click", function () { el.select(); });
  });
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (!window.confirm(form.dataset.confirm)) ev.preventDefault();
    });
  });

  var embedded = document.getElementById("figures-data");
  if (embedded) {
    JSON.parse(embedded.textContent).forEach(function (f) {
      draw(document.getElementById("chart-" + f.id), f.figure);
    });
  }

  var runForm = document.getElementById("run-chart-form");
  if (runForm) {
    var show = function (ev) {
      if (ev) ev.preventDefault();
      var run = document.getElementById("run-chart-run").value;
      var chart = document.getElementById("run-chart-id").value;
      var target = document.getElementById("run-chart");
      target.textContent = "loading…";
      fetch("/api/runs/" + run + "/figures/" + chart + "/")
        .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
        .then(function (fig) { target.textContent = ""; draw(target, fig); })
        .catch(function (e) { target.textContent = "could not load the chart (" + e.message + ")"; });
    };
    runForm.addEventListener("submit", show);
  }

  var section = document.getElementById("progress-section");
  if (section && section.dataset.final !== "1") {
    var url = section.dataset.url;
    var poll = function () {
      fetch(url, {headers: {"Accept": "application/json"}})
        .then(function (r) { return r.json(); })
        .then(function (p) {
          var pct = Math.round(p.progress) + "%";
          document.getElementById("overall-fill").style.width = pct;
          document.getElementById("overall-text").textContent = pct;
          var badge = document.getElementById("exp-status");
          badge.textContent = p.status;
          badge.className = "badge " + p.status;
          p.runs.forEach(function (run) {
            var row = document.querySelector('tr[data-run="' + run.id + '"]');
            if (!row) return;
            var w = Math.round(run.progress) + "%";
            row.querySelector(".run-fill").style.width = run.status === "done" ? "100%" : w;
            row.querySelector(".run-text").textContent = run.status === "done" ? "100%" : w;
            var s = row.querySelector(".run-status");
            s.textContent = run.status;
            s.className = "badge run-status " + run.status;
          });
          if (["done", "failed", "cancelled"].indexOf(p.status) >= 0) {
            window.location.reload();
          } else {
            setTimeout(poll, 1000);
          }
        })
        .catch(function () { setTimeout(poll, 3000); });
    };
    setTimeout(poll, 500);
  }
})();
