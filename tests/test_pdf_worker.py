"""The PDF render worker (scorer/reports/render_pool.py, scorer/reports/render_worker.py): one process renders
one document after another, is replaced after its share of renders, is killed at the
deadline, and a crash or a hang inside it costs one render, never the app."""

from __future__ import annotations

import io
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

import scorer.reports.render_pool
from scorer.evening.file import loads
from scorer.reports.render_pool import RenderCrashed, RenderFailed, RenderTimeout, RenderWorker
from scorer.storage import evening_writes, units

HERE = Path(__file__).resolve().parent
STATIC = HERE.parent / "static"
PAGE = '<link rel="stylesheet" href="pdf.css"><p>Hand 7: Boris −80</p>'.encode()


def text_of(pdf: bytes) -> str:
    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


def soon(seconds: float = 120) -> float:
    """A deadline no load reaches: these tests are about what happens, not how fast."""
    return time.monotonic() + seconds


def fake(monkeypatch: Any, mode: str) -> None:
    monkeypatch.setattr(scorer.reports.render_pool, "worker_command",
                        lambda static_dir: [sys.executable, str(HERE / "fake_pdf_worker.py"), mode])


@pytest.fixture
def worker() -> Any:
    made = RenderWorker(STATIC, max_renders=2)
    yield made
    made.close()


def test_one_worker_renders_documents_in_turn_and_is_replaced_after_its_share(worker: RenderWorker) -> None:
    first, cpu = worker.render(PAGE, soon())
    assert text_of(first).startswith("Hand 7: Boris −80") and cpu > 0
    process = worker.process
    assert process is not None
    second, _cpu = worker.render("<p>Анна +6</p>".encode(), soon())
    assert "Анна +6" in text_of(second)
    # two renders were its share: the same process made both, then got the end of its
    # input and exited by itself (status 0); a fresh one is already starting
    assert process.wait(timeout=120) == 0
    assert worker.alive() and worker.pid != process.pid and worker.renders == 0
    assert "Boris" in text_of(worker.render(PAGE, soon())[0])


def test_a_document_weasyprint_refuses_costs_that_document_only(worker: RenderWorker) -> None:
    worker.max_renders = 10
    worker.render(PAGE, soon())
    pid = worker.pid
    with pytest.raises(RenderFailed, match="UnicodeDecodeError"):
        worker.render(b"<p>\xff\xfe</p>", soon())
    assert worker.pid == pid  # the same worker goes on
    assert worker.render(PAGE, soon())[0].startswith(b"%PDF")


def test_a_hung_worker_is_killed_at_the_deadline_and_replaced(worker: RenderWorker, monkeypatch: Any) -> None:
    fake(monkeypatch, "hang")
    worker.start()
    hung = worker.process
    with pytest.raises(RenderTimeout):
        worker.render(PAGE, time.monotonic() + 1)
    assert hung is not None and hung.poll() == -signal.SIGKILL
    assert worker.alive() and worker.pid != hung.pid


def test_a_crashed_worker_costs_one_render_and_says_why(worker: RenderWorker, monkeypatch: Any) -> None:
    fake(monkeypatch, "crash")
    with pytest.raises(RenderCrashed, match="fake worker crashed on purpose"):
        worker.render(PAGE, soon())
    assert not worker.alive()
    fake(monkeypatch, "garbage")
    with pytest.raises(RenderCrashed):
        worker.render(PAGE, soon())
    monkeypatch.undo()
    assert worker.render(PAGE, soon())[0].startswith(b"%PDF")


def test_a_worker_that_cannot_start_costs_one_render(worker: RenderWorker, monkeypatch: Any) -> None:
    monkeypatch.setattr(scorer.reports.render_pool, "worker_command", lambda static_dir: [str(HERE / "no-such-python")])
    with pytest.raises(RenderCrashed, match="could not be started"):
        worker.render(PAGE, soon())
    monkeypatch.undo()
    assert worker.render(PAGE, soon())[0].startswith(b"%PDF")


def test_a_worker_killed_while_idle_is_started_again_unnoticed(worker: RenderWorker) -> None:
    worker.render(PAGE, soon())
    assert worker.process is not None
    worker.process.kill()
    worker.process.wait()
    assert worker.render(PAGE, soon())[0].startswith(b"%PDF")


def test_the_worker_runs_niced_and_without_secrets(worker: RenderWorker, monkeypatch: Any) -> None:
    import os

    monkeypatch.setenv("SECRET_KEY", "s3cret")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:pw@db/nap")
    worker.render(PAGE, soon())
    pid = worker.pid
    assert pid is not None
    assert os.getpriority(os.PRIO_PROCESS, pid) >= scorer.reports.render_pool.NICENESS
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    names = {item.partition(b"=")[0] for item in environ}
    assert b"NAP_PDF_NICE" in names and b"SECRET_KEY" not in names and b"DATABASE_URL" not in names


def test_the_app_answers_a_crash_with_a_clear_page_and_goes_on(sqlite_url: str, monkeypatch: Any) -> None:
    sys.path.insert(0, str(HERE))
    from conftest import make_app

    app = make_app(sqlite_url, PDF_WORKER_RENDERS=3)  # a pool of its own
    with app.app_context():
        key = evening_writes.import_evening(loads((HERE.parent / "examples" / "hoyle-five.json").read_bytes())).key
    client = app.test_client()
    fake(monkeypatch, "crash")
    response = client.get(f"/e/{key}/evening.pdf")
    assert response.status_code == 503 and "The PDF could not be made." in response.get_data(as_text=True)
    assert client.get(f"/e/{key}").status_code == 200  # the app itself goes on
    monkeypatch.undo()
    # the failure is remembered for this revision; the next revision is rendered by a new worker
    assert client.get(f"/e/{key}/evening.pdf").status_code == 503
    with app.app_context():
        evening_writes.set_finished(units.get_evening(key), True)  # type: ignore[arg-type]
    response = client.get(f"/e/{key}/evening.pdf")
    assert response.status_code == 200 and "Winner: Alice" in text_of(response.data)
    with app.app_context():
        from scorer.reports.pdf import workers

        workers().close()


def test_how_many_workers_comes_from_config_or_environment(sqlite_url: str, monkeypatch: Any) -> None:
    sys.path.insert(0, str(HERE))
    from conftest import make_app

    from scorer.reports.pdf import DEFAULT_WORKER_RENDERS, DEFAULT_WORKERS, workers

    app = make_app(sqlite_url)
    monkeypatch.setenv("PDF_WORKERS", "2")
    monkeypatch.setenv("PDF_WORKER_RENDERS", "17")
    with app.app_context():
        pool = workers()  # no process starts until a render needs one
        assert pool.size == 2 and all(w.max_renders == 17 and not w.alive() for w in pool.all)
        monkeypatch.setenv("PDF_WORKERS", "two")
        app.config["PDF_WORKER_RENDERS"] = 5  # config wins over the environment
        pool = workers()
        assert pool.size == DEFAULT_WORKERS == 1 and pool.all[0].max_renders == 5 != DEFAULT_WORKER_RENDERS
