"""The operator's view of a store's experiments, private ones too: ``gerbil-qa experiments``
and the API's listing for the admin token give the same rows."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from service.errors import ServiceError

if TYPE_CHECKING:
    from service.graph.store import Storage


def operator_rows(storage: Storage) -> list[dict[str, Any]]:
    """Every experiment in id order: its status keys (``ExperimentStatus.to_json``), its
    message, the dataset and systems the submission named, and the dataset its results are
    recorded under (``datasetUri``: an upload is named by its content, not its file name)."""
    experiments = storage.experiments
    specs = experiments.specs()
    recorded = experiments.recorded_datasets()
    systems = experiments.recorded_systems()
    rows = []
    for status in experiments.listing(include_private=True):
        ran = what_ran(status.job, specs.get(status.id))
        named = [s.get("name") for s in ran.get("systems", [])]
        uri = recorded.get(status.id)
        rows.append(
            {
                **status.to_json(),
                "message": status.message,
                # else its graph's (a run an older version recorded kept no spec)
                "dataset": ran.get("dataset") or (uri.rsplit("/", 1)[1] if uri else None),
                "systems": named or systems.get(status.id, []),
                "datasetUri": uri,
            }
        )
    return rows


def what_ran(summary: str | None, spec: str | None) -> dict[str, Any]:
    """Dataset and systems of an experiment: its job's summary (a run the service took), else
    its kept spec (one ``evaluate --store`` recorded); empty when neither is readable."""
    from service.experiments.spec import ExperimentSpec

    try:
        if summary and summary.startswith("{"):
            return json.loads(summary)
        if spec:
            return json.loads(ExperimentSpec.from_json(json.loads(spec)).summary())
    except (ValueError, KeyError, TypeError, ServiceError):  # an older version's layout
        pass
    return {}
