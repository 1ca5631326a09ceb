"""QA systems: how their answers are obtained, safely, and kept (the experiments that use
them, durable across restarts, are the application layer's: :mod:`service.experiments`).

* :mod:`~service.systems.webservice`: run a dataset against a GERBIL QA web service
  (concurrency, timeouts, retries, GERBIL's error policy, every failure kept with its reason);
* :mod:`~service.systems.safety`: the network policy every outgoing call obeys;
* :mod:`~service.systems.response`: reading one answer and saying exactly what was wrong;
* :mod:`~service.systems.archive`: the answer file of a run, re-scorable without the service;
* :mod:`~service.systems.reference` and :mod:`~service.systems.server`: the reference systems
  ``gold-sparql`` and ``baseline``, served as web services (``gerbil-qa system serve``);
* :mod:`~service.systems.refresh`: gold refresh of a dataset on a KB (``gerbil-qa dataset
  refresh``);
* :mod:`~service.systems.localnet`: local servers for tests and benchmarks (Oxigraph server,
  latency proxy).
"""
