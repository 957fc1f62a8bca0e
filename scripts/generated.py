"""What the scripts that write source files share: write the file, or (with --check)
exit 1 when the file in the tree is not what the script would write."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_or_check(target: Path, output: str, summary: str, script: str) -> None:
    """Writes `output` to `target`, or with `--check` compares them; `summary` says what
    the file holds ("59 completion variants")."""
    if "--check" in sys.argv:
        if not target.exists() or target.read_text() != output:
            print(f"{target.relative_to(ROOT)} is out of date: run {script}", file=sys.stderr)
            sys.exit(1)
        print(f"{summary}, up to date")
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(output)
    print(f"wrote {summary} to {target.relative_to(ROOT)}")
