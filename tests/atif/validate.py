"""Validates ATIF documents with Harbor's own models (tests/atif.rs runs it; .ci/run prepares
the Python it runs with: pydantic and Harbor's `harbor/models/trajectories/` and
`harbor/utils/trajectory_validator.py`, taken from Harbor's wheel).

Usage: validate.py FILE...   Each file holds one trajectory document a line (what
`scribe --to atif` writes). Each document is checked by `Trajectory` and `TrajectoryValidator`,
and every `subagent_trajectory_ref` must name an embedded trajectory of the same document, or
by its `trajectory_path` a file (relative to the referring file's directory) holding one
document with that `trajectory_id`, itself checked the same way (`--output-dir`).
Prints one line with the counts, every error after it; exits 1 when any document fails.
"""

import json
import os
import sys

from harbor.models.trajectories import Trajectory
from harbor.utils.trajectory_validator import TrajectoryValidator


def validate(doc, where, validator):
    """Harbor's errors for one document (the validator's, then the model's own)."""
    if not validator.validate(doc):
        return [f"{where}: {e}" for e in validator.get_errors()]
    # The model itself, as a consumer would load it.
    Trajectory(**doc)
    return []


def referenced_file(ref, directory, where, validator, files):
    """The errors of the file a reference names by its path, and the number of trajectories
    in it; each file is checked once (`files`: those checked so far)."""
    base = os.path.abspath(directory)
    path = os.path.abspath(os.path.join(base, ref["trajectory_path"]))
    if os.path.dirname(path) != base:
        return [f"{where}: trajectory_path {ref['trajectory_path']!r} is not beside it"], 0
    if path in files:
        return [], 0
    files.add(path)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        return [f"{where}: trajectory_path {ref['trajectory_path']!r}: {e}"], 0
    errors = validate(doc, path, validator)
    if doc.get("trajectory_id") != ref.get("trajectory_id"):
        errors.append(f"{path}: trajectory_id {doc.get('trajectory_id')!r} is not the "
                      f"reference's {ref.get('trajectory_id')!r}")
    if errors:
        return errors, 0
    return unresolved_refs(doc, path, directory, validator, files)


def unresolved_refs(doc, where, directory, validator, files):
    """Sub-agent references that name no trajectory embedded beside them nor a valid file,
    and the number of trajectories checked (this one, those it embeds and those it names)."""
    errors = []
    embedded = doc.get("subagent_trajectories") or []
    ids = {t.get("trajectory_id") for t in embedded}
    count = 1
    for step in doc.get("steps", []):
        for result in (step.get("observation") or {}).get("results", []):
            for ref in result.get("subagent_trajectory_ref") or []:
                if ref.get("trajectory_path") is not None:
                    file_errors, file_count = referenced_file(
                        ref, directory, where, validator, files)
                    errors += file_errors
                    count += file_count
                elif ref.get("trajectory_id") not in ids:
                    errors.append(
                        f"{where}: step {step.get('step_id')}: subagent_trajectory_ref "
                        f"{ref.get('trajectory_id')!r} is not embedded"
                    )
    for t in embedded:
        sub_errors, sub_count = unresolved_refs(
            t, f"{where} > {t.get('trajectory_id')}", directory, validator, files)
        errors += sub_errors
        count += sub_count
    return errors, count


def main(paths):
    documents = trajectories = 0
    errors = []
    validator = TrajectoryValidator()
    files = set()
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
            # A file a reference reached already was checked with its trajectories.
            if os.path.abspath(path) in files:
                continue
            files.add(os.path.abspath(path))
            doc_errors = validate(doc, where, validator)
            if doc_errors:
                errors += [f"{e} ({(doc.get('extra') or {}).get('file', '?')})" for e in doc_errors]
                continue
            ref_errors, count = unresolved_refs(
                doc, where, os.path.dirname(path), validator, files)
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
