from fixtures.analysis.sweep_runs import planted_sweep
from commscope.store.db import Store
from commscope.analysis.sweep_verdicts import SWEEP_KEY
def test_x(monkeypatch, clean_env, cli, tmp_path):
    outcome = planted_sweep(monkeypatch, tmp_path, 4, "node")
    with Store(outcome.db) as store:
        record = store.run(outcome.run_id).provenance[SWEEP_KEY]
        print("RECORD", record)
        store.add_provenance(outcome.run_id, {SWEEP_KEY: {**record, "rules": {"bw": {"margn": 1}}}})
        print("AFTER", store.run(outcome.run_id).provenance[SWEEP_KEY])
    result = cli("report", "1", "-o", tmp_path / "r.html", "--db", outcome.db)
    print(result.exit_code, result.output[-2000:])
