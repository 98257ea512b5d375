"""The simulation platform every scenario kind stands on; it knows no kind and no Django.

| module | what |
|---|---|
| ``registry`` | ``Engine``: kinds (loaded on first use), policies, presets; ``simulate`` |
| ``params`` | config dataclasses declared with ``param``/``group``; validation naming the field |
| ``errors`` | ``ScenarioError(field, message)`` for bad input; ``RunCancelled`` |
| ``result`` | ``Result`` and its stable JSON; ``code_version`` |
| ``clock`` | ``RunClock``: progress throttling, per-event timing, the timing summary |
| ``sampling`` | named random streams (``rng``) and the samplers the workloads share |
| ``value`` | piecewise-exponential utility functions; the VoS soft/hard-threshold value |
| ``accounting`` | window overlap, pro-rated credit, per-minute cumulative series |
| ``stats`` | means with Student-t 95% CIs (no scipy) |
| ``claims`` | a figure's published claims and the verdict of their paired intervals |
| ``swf``, ``traces`` | the SWF reader; the trace library and upload stores |
| ``sweep`` | ``sweep(engine, scenario, axes, policies, seeds)`` on every core |
| ``cli`` | ``presets``, ``policies``, ``run``, ``sweep`` and the kinds' commands |
| ``charts`` | chart helpers every kind shares (pure: data in, Plotly dict out) |
| ``lab`` | a kind's lab face (``LabKind``: metrics, charts, limits, inputs); kinds by entry point |
| ``compact`` | chart-sized copies of results (downsampled series, quantiles) |
| ``axes`` | a sweep's axes as the points they span |
| ``references`` | bare spec codes spelled out (title and document) for display; the map |
"""
