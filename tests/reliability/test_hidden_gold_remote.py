"""The hidden test set's leak test (``tests/web/test_hidden_gold.py``) against a service on a
remote store (issue 14): two Oxigraph servers, the public dataset and the private one; the same
teams, surfaces, tokens and reveal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.remote import environment, remote_pair
from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_hidden_gold import (  # noqa: F401  (collected here, on this server)
    revealed,
    task,
    team_web,
    test_each_team_reads_the_measures_of_its_runs_and_no_question_result,
    test_files_comparisons_and_tiers_say_they_are_withheld,
    test_nothing_public_tells_a_gold_answer_or_a_question_result,
    test_the_organiser_reveals_the_gold_and_it_is_public_as_any_datasets,
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    directory: Path = tmp_path_factory.mktemp("remote-hidden-gold")
    with remote_pair(directory) as pair, environment(pair.env):
        running = start_server(pair.url, demo=False)  # type: ignore[arg-type]  # a URL
        yield running
        stop_server(running)
