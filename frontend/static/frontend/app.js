// hetsite pages: draw the embedded figures (visible ones first), export them, poll progress and
// swap in results as runs finish, and the form's helpers. No inline handlers: the CSP forbids them.
(function () {
  "use strict";
  var config = {responsive: true, displaylogo: false,
                modeBarButtonsToRemove: ["select2d", "lasso2d"]};
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;

  function themed(layout) {
    if (!dark) return layout;
    var axis = {gridcolor: "#3a4150", linecolor: "#6b7482", zerolinecolor: "#3a4150"};
    var out = Object.assign({}, layout, {
      paper_bgcolor: "#1b2029", plot_bgcolor: "#1b2029",
      font: Object.assign({color: "#dfe4ec"}, layout.font || {})});
    Object.keys(out).forEach(function (k) {
      if (/^[xy]axis\d*$/.test(k)) out[k] = Object.assign({}, axis, out[k]);
    });
    if (out.title && out.title.subtitle) {
      out.title = Object.assign({}, out.title, {subtitle: Object.assign({}, out.title.subtitle,
        {font: Object.assign({}, out.title.subtitle.font || {}, {color: "#a3acba"})})});
    }
    return out;
  }

  // Error bars without a colour of their own are drawn in Plotly's #444, which all but vanishes
  // on the dark plot (contrast 1.6): in dark mode they take the text colour (contrast 13).
  function themedData(data) {
    if (!dark) return data;
    return data.map(function (trace) {
      var out = trace;
      ["error_x", "error_y"].forEach(function (k) {
        if (trace[k] && !trace[k].color) {
          if (out === trace) out = Object.assign({}, trace);
          out[k] = Object.assign({}, trace[k], {color: "#dfe4ec"});
        }
      });
      return out;
    });
  }

  // The page loads plotly.js's cartesian bundle; a figure with another trace type makes the
  // full bundle load first (once).
  var CARTESIAN = ["scatter", "bar", "box", "heatmap", "histogram", "histogram2d",
                   "histogram2dcontour", "contour", "image", "pie", "violin", "scatterternary"];
  var fullBundle = null;
  function needsFull(figure) {
    return (figure.data || []).some(function (t) { return CARTESIAN.indexOf(t.type || "scatter") < 0; });
  }
  function loadFull() {
    if (!fullBundle) {
      fullBundle = new Promise(function (resolve, reject) {
        var tag = document.getElementById("plotly-script");
        var script = document.createElement("script");
        script.src = tag ? tag.dataset.full : "";
        script.onload = resolve;
        script.onerror = reject;
        document.head.appendChild(script);
      });
    }
    return fullBundle;
  }

  function draw(el, figure) {
    if (!el) return Promise.resolve();
    if (needsFull(figure) && !(window.Plotly && window.Plotly.__full)) {
      return loadFull().then(function () { window.Plotly.__full = true; return draw(el, figure); });
    }
    if (!window.Plotly) return Promise.resolve();
    var layout = Object.assign({autosize: true}, figure.layout || {});
    if (!layout.height) layout.height = 360;
    // The box keeps the figure's height, so a window resize never shrinks a tall figure.
    el.style.height = layout.height + "px";
    el.dataset.drawn = "0";
    return Plotly.newPlot(el, themedData(figure.data || []), themed(layout), config).then(function () {
      el.dataset.drawn = "1";
      if (el.dataset.pointLink === "1") linkPoints(el);
      document.dispatchEvent(new CustomEvent("hetsite:drawn", {detail: el.id}));
    });
  }

  // A sweep chart's markers carry their point's index: a click opens that point's view.
  function linkPoints(el) {
    el.on("plotly_click", function (ev) {
      var cd = ev.points && ev.points[0] && ev.points[0].customdata;
      if (!cd || cd[0] === undefined || cd[0] === null) return;
      var url = new URL(window.location.href);
      url.searchParams.set("point", cd[0]);
      window.location.href = url.toString();
    });
  }

  window.hetsite = {draw: draw};  // for pages that add their own figures

  function drawAll(figures) {
    // Charts on screen first, one at a time so the page stays responsive between them; the
    // others as they come near the viewport, or one per idle moment.
    var pending = figures.map(function (f) {
      return {el: document.getElementById("chart-" + f.id), figure: f.figure};
    }).filter(function (p) { return p.el; });
    var queue = [], busy = false;
    var pump = function () {
      if (busy) return;
      var next = queue.shift();
      if (!next) return;
      busy = true;
      var done = function () { busy = false; setTimeout(pump, 0); };
      Promise.resolve(draw(next.el, next.figure)).then(done, done);
    };
    var enqueue = function (p, first) {
      if (p.queued) return;
      p.queued = true;
      if (first) queue.unshift(p); else queue.push(p);
      pump();
    };
    if (!("IntersectionObserver" in window)) { pending.forEach(function (p) { enqueue(p); }); return; }
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        observer.unobserve(entry.target);
        pending.forEach(function (p) { if (p.el === entry.target) enqueue(p, true); });
      });
    }, {rootMargin: "200px 0px"});
    pending.forEach(function (p) { observer.observe(p.el); });
    var idle = window.requestIdleCallback || function (fn) { return setTimeout(fn, 300); };
    var later = function () {
      var p = pending.filter(function (q) { return !q.queued; })[0];
      if (!p) return;
      enqueue(p);
      idle(later, {timeout: 1000});
    };
    idle(later, {timeout: 1000});
  }

  function embeddedFigures(root) {
    var node = (root || document).querySelector("#figures-data");
    return node ? JSON.parse(node.textContent) : [];
  }

  function onPlotly(fn) {
    if (window.Plotly) { fn(); return; }
    window.addEventListener("load", fn);
  }

  onPlotly(function () { drawAll(embeddedFigures()); });

  // --- exports: each chart as SVG or PNG, its data as CSV --------------------------------------
  function csvCell(v) {
    if (v === null || v === undefined) return "";
    var s = String(v);
    return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  function figureCsv(el) {
    var rows = [["trace", "x", "y", "error minus", "error plus"]];
    (el.data || []).forEach(function (t) {
      var name = t.name || t.type;
      if (t.type === "heatmap") {
        (t.z || []).forEach(function (row, i) {
          row.forEach(function (z, j) { rows.push([name, (t.x || [])[j], (t.y || [])[i], "", "", z]); });
        });
        rows[0][5] = "z";
        return;
      }
      if (t.type === "box") {
        ["lowerfence", "q1", "median", "q3", "upperfence", "mean"].forEach(function (k) {
          if (t[k]) rows.push([name + " " + k, (t.x || [""])[0], t[k][0], "", ""]);
        });
        return;
      }
      var xs = t.x || [], ys = t.y || [];
      var err = t.error_y || {};
      var base = t.base;
      for (var i = 0; i < Math.max(xs.length, ys.length); i++) {
        var x = xs[i];
        if (base && t.orientation === "h") x = base[i] + " to " + (base[i] + xs[i]);
        rows.push([name, x, ys[i], err.arrayminus ? err.arrayminus[i] : (err.array ? err.array[i] : ""),
                   err.array ? err.array[i] : ""]);
      }
    });
    return rows.map(function (r) { return r.map(csvCell).join(","); }).join("\n") + "\n";
  }

  function saveText(text, filename, type) {
    var url = URL.createObjectURL(new Blob([text], {type: type}));
    var a = document.createElement("a");
    a.href = url;
    a.download = filename;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(url); a.remove(); }, 1000);
  }

  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest ? ev.target.closest("[data-export]") : null;
    if (!btn) return;
    var el = document.getElementById(btn.dataset.target);
    if (!el || !el.data) return;
    var name = btn.dataset.name || "chart";
    if (btn.dataset.export === "csv") {
      saveText(figureCsv(el), name + ".csv", "text/csv");
    } else {
      Plotly.downloadImage(el, {format: btn.dataset.export, filename: name,
                                width: el.clientWidth || 900, height: el.clientHeight || 500});
    }
  });

  // --- small behaviours declared in the markup -------------------------------------------------
  document.querySelectorAll("[data-select-on-click]").forEach(function (el) {
    el.addEventListener("click", function () { el.select(); });
  });
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (!window.confirm(form.dataset.confirm)) ev.preventDefault();
    });
  });
  document.querySelectorAll("[data-autosubmit]").forEach(function (el) {
    el.addEventListener("change", function () {
      // Switching presets keeps what was typed: name, trials, first seed, ticked policies.
      var keep = el.dataset.keepForm && document.getElementById(el.dataset.keepForm);
      if (keep) {
        var picker = el.form;
        ["name", "trials", "base_seed"].forEach(function (n) {
          var input = keep.querySelector('[name="' + n + '"]');
          if (input && input.value !== "") addHidden(picker, n, input.value);
        });
        keep.querySelectorAll('input[name="policies"]:checked').forEach(function (box) {
          addHidden(picker, "policies", box.value);
        });
      }
      el.form.submit();
    });
  });
  function addHidden(form, name, value) {
    var input = document.createElement("input");
    input.type = "hidden"; input.name = name; input.value = value;
    form.appendChild(input);
  }

  // --- the form ----------------------------------------------------------------------------------
  var summary = document.getElementById("error-summary");
  if (summary) {
    summary.focus();
    // A link in the summary puts the cursor in the field it names (opening folded groups).
    summary.addEventListener("click", function (ev) {
      var link = ev.target.closest("a[href^='#']");
      if (!link) return;
      var target = document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
      if (!target) return;
      ev.preventDefault();
      var folded = target.closest("details");
      if (folded) folded.open = true;
      target.scrollIntoView({block: "center"});
      target.focus();
    });
  }

  // Fields that apply only under another field's value are hidden (and not required) otherwise.
  var conditional = document.querySelectorAll("[data-show-when]");
  function controlValue(name) {
    var c = document.querySelector('[name="' + name + '"]');
    if (!c) return null;
    return c.type === "checkbox" ? String(c.checked) : c.value;
  }
  function applyConditions() {
    conditional.forEach(function (input) {
      var wrap = input.closest("[data-field-wrap]");
      var show = input.dataset.showValues.split("|").indexOf(controlValue(input.dataset.showWhen)) >= 0;
      if (wrap) wrap.hidden = !show;
    });
    document.querySelectorAll(".params").forEach(function (grid) {
      var visible = grid.querySelectorAll("[data-field-wrap]:not([hidden])").length;
      grid.hidden = visible === 0;
      var head = grid.previousElementSibling;
      if (head && head.classList.contains("group")) head.hidden = visible === 0;
    });
  }
  if (conditional.length) {
    var controls = {};
    conditional.forEach(function (i) { controls[i.dataset.showWhen] = true; });
    Object.keys(controls).forEach(function (name) {
      var c = document.querySelector('[name="' + name + '"]');
      if (c) c.addEventListener("change", applyConditions);
    });
    applyConditions();
  }

  var search = document.getElementById("policy-search");
  if (search) {
    var labels = document.querySelectorAll("label.policy");
    var count = document.getElementById("policy-count");
    search.addEventListener("input", function () {
      var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      labels.forEach(function (label) {
        var text = label.dataset.policyText.toLowerCase();
        var hit = words.every(function (w) { return text.indexOf(w) >= 0; });
        label.hidden = !hit;
        if (hit) shown++;
      });
      document.querySelectorAll(".family").forEach(function (f) {
        f.hidden = f.querySelectorAll("label.policy:not([hidden])").length === 0;
      });
      count.textContent = words.length ? shown + " of " + labels.length + " policies" : "";
    });
  }
  document.querySelectorAll("[data-family-select]").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var family = btn.closest(".family");
      family.querySelectorAll('input[name="policies"]').forEach(function (box) {
        if (!box.closest("label").hidden) box.checked = btn.dataset.select === "all";
      });
    });
  });

  // --- the price, as the form changes (debounced; the server prices it like a submission) --------
  var price = document.getElementById("price");
  var priced = price && document.getElementById("experiment-form");
  if (priced) {
    var priceTimer = null, priceAsked = 0;
    var requote = function () {
      clearTimeout(priceTimer);
      priceTimer = setTimeout(function () {
        var data = new FormData(priced);
        priced.querySelectorAll("input[type=file]").forEach(function (f) { data.delete(f.name); });
        var asked = ++priceAsked;
        price.dataset.state = "loading";
        fetch(price.dataset.url, {method: "POST", body: data, credentials: "same-origin",
                                  headers: {"Accept": "application/json"}})
          .then(function (r) { return r.json(); })
          .then(function (body) { if (asked === priceAsked) showPrice(body); })
          .catch(function () {
            if (asked !== priceAsked) return;
            price.dataset.state = "error";
            document.getElementById("price-text").textContent = "The estimate is unavailable right now.";
          });
      }, 350);
    };
    priced.addEventListener("input", requote);
    priced.addEventListener("change", requote);
    requote();
  }
  function hoursText(seconds) {
    return seconds >= 360 ? (seconds / 3600).toFixed(1) + " worker-hours"
                          : (seconds / 60).toFixed(1) + " worker-minutes";
  }
  function showPrice(q) {
    var text = document.getElementById("price-text");
    var warnings = document.getElementById("price-warnings");
    warnings.textContent = "";
    if (q.errors) {
      price.dataset.state = "invalid";
      delete price.dataset.runs; delete price.dataset.cpuS;
      text.textContent = "No estimate until the form is valid: " +
        q.errors.map(function (e) { return (e.label ? e.label + ": " : "") + e.message; }).join("; ");
      return;
    }
    price.dataset.state = q.admitted ? "ok" : "refused";
    price.dataset.runs = q.runs;
    price.dataset.cpuS = q.estimated_cpu_s;
    price.dataset.wallS = q.estimated_wall_s;
    text.textContent = "";
    var parts = [["price-runs", q.runs.toLocaleString("en") + " run" + (q.runs === 1 ? "" : "s")],
                 ["price-cpu", "about " + duration(q.estimated_cpu_s) + " of CPU"],
                 ["price-wall", "done in about " + duration(q.estimated_wall_s) + " on " + q.workers +
                  " worker" + (q.workers === 1 ? "" : "s") +
                  (q.estimated_wall_queued_s > q.estimated_wall_s
                   ? " (up to " + duration(q.estimated_wall_queued_s) + " behind the queue)" : "")],
                 ["price-budget", q.budget_s === null ? "no budget limit"
                  : "uses " + hoursText(q.estimated_cpu_s) + " of your " + hoursText(q.budget_s) +
                    " budget" + (q.budget_in_use_s ? " (" + hoursText(q.budget_in_use_s) + " in use)" : "")]];
    parts.forEach(function (p, i) {
      var span = document.createElement("span");
      span.id = p[0]; span.textContent = p[1];
      text.appendChild(span);
      if (i < parts.length - 1) text.appendChild(document.createTextNode(" · "));
    });
    var notes = q.warnings.slice();
    if (q.refusal && notes.length === 0) notes.push(q.refusal.message);
    notes.forEach(function (w) {
      var li = document.createElement("li");
      li.className = "warning"; li.textContent = w;
      warnings.appendChild(li);
    });
  }

  // --- one run in detail ------------------------------------------------------------------------
  // Listeners sit on the document: a live page replaces #results (and this form) as runs finish.
  //
  // Each part of it (the run chart, and an explained run's decision list, tasks table and
  // story) shows the answer to its own latest request only. Answers come back in any order: a
  // story asked for first can arrive after the next one, a filter's answer after the run was
  // switched, and rendering them would mix two tasks', filters' or runs' decisions on one
  // panel. So a part's new request aborts its older one, and an older answer that arrives
  // anyway is dropped (its promise never settles: neither rendered nor reported as an error).
  var asked = {};
  function latest(part, url) {
    if (asked[part]) asked[part].abort();
    var mine = asked[part] = new AbortController();
    var current = function () { return asked[part] === mine; };
    return new Promise(function (resolve, reject) {
      getJson(url, mine.signal).then(function (body) { if (current()) resolve(body); },
                                     function (e) { if (current()) reject(e); });
    });
  }

  function getJson(url, signal) {
    return fetch(url, {headers: {"Accept": "application/json"}, signal: signal}).then(function (r) {
      return r.json().catch(function () { throw new Error(String(r.status)); }).then(function (body) {
        if (!r.ok) throw new Error(body.detail || JSON.stringify(body));
        return body;
      });
    });
  }

  document.addEventListener("submit", function (ev) {
    if (ev.target.id !== "run-chart-form") return;
    ev.preventDefault();
    var run = document.getElementById("run-chart-run").value;
    var chartSelect = document.getElementById("run-chart-id");
    var target = document.getElementById("run-chart");
    if (document.getElementById("decisions")) explainRun(run);
    if (!chartSelect || !target) return;
    target.textContent = "loading…";
    var started = performance.now();
    latest("chart", "/api/runs/" + run + "/figures/" + chartSelect.value + "/")
      .then(function (fig) {
        target.textContent = "";
        return draw(target, fig);
      })
      .then(function () {
        target.dataset.drawMs = String(Math.round(performance.now() - started));
        // A trace whose marks are tasks says where its hover data holds the task id:
        // meta.task, an index into customdata (docs/explain.md); other marks are not tasks.
        if (document.getElementById("decisions")) {
          target.on("plotly_click", function (e) {
            var pt = e.points && e.points[0];
            var at = pt && pt.data && pt.data.meta && pt.data.meta.task;
            var cd = pt && pt.customdata;
            if (typeof at === "number" && cd && cd[at] !== undefined && cd[at] !== null) {
              showStory(String(cd[at]));
            }
          });
        }
      })
      .catch(function (e) { target.textContent = "could not load the chart (" + e.message + ")"; });
  });

  // --- an explained run's decisions (hetsite.decisions through /api/runs/<id>/decisions/) ----
  var explained = {run: null, actions: [], pages: {list: 1, tasks: 1}, last: {list: 1, tasks: 1}};

  function text(v) { return v === null || v === undefined ? "" : String(v); }

  // Every number on the panel (times, the numbers a decision rests on) reads by one rule, the
  // one the compare page and the command line follow (keep them identical): 6 significant
  // digits, but never fewer than the integer part has (7694634.2 -> "7694634", 60829.834 ->
  // "60829.8", 264.21342723623326 -> "264.213", 0.000123456 -> "0.000123456"), trailing zeros
  // dropped; rounded half away from zero on the number's exact binary value (toFixed's rule,
  // Python's Decimal(v).quantize(..., ROUND_HALF_UP)). An exponent only outside
  // 1e-6 <= |v| < 1e21, where JavaScript's own String writes one too, as Python's "%.6g"
  // writes it ("1.23457e-07"). A missing number (null: no runner-up, say) reads "none", as
  // the CLI's None: omitting it would hide that the decision had no such number.
  function numberText(v) {
    if (v === null || v === undefined) return "none";
    if (typeof v !== "number" || !isFinite(v)) return String(v);
    var a = Math.abs(v);
    if (a === 0) return "0";
    if (a < 1e-6 || a >= 1e21) {
      var parts = v.toExponential(5).split("e");
      var exp = parts[1].replace(/^([+-])(\d)$/, "$10$2");  // two digits at least: e-07
      return trimZeros(parts[0]) + "e" + exp;
    }
    var lead = Number(a.toExponential().split("e")[1]);  // the power of ten of the first digit
    return trimZeros(v.toFixed(Math.max(0, 5 - lead)));
  }
  function trimZeros(s) { return s.indexOf(".") < 0 ? s : s.replace(/\.?0+$/, ""); }
  window.hetsite.numberText = numberText;  // (the browser tests check the rule on many numbers)

  // The numbers a decision rests on: every field but its time, task, action and reason.
  function numbersText(d) {
    return Object.keys(d).filter(function (k) {
      return ["t", "task", "action", "reason"].indexOf(k) < 0;
    }).map(function (k) {
      var v = d[k];
      // "last": the numbers of a repeated decision the last time it was made
      if (v && typeof v === "object") return k + "=(" + numbersText(v) + ")";
      return k + "=" + numberText(v);
    }).join(", ");
  }

  function withUnit(t, unit) { return numberText(t) + (unit ? " " + unit : ""); }

  function cell(row, value, cls) {
    var td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = value;
    row.appendChild(td);
    return td;
  }

  function taskLink(td, task) {
    td.textContent = "";
    var b = document.createElement("button");
    b.type = "button"; b.className = "link"; b.dataset.task = text(task); b.textContent = text(task);
    td.appendChild(b);
  }

  function setText(id, value) { document.getElementById(id).textContent = value; }

  function explainRun(run) {
    explained.run = run;
    explained.actions = [];
    explained.pages = {list: 1, tasks: 1};
    // Nothing of the run shown before stays, nor arrives later: its story is dropped with any
    // answer still on the way (the list and tasks requests below replace theirs).
    if (asked.story) asked.story.abort();
    asked.story = null;
    document.getElementById("task-story").hidden = true;
    ["decision-filter", "decisions-bounds", "decision-list-count", "decision-list-page",
     "decision-tasks-count", "decision-tasks-page"].forEach(function (id) { setText(id, ""); });
    document.querySelector("#decision-list tbody").textContent = "";
    document.querySelector("#decision-tasks tbody").textContent = "";
    document.getElementById("decisions").hidden = false;
    loadList();
    loadTasks();
  }

  function loadList() {
    var q = "?page=" + explained.pages.list;
    if (explained.actions.length) q += "&action=" + encodeURIComponent(explained.actions.join(","));
    return latest("list", "/api/runs/" + explained.run + "/decisions/" + q).then(function (p) {
      var b = p.bounds;
      explained.last.list = p.pages;
      if (!b.tasks_seen) {
        setText("decisions-bounds",
                "(this run recorded no decision: its kind does not record its decisions yet)");
        return;
      }
      setText("decisions-bounds", "(" + b.recorded + " decisions kept of " +
        b.tasks_seen + " tasks; at most " + b.per_task + " waits per task and " + b.limit + " in all; " +
        b.sampling + (b.omitted ? "; " + b.omitted + " omitted in the middle of long stories" : "") + ")");
      drawFilter(p.counts, p.actions);
      // The list's times are in the run's unit, said once in the column's header.
      setText("decision-list-t", "t" + (b.time_unit ? " (" + b.time_unit + ")" : ""));
      var body = document.querySelector("#decision-list tbody");
      body.textContent = "";
      p.decisions.forEach(function (d) {
        var tr = document.createElement("tr");
        tr.dataset.action = d.action;
        cell(tr, numberText(d.t), "num");
        taskLink(cell(tr, ""), d.task);
        cell(tr, d.action, "action " + d.action);
        cell(tr, d.reason, "wrap");
        cell(tr, numbersText(d), "small wrap");
        body.appendChild(tr);
      });
      // The chips count a wait repeated for the same cause each time; the list keeps it once.
      var times = (p.actions.length ? p.actions : Object.keys(p.counts)).reduce(function (n, a) {
        return n + (p.counts[a] || 0);
      }, 0);
      setText("decision-list-count", "(" + p.total +
        (p.actions.length ? " " + p.actions.join(" or ") : "") +
        (times > p.total ? " records, " + times + " counting repeats" : "") + ")");
      setText("decision-list-page", "page " + p.page + " of " + p.pages);
    }).catch(function (e) { setText("decisions-bounds", "no decisions to show: " + e.message); });
  }

  // The chips pressed are the actions of the answer they come with (the list beside them).
  function drawFilter(counts, actions) {
    var box = document.getElementById("decision-filter");
    box.textContent = "";
    Object.keys(counts).forEach(function (action) {
      var on = actions.indexOf(action) >= 0;
      var b = document.createElement("button");
      b.type = "button";
      b.className = "chip" + (on ? " on" : "");
      b.dataset.filterAction = action;
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.textContent = action + " (" + counts[action] + ")";
      box.appendChild(b);
    });
  }

  // How a story ended (simcore.explain.end_text): a wait repeated at every event lasted till
  // its last time, not its first.
  function endText(last, unit) {
    var count = last.count || 1;
    return last.action + " at " + withUnit(last.t_last !== undefined ? last.t_last : last.t, unit) +
      (count > 1 ? " (the last of " + count + ")" : "");
  }

  function loadTasks() {
    var url = "/api/runs/" + explained.run + "/decisions/tasks/?page=" + explained.pages.tasks;
    return latest("tasks", url).then(function (p) {
      explained.last.tasks = p.pages;
      var unit = p.bounds.time_unit || "";
      var body = document.querySelector("#decision-tasks tbody");
      body.textContent = "";
      p.tasks.forEach(function (row) {
        var tr = document.createElement("tr");
        tr.dataset.task = text(row.task);
        tr.className = "clickable";
        cell(tr, text(row.task));
        cell(tr, text(row.decisions), "num");
        cell(tr, endText(row.last, unit));
        body.appendChild(tr);
      });
      setText("decision-tasks-count", "(" + p.total + ")");
      setText("decision-tasks-page", "page " + p.page + " of " + p.pages);
    }).catch(function (e) { setText("decision-tasks-count", "(could not load: " + e.message + ")"); });
  }

  // A story's task, title and lines are always set together: from the click (loading), then
  // from its answer, which replaces the lines (an older task's answer never gets here).
  function setStory(box, task, title, items) {
    box.hidden = false;
    box.dataset.task = task;
    var head = document.getElementById("task-story-title");
    head.textContent = "";
    head.append.apply(head, title);
    var list = document.getElementById("task-story-list");
    list.replaceChildren.apply(list, items);
  }

  function showStory(task) {
    var box = document.getElementById("task-story");
    if (!box || !explained.run) return;
    setStory(box, task, ["task " + task + ": loading…"], []);
    // A story is at most HETSITE_EXPLAIN_PER_TASK decisions (16 by default): one page of 50.
    latest("story", "/api/runs/" + explained.run + "/decisions/?task=" + encodeURIComponent(task)).then(function (p) {
      var unit = p.bounds.time_unit || "";
      // (left_out: true when the sampling left it out, false when the log kept whatever was
      // decided about it, null when the id does not say: the API's, as the CLI words it)
      var sampledOut = !p.total && p.left_out !== false;
      var title = ["task " + task + ": " + p.total + " decision" + (p.total === 1 ? "" : "s") +
        (p.total ? "" : " kept" + (sampledOut ?
          " (the log kept 1 " + (p.bounds.sampled_by || "task") + " in " + p.bounds.stride +
          (p.left_out ? "" : ", perhaps not this one's") + "; to read this one's story, clone " +
          "the experiment and name it under \u201cKeep these tasks' stories\u201d) " :
          " (no decision was made about it)")) +
        (p.pages > 1 ? " (the first " + p.decisions.length + " shown)" : "")];
      var clone = document.getElementById("decisions").dataset.clone;
      if (sampledOut && clone) {  // one click to that clone, the task already named
        var link = document.createElement("a");
        link.id = "keep-story";
        link.href = clone + "&explain_task=" + encodeURIComponent(task);
        link.textContent = "Clone it keeping this task's story";
        title.push(link);
      }
      setStory(box, task, title, p.decisions.map(function (d) {
        var li = document.createElement("li");
        li.dataset.action = d.action;
        li.textContent = "t=" + withUnit(d.t, unit) + " · " + d.action + " · " + d.reason +
          (numbersText(d) ? " · " + numbersText(d) : "");
        return li;
      }));
      box.scrollIntoView({block: "nearest"});
    }, function (e) { setStory(box, task, ["task " + task + ": " + e.message], []); });
  }

  document.addEventListener("click", function (ev) {
    var el = ev.target.closest ? ev.target.closest("[data-task], [data-filter-action], [data-decision-page]") : null;
    if (!el || !document.getElementById("decisions") || !explained.run) return;
    if (el.dataset.filterAction) {
      var a = el.dataset.filterAction, i = explained.actions.indexOf(a);
      if (i >= 0) explained.actions.splice(i, 1); else explained.actions.push(a);
      explained.pages.list = 1;
      loadList();
    } else if (el.dataset.decisionPage) {
      var which = el.dataset.decisionPage;
      var next = explained.pages[which] + parseInt(el.dataset.step, 10);
      if (next < 1 || next > explained.last[which]) return;
      explained.pages[which] = next;
      if (which === "list") loadList(); else loadTasks();
    } else if (el.closest("#decisions")) {
      showStory(el.dataset.task);
    }
  });

  // --- live progress ---------------------------------------------------------------------------
  function duration(seconds) {
    seconds = Math.max(0, Math.round(seconds));
    var h = Math.floor(seconds / 3600), m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    if (h) return h + " h " + pad(m) + " min";
    if (m) return m + " min " + pad(s) + " s";
    return s + " s";
  }

  // The words of hetsite.presenters.counts_text: a cancelled run never finished.
  function countsText(c) {
    var total = c.queued + c.running + c.done + c.failed + c.cancelled;
    var text = (c.done + c.failed) + " of " + total + " run" + (total === 1 ? "" : "s") + " finished";
    if (c.failed) text += " (" + c.failed + " failed)";
    if (c.cancelled) text += ", " + c.cancelled + " cancelled";
    return text;
  }

  function announce(text) {
    var live = document.getElementById("live-status");
    if (live && live.textContent !== text) live.textContent = text;
  }

  function refreshResults() {
    // Finished runs appear in the table and the charts without a reload.
    return fetch(window.location.href, {headers: {"Accept": "text/html"}})
      .then(function (r) { return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("results");
        var old = document.getElementById("results");
        if (!fresh || !old) return;
        old.replaceWith(fresh);
        var data = fresh.querySelector("#figures-data");
        if (data) drawAll(JSON.parse(data.textContent));
      });
  }

  var section = document.getElementById("progress-section");
  if (section && section.dataset.final !== "1") {
    var url = section.dataset.url;
    var created = new Date(section.dataset.created).getTime();
    var doneRuns = parseInt(section.dataset.doneRuns || "0", 10);
    var poll = function () {
      fetch(url, {headers: {"Accept": "application/json"}})
        .then(function (r) { return r.json(); })
        .then(function (p) {
          var pct = Math.round(p.progress);
          var stopped = p.status === "cancelled";
          document.getElementById("overall-fill").style.width = pct + "%";
          document.getElementById("overall-text").textContent = (stopped ? "cancelled at " : "") + pct + "%";
          document.getElementById("overall-bar").setAttribute("aria-valuenow", pct);
          document.getElementById("overall-bar").classList.toggle("stopped", stopped);
          var badge = document.getElementById("exp-status");
          badge.textContent = p.status;
          badge.className = "badge " + p.status;
          // Counts cover every run; the rows are those of the page shown.
          var done = p.counts.done;
          p.runs.forEach(function (run) {
            var row = document.querySelector('tr[data-run="' + run.id + '"]');
            if (!row) return;
            var w = (run.status === "done" ? 100 : Math.round(run.progress)) + "%";
            row.querySelector(".run-fill").style.width = w;
            row.querySelector(".run-text").textContent = w;
            var s = row.querySelector(".run-status");
            s.textContent = run.status;
            s.className = "badge run-status " + run.status;
          });
          var elapsed = (Date.now() - created) / 1000;
          document.getElementById("elapsed").textContent = duration(elapsed);
          var counted = countsText(p.counts);
          document.getElementById("runs-finished").textContent = counted;
          var etaWrap = document.getElementById("eta-wrap");
          if (p.progress > 0 && p.progress < 100) {
            document.getElementById("eta").textContent = duration(elapsed * (100 - p.progress) / p.progress);
            etaWrap.hidden = false;
          }
          announce(counted + "; " + p.status);
          var final = ["done", "failed", "cancelled"].indexOf(p.status) >= 0;
          if (final) {
            window.location.reload();
            return;
          }
          var next = function () { setTimeout(poll, 1000); };
          if (done > doneRuns) {
            doneRuns = done;
            refreshResults().then(next, next);
          } else {
            next();
          }
        })
        .catch(function () { setTimeout(poll, 3000); });
    };
    setTimeout(poll, 500);
  }
})();
