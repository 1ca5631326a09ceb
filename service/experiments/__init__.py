"""The application layer: one way to start, run, record and read back an experiment.

Every adapter builds an :class:`~service.experiments.spec.ExperimentSpec` (what to evaluate)
and calls :func:`~service.experiments.run.run_experiment` (resolve the dataset, obtain each
system's answers, evaluate, record through the repositories in one transaction):

- ``gerbil-qa evaluate`` (with or without ``--store``) runs it in the foreground;
- the JSON API submits it to the durable background runner
  (:class:`~service.experiments.runner.ExperimentRunner`: a small thread pool and the job
  state of :mod:`service.experiments.jobs`), which also resumes interrupted runs;
- the demo at first start runs it once, published.

Modules: ``spec`` (the frozen spec and its JSON form, stored with a job), ``systems`` (the
kinds of system: answer file, QA web service, reference system; one class and one registration
each), ``inputs`` (datasets and answer files read and checked), ``progress`` (structured
progress), ``run``, ``jobs``, ``runner``. Importing this package is cheap: ``gerbil-qa
evaluate`` is timed from process start.
"""
