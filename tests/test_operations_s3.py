"""Stores on object storage: an S3-compatible server on loopback (moto's server mode),
reached through an fsspec s3:// URL exactly as a cluster would reach a real bucket."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from subgame.cli import build_app
from subgame.flows.run import run_flow
from subgame.options import RunOptions
from tests.ops_helpers import free_port
from tests.store_compare import assert_stores_equal

app = build_app()
pytest.importorskip("s3fs")
moto_server = pytest.importorskip("moto.server")


@pytest.fixture(scope="module")
def bucket():
    """A loopback S3 endpoint with one bucket; credentials and endpoint come from the
    standard AWS variables, which is how users point subgame at any S3-compatible store."""
    import s3fs

    port = free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    patch = pytest.MonkeyPatch()
    for name, value in {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
                        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        patch.setenv(name, value)
    s3fs.S3FileSystem.clear_instance_cache()
    s3fs.S3FileSystem().mkdir("subgame-test")
    yield "s3://subgame-test"
    s3fs.S3FileSystem.clear_instance_cache()
    patch.undo()
    server.stop()


def test_run_writes_to_s3_and_query_reads_it_back(tmp_path, bucket):
    store = f"{bucket}/tables.zarr"
    (report,) = run_flow("guess-who", {"max_n": 23, "band": 8},
                         RunOptions(store, executor="serial"))
    assert report["shards_computed"] == 3 * 2 and report["store"] == store
    local = str(tmp_path / "local.zarr")
    run_flow("guess-who", {"max_n": 23, "band": 8}, RunOptions(local, executor="serial"))
    assert_stores_equal(local, store)
    runner = CliRunner()
    answer = runner.invoke(app, ["query", "guess-who", "--n", "23", "--m", "23",
                                 "--rules", "variant", "--store", store, "--json"])
    assert answer.exit_code == 0, answer.output
    assert json.loads(answer.stdout)["p"] == "349/529"  # the paper's value
    status = json.loads(runner.invoke(app, ["status", "--store", store, "--json"]).stdout)
    assert status["computations"][0]["steps_finished"] == 3
    assert runner.invoke(app, ["verify", "--store", store]).exit_code == 0
    # A resumed run on object storage finds everything done (markers live in the bucket).
    (again,) = run_flow("guess-who", {"max_n": 23, "band": 8},
                        RunOptions(store, executor="serial"))
    assert again["shards_computed"] == 0 and again["steps_skipped"] == 3
