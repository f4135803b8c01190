"""Validates ATIF documents with Harbor's own models (tests/atif.rs runs it; .ci/run prepares
the Python it runs with: pydantic and Harbor's `harbor/models/trajectories/` and
`harbor/utils/trajectory_validator.py`, taken from Harbor's wheel).

Usage: validate.py FILE...   Each file holds one trajectory document a line (what
`scribe --to atif` writes). Each document is checked by `Trajectory` and `TrajectoryValidator`,
and every `subagent_trajectory_ref` must name an embedded trajectory of the same document.
Prints one line with the counts, every error after it; exits 1 when any document fails.
"""

import json
import sys

from harbor.models.trajectories import Trajectory
from harbor.utils.trajectory_validator import TrajectoryValidator


def unresolved_refs(doc, where):
    """Sub-agent references that name no trajectory embedded beside them, and the number of
    trajectories checked (this one and those it embeds)."""
    errors = []
    embedded = doc.get("subagent_trajectories") or []
    ids = {t.get("trajectory_id") for t in embedded}
    for step in doc.get("steps", []):
        for result in (step.get("observation") or {}).get("results", []):
            for ref in result.get("subagent_trajectory_ref") or []:
                if ref.get("trajectory_path") is None and ref.get("trajectory_id") not in ids:
                    errors.append(
                        f"{where}: step {step.get('step_id')}: subagent_trajectory_ref "
                        f"{ref.get('trajectory_id')!r} is not embedded"
                    )
    count = 1
    for t in embedded:
        sub_errors, sub_count = unresolved_refs(t, f"{where} > {t.get('trajectory_id')}")
        errors += sub_errors
        count += sub_count
    return errors, count


def main(paths):
    documents = trajectories = 0
    errors = []
    validator = TrajectoryValidator()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            lines = [l for l in f if l.strip()]
        if not lines:
            errors.append(f"{path}: no document")
        for n, line in enumerate(lines, 1):
            where = f"{path}:{n}"
            documents += 1
            try:
                doc = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"{where}: not JSON: {e}")
                continue
            where += f" ({(doc.get('extra') or {}).get('file', '?')})"
            if not validator.validate(doc):
                errors += [f"{where}: {e}" for e in validator.get_errors()]
                continue
            # The model itself, as a consumer would load it.
            Trajectory(**doc)
            ref_errors, count = unresolved_refs(doc, where)
            errors += ref_errors
            trajectories += count
    print(f"atif: {documents} documents valid by Harbor's models: "
          f"{documents - len({e.split(': ')[0] for e in errors})} "
          f"({trajectories} trajectories with their sub-agents), {len(errors)} errors")
    for e in errors[:200]:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
